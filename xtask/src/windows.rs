//! `cargo xtask windows`: Vidya for Windows, built, packed and tested on this Linux machine.
//!
//! 1. Provisions the Windows files from the registries (`setup --target windows-x86_64
//!    --models`: pdfium.dll, onnxruntime.dll, the Visual C++ runtime DLLs, the models),
//!    cross-builds the OCR engine from Debian's Tesseract and Leptonica sources
//!    (`installers/windows/build-tesseract.sh`, kept until its inputs change) and stages the
//!    licences (`installers/stage_licenses.py`).
//! 2. Cross-builds `vidya.exe` and `vidya-desktop.exe` for `x86_64-pc-windows-gnu` with
//!    Debian's mingw-w64 *posix* compilers (usearch's C++ needs `std::thread`), in the
//!    `windows-smoke` profile (unoptimised, debug assertions on, no debug info), stripped when
//!    staged, with the C++ and GCC runtimes linked statically so that no MinGW DLL has to
//!    travel with the programs.
//! 3. Stages the install folder in `target/windows-stage/Vidya/` from
//!    `installers/windows/payload.toml` (the list the release installer's Tauri configuration
//!    is made from too) and checks that every DLL the programs import is either Windows' own or
//!    shipped.
//! 4. Packs it with Debian's `makensis` and `installers/windows/vidya.nsi` into
//!    `target/windows-installer/Vidya_<version>_x64-test-setup.exe` (no WebView2 inside: this
//!    installer is for the test below; the release installer, built on Windows, has it).
//! 5. Unless `--no-smoke-test`: installs it under Wine in a fresh prefix and checks the
//!    installed programs (`installers/windows/wine-smoke.sh`).
//!
//! `--tauri-resources FILE` only writes the payload as a Tauri configuration fragment
//! (`{"bundle": {"resources": {...}}}`, sources relative to `src-tauri/`), for
//! `installers/windows/build.ps1`.

use anyhow::{bail, Context, Result};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::models::{build_models, provide_npm_files};
use crate::wheels::setup;
use crate::{cargo, run_step};

/// The manifest's platform folder for Windows.
pub(crate) const TARGET_FOLDER: &str = "windows-x86_64";
/// The Rust target of the cross-build.
const TRIPLE: &str = "x86_64-pc-windows-gnu";
/// The mingw-w64 compilers with the posix thread model.
/// Cargo's profile for these programs (`Cargo.toml`: no optimisation, no debug info; about
/// half the compile time of the dev profile, whose dependencies are optimised for the tests).
const PROFILE: &str = "windows-smoke";

const CC: &str = "x86_64-w64-mingw32-gcc-posix";
const CXX: &str = "x86_64-w64-mingw32-g++-posix";
/// The programs the installer carries, built by the cross-build.
const PROGRAMS: [&str; 2] = ["vidya.exe", "vidya-desktop.exe"];
/// Built beside `vidya-desktop.exe` by tauri-build on the gnu target (webview2-com-sys links the
/// WebView2 loader dynamically there).
const WEBVIEW2_LOADER: &str = "WebView2Loader.dll";

/// DLLs that every supported Windows (10 and 11) has: what the programs and shipped libraries
/// may import without shipping it. Compared case-insensitively; `api-ms-win-*` API sets are
/// Windows' own too.
const SYSTEM_DLLS: &[&str] = &[
    "advapi32.dll",
    "bcrypt.dll",
    "bcryptprimitives.dll",
    "combase.dll",
    "comctl32.dll",
    "comdlg32.dll",
    "crypt32.dll",
    "dbghelp.dll",
    "dwmapi.dll",
    "dxgi.dll",
    "gdi32.dll",
    "gdiplus.dll",
    "imm32.dll",
    "iphlpapi.dll",
    "kernel32.dll",
    "msimg32.dll",
    "msvcrt.dll",
    "ncrypt.dll",
    "netapi32.dll",
    "ntdll.dll",
    "ole32.dll",
    "oleaut32.dll",
    "pdh.dll",
    "powrprof.dll",
    "propsys.dll",
    "psapi.dll",
    "rpcrt4.dll",
    "secur32.dll",
    "setupapi.dll",
    "shell32.dll",
    "shlwapi.dll",
    "user32.dll",
    "userenv.dll",
    "uxtheme.dll",
    "version.dll",
    "winmm.dll",
    "winspool.drv",
    "ws2_32.dll",
];

/// One entry of `installers/windows/payload.toml`.
#[derive(Deserialize)]
pub(crate) struct PayloadEntry {
    /// Path in the install folder, `/`-separated.
    pub(crate) dest: String,
    /// File or folder, relative to the repository root.
    pub(crate) src: String,
}

#[derive(Deserialize)]
struct Payload {
    entry: Vec<PayloadEntry>,
}

/// Reads `installers/windows/payload.toml`.
pub(crate) fn payload(root: &Path) -> Result<Vec<PayloadEntry>> {
    let path = root.join("installers/windows/payload.toml");
    let p: Payload = toml::from_str(&fs::read_to_string(&path)?)
        .with_context(|| format!("parsing {}", path.display()))?;
    for e in &p.entry {
        if e.dest.is_empty() || e.dest.starts_with('/') || e.dest.contains("..") {
            bail!(
                "{}: dest {:?} is not a path inside the install folder",
                path.display(),
                e.dest
            );
        }
    }
    Ok(p.entry)
}

/// Writes the payload as a Tauri configuration fragment (sources relative to `src-tauri/`).
pub(crate) fn write_tauri_resources(root: &Path, out: &Path) -> Result<()> {
    let resources: BTreeMap<String, String> = payload(root)?
        .into_iter()
        .map(|e| (format!("../{}", e.src), e.dest))
        .collect();
    let n = resources.len();
    let json = serde_json::json!({ "bundle": { "resources": resources } });
    if let Some(dir) = out.parent() {
        fs::create_dir_all(dir)?;
    }
    fs::write(out, serde_json::to_string_pretty(&json)? + "\n")
        .with_context(|| format!("writing {}", out.display()))?;
    println!(
        "windows: Tauri resources ({n} entries) written to {}",
        out.display()
    );
    Ok(())
}

/// NSIS compressors `cargo xtask windows --compressor` accepts.
pub(crate) const COMPRESSORS: [&str; 2] = ["lzma", "zlib"];

/// The whole `cargo xtask windows`: `compressor` is NSIS's (`lzma`, as the release installer,
/// or `zlib`: measured here, 30 s against 280 s to pack, 87 MiB against 73 MiB).
pub(crate) fn run(root: &Path, smoke_test: bool, compressor: &str) -> Result<()> {
    crate::system::ensure_system_packages()?;
    ensure_rust_target()?;
    provision(root)?;
    let out = build(root)?;
    let stage = stage(root, &out)?;
    check_imports(&stage)?;
    let installer = installer(root, &stage, compressor)?;
    if smoke_test {
        run_step(
            "the Windows installer under Wine (installers/windows/wine-smoke.sh)",
            {
                let mut c = Command::new("bash");
                c.current_dir(root)
                    .arg("installers/windows/wine-smoke.sh")
                    .arg(&installer);
                c
            },
        )?;
    }
    Ok(())
}

/// `rustup target add x86_64-pc-windows-gnu` (the standard library for the target).
fn ensure_rust_target() -> Result<()> {
    let listed = Command::new("rustup")
        .args(["target", "list", "--installed"])
        .output();
    match listed {
        Ok(o) if String::from_utf8_lossy(&o.stdout).lines().any(|l| l.trim() == TRIPLE) => Ok(()),
        Ok(_) => run_step(&format!("rustup target add {TRIPLE}"), {
            let mut c = Command::new("rustup");
            c.args(["target", "add", TRIPLE]);
            c
        }),
        Err(_) => bail!(
            "rustup is needed to add the {TRIPLE} standard library (install Rust with rustup, or add the target to your toolchain)"
        ),
    }
}

/// The Windows libraries, the models and the licences.
fn provision(root: &Path) -> Result<()> {
    for group in ["core", "vc-runtime", "models"] {
        setup(root, TARGET_FOLDER, false, group)?;
    }
    build_models(root, false)?;
    provide_npm_files(root, false)?;
    run_step(
        "Tesseract for Windows (installers/windows/build-tesseract.sh)",
        {
            let mut c = Command::new("bash");
            c.current_dir(root)
                .arg("installers/windows/build-tesseract.sh")
                .arg(format!("resources/native/{TARGET_FOLDER}/ocr"));
            c
        },
    )?;
    run_step("stage the licences (installers/stage_licenses.py)", {
        let mut c = Command::new(crate::python());
        c.current_dir(root)
            .arg("installers/stage_licenses.py")
            .args(["--target", TARGET_FOLDER]);
        c
    })
}

/// Cross-builds the programs; returns the folder they are in.
fn build(root: &Path) -> Result<PathBuf> {
    // usearch includes <Windows.h>; mingw ships windows.h, and Linux file names are
    // case-sensitive.
    let shim = root.join("target/windows-shim");
    fs::create_dir_all(&shim)?;
    fs::write(shim.join("Windows.h"), "#include <windows.h>\n")?;
    // Where mingw's static libstdc++ is, for rustc to find it (see CXXSTDLIB below).
    let libstdcxx = Command::new(CXX)
        .arg("-print-file-name=libstdc++.a")
        .output()
        .with_context(|| format!("{CXX} is missing: apt-get install g++-mingw-w64-x86-64-posix"))?;
    let libstdcxx = PathBuf::from(String::from_utf8_lossy(&libstdcxx.stdout).trim());
    let gcc_lib = libstdcxx
        .parent()
        .filter(|d| libstdcxx.is_file() && d.is_dir())
        .with_context(|| format!("{CXX} does not know where libstdc++.a is"))?;
    let env_target = TRIPLE.replace('-', "_");
    let rustflags = format!(
        "-L native={} -C link-arg=-static -C link-arg=-static-libgcc",
        gcc_lib.display()
    );
    let cxxflags = format!("-I{}", shim.display());
    // The programs run on old laptops (no AVX2, some no AVX): nothing of this build may assume
    // a newer CPU. They cannot run under an emulated old CPU here, so the flags are checked.
    crate::cpu_baseline::check_build_flags(
        root,
        "Windows cross-build",
        &[
            (
                format!("CARGO_TARGET_{}_RUSTFLAGS", env_target.to_uppercase()),
                rustflags.clone(),
            ),
            (format!("CXXFLAGS_{env_target}"), cxxflags.clone()),
        ],
    )?;
    run_step(
        &format!("cargo build --profile {PROFILE} --target {TRIPLE} -p vidya-cli -p vidya-desktop"),
        {
            let mut c = cargo();
            c.current_dir(root)
                .args(["build", "--profile", PROFILE, "--target", TRIPLE])
                .args(["-p", "vidya-cli", "-p", "vidya-desktop"])
                .env(
                    format!("CARGO_TARGET_{}_LINKER", env_target.to_uppercase()),
                    CC,
                )
                .env(format!("CC_{env_target}"), CC)
                .env(format!("CXX_{env_target}"), CXX)
                .env(format!("AR_{env_target}"), "x86_64-w64-mingw32-ar")
                .env(format!("CXXFLAGS_{env_target}"), &cxxflags)
                // The C++ standard library linked statically: the `cc` crate otherwise asks
                // for libstdc++-6.dll, which would have to travel with the programs.
                .env(format!("CXXSTDLIB_{env_target}"), "static=stdc++")
                .env(
                    format!("CARGO_TARGET_{}_RUSTFLAGS", env_target.to_uppercase()),
                    &rustflags,
                );
            c
        },
    )?;
    Ok(root.join("target").join(TRIPLE).join(PROFILE))
}

/// Copies the programs and the payload into `target/windows-stage/Vidya/` (emptied first).
fn stage(root: &Path, built: &Path) -> Result<PathBuf> {
    let stage = root.join("target/windows-stage/Vidya");
    if stage.exists() {
        fs::remove_dir_all(&stage)?;
    }
    fs::create_dir_all(&stage)?;
    for f in PROGRAMS.iter().chain([&WEBVIEW2_LOADER]) {
        let from = built.join(f);
        if !from.is_file() {
            bail!("{} was not built", from.display());
        }
        fs::copy(&from, stage.join(f))?;
    }
    // Symbol tables out: the installer carries only what runs.
    run_step("strip the programs (x86_64-w64-mingw32-strip)", {
        let mut c = Command::new("x86_64-w64-mingw32-strip");
        c.args(PROGRAMS.map(|p| stage.join(p)));
        c
    })?;
    let mut files = 0;
    for e in payload(root)? {
        let from = root.join(&e.src);
        let to = stage.join(&e.dest);
        if from.is_dir() {
            files += copy_dir(&from, &to)?;
        } else if from.is_file() {
            fs::create_dir_all(to.parent().expect("a file has a folder"))?;
            fs::copy(&from, &to)?;
            files += 1;
        } else {
            bail!(
                "{} (for {} in installers/windows/payload.toml) does not exist: run `cargo xtask setup --target windows-x86_64 --models`",
                from.display(),
                e.dest
            );
        }
    }
    println!(
        "windows: staged {} programs and {files} files in {}",
        PROGRAMS.len() + 1,
        stage.display()
    );
    Ok(stage)
}

/// Copies a folder recursively; returns the number of files.
fn copy_dir(from: &Path, to: &Path) -> Result<usize> {
    fs::create_dir_all(to)?;
    let mut n = 0;
    for entry in fs::read_dir(from)? {
        let entry = entry?;
        let path = entry.path();
        if path.is_dir() {
            n += copy_dir(&path, &to.join(entry.file_name()))?;
        } else {
            fs::copy(&path, to.join(entry.file_name()))?;
            n += 1;
        }
    }
    Ok(n)
}

/// Every `.exe` and `.dll` of the stage may import only Windows' own DLLs and DLLs it ships;
/// a MinGW runtime DLL (libstdc++-6.dll, libgcc_s_seh-1.dll, libwinpthread-1.dll) or a Visual
/// C++ DLL missing from the payload would stop the program on a school laptop.
fn check_imports(stage: &Path) -> Result<()> {
    let mut shipped = Vec::new();
    let mut binaries = Vec::new();
    collect_binaries(stage, &mut binaries)?;
    for b in &binaries {
        if let Some(name) = b.file_name().and_then(|n| n.to_str()) {
            shipped.push(name.to_ascii_lowercase());
        }
    }
    let mut problems = Vec::new();
    for b in &binaries {
        let out = Command::new("x86_64-w64-mingw32-objdump")
            .arg("-p")
            .arg(b)
            .output()
            .context(
                "x86_64-w64-mingw32-objdump is missing: apt-get install binutils-mingw-w64-x86-64",
            )?;
        let text = String::from_utf8_lossy(&out.stdout);
        let mut imports: Vec<String> = text
            .lines()
            .filter_map(|l| l.trim().strip_prefix("DLL Name: "))
            .map(|d| d.trim().to_ascii_lowercase())
            .collect();
        imports.sort();
        imports.dedup();
        for d in imports {
            let ok = d.starts_with("api-ms-win-")
                || d.starts_with("ext-ms-")
                || SYSTEM_DLLS.contains(&d.as_str())
                || shipped.contains(&d);
            if !ok {
                problems.push(format!(
                    "{} imports {d}, which is neither Windows' own nor shipped",
                    b.strip_prefix(stage).unwrap_or(b).display()
                ));
            }
        }
    }
    if !problems.is_empty() {
        bail!("{}", problems.join("\n"));
    }
    println!(
        "windows: the imports of {} programs and libraries are all Windows' own or shipped",
        binaries.len()
    );
    Ok(())
}

fn collect_binaries(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    for entry in fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            collect_binaries(&path, out)?;
        } else if path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| e.eq_ignore_ascii_case("exe") || e.eq_ignore_ascii_case("dll"))
        {
            out.push(path);
        }
    }
    Ok(())
}

/// Packs the stage with makensis; returns the installer's path and prints its size.
fn installer(root: &Path, stage: &Path, compressor: &str) -> Result<PathBuf> {
    let version = workspace_version(root)?;
    let out_dir = root.join("target/windows-installer");
    fs::create_dir_all(&out_dir)?;
    let out = out_dir.join(format!("Vidya_{version}_x64-test-setup.exe"));
    let uninstall = stage.with_file_name("uninstall-files.nsh");
    write_uninstall_list(stage, &uninstall)?;
    run_step(
        &format!("makensis installers/windows/vidya.nsi ({compressor})"),
        {
            let mut c = Command::new("makensis");
            c.current_dir(root)
                .args(["-WX", "-V2", "-INPUTCHARSET", "UTF8"])
                .arg(format!("-DCOMPRESSOR={compressor}"))
                .arg(format!("-DVERSION={version}"))
                .arg(format!("-DSTAGE={}", stage.display()))
                .arg(format!("-DUNINSTALL_LIST={}", uninstall.display()))
                .arg(format!("-DOUTFILE={}", out.display()))
                .arg("installers/windows/vidya.nsi");
            c
        },
    )?;
    let size = fs::metadata(&out)?.len();
    println!(
        "windows: installer {} ({size} bytes, {:.1} MiB; {compressor}, without WebView2)",
        out.display(),
        size as f64 / (1024.0 * 1024.0)
    );
    Ok(out)
}

/// The uninstaller removes exactly what the installer wrote (files, then folders deepest
/// first), so files a teacher put in the install folder stay.
fn write_uninstall_list(stage: &Path, out: &Path) -> Result<()> {
    fn walk(dir: &Path, rel: &str, files: &mut Vec<String>, dirs: &mut Vec<String>) -> Result<()> {
        let mut entries: Vec<_> = fs::read_dir(dir)?.collect::<std::io::Result<_>>()?;
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let name = e.file_name().to_string_lossy().into_owned();
            let r = if rel.is_empty() {
                name
            } else {
                format!("{rel}\\{name}")
            };
            if e.path().is_dir() {
                walk(&e.path(), &r, files, dirs)?;
                dirs.push(r);
            } else {
                files.push(r);
            }
        }
        Ok(())
    }
    let (mut files, mut dirs) = (Vec::new(), Vec::new());
    walk(stage, "", &mut files, &mut dirs)?;
    let mut text =
        String::from("; Written by `cargo xtask windows` from the staged install folder.\n");
    for f in files {
        text.push_str(&format!("Delete \"$INSTDIR\\{f}\"\n"));
    }
    for d in dirs {
        text.push_str(&format!("RMDir \"$INSTDIR\\{d}\"\n"));
    }
    fs::write(out, text)?;
    Ok(())
}

/// The workspace's version (`[workspace.package] version`).
fn workspace_version(root: &Path) -> Result<String> {
    let t: toml::Table = toml::from_str(&fs::read_to_string(root.join("Cargo.toml"))?)?;
    t.get("workspace")
        .and_then(|w| w.get("package"))
        .and_then(|p| p.get("version"))
        .and_then(|v| v.as_str())
        .map(str::to_string)
        .context("Cargo.toml has no [workspace.package] version")
}
