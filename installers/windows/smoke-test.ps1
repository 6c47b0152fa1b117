<#
.SYNOPSIS
  Installs Vidya silently for the current user, checks the installed app, then uninstalls it.

.DESCRIPTION
    powershell -ExecutionPolicy Bypass -File installers\windows\smoke-test.ps1 -Installer <setup.exe>

  For the CI runner or a test machine (it installs into and removes %LOCALAPPDATA%\Vidya, and
  uses a scratch library, not %APPDATA%\Vidya\data\library). Checks:
    * `setup.exe /S` succeeds without elevation and installs to %LOCALAPPDATA%\Vidya with the
      decided layout (native\, models\, ui\, sample\, licenses\, vidya.exe, the VC++ DLLs);
    * installer-source.txt holds the installer's folder (UTF-8, one line);
    * Start-menu shortcut and the per-user uninstall entry (HKCU);
    * `vidya doctor` finds pdfium.dll and onnxruntime.dll in the install folder, pinned hashes;
    * with an empty, stale onnxruntime.dll first on PATH and in the current folder, `vidya ingest
      sample\ch08.pdf` still embeds (ONNX Runtime is loaded by absolute path) and `vidya ask`
      answers extractively with a citation while Ollama is unreachable (OLLAMA_HOST port 9);
    * vidya-desktop.exe starts and stays up (reported, not failed: a runner may lack a desktop);
    * `uninstall.exe /S` removes the install folder and keeps %APPDATA%\Vidya (the library).
#>
[CmdletBinding()]
param(
    [Parameter(Mandatory = $true)][string]$Installer,
    [switch]$KeepInstalled
)

Set-StrictMode -Version Latest
$ErrorActionPreference = 'Stop'
$ProgressPreference = 'SilentlyContinue'
[Console]::OutputEncoding = [System.Text.Encoding]::UTF8

$Installer = (Resolve-Path $Installer).Path
$InstallDir = Join-Path $env:LOCALAPPDATA 'Vidya'
$AppData = Join-Path $env:APPDATA 'Vidya'
$Scratch = Join-Path ([IO.Path]::GetTempPath()) ("vidya-smoke-" + [guid]::NewGuid().ToString('N').Substring(0, 8))
$Library = Join-Path $Scratch 'library'
$Stale = Join-Path $Scratch 'stale-dll'
$failures = New-Object System.Collections.Generic.List[string]

function Check([bool]$Condition, [string]$What) {
    if ($Condition) { Write-Host "  ok: $What" }
    else { Write-Host "  FAIL: $What" -ForegroundColor Red; $failures.Add($What) }
}

# Runs a native program; returns @{ Code; Out; Err } (stdout and stderr as text, UTF-8).
function Run([string]$Exe, [string[]]$Arguments) {
    Write-Host "> $Exe $($Arguments -join ' ')"
    $psi = New-Object System.Diagnostics.ProcessStartInfo
    $psi.FileName = $Exe
    foreach ($a in $Arguments) { $null = $psi.ArgumentList.Add($a) }
    $psi.UseShellExecute = $false
    $psi.RedirectStandardOutput = $true
    $psi.RedirectStandardError = $true
    $psi.StandardOutputEncoding = [System.Text.Encoding]::UTF8
    $psi.StandardErrorEncoding = [System.Text.Encoding]::UTF8
    $psi.WorkingDirectory = (Get-Location).Path
    $p = [System.Diagnostics.Process]::Start($psi)
    $errTask = $p.StandardError.ReadToEndAsync()
    $out = $p.StandardOutput.ReadToEnd()
    $p.WaitForExit()
    $err = $errTask.Result
    if ($out) { Write-Host $out.TrimEnd() }
    if ($err) { Write-Host $err.TrimEnd() -ForegroundColor DarkGray }
    return @{ Code = $p.ExitCode; Out = $out; Err = $err }
}

if ($PSVersionTable.PSVersion.Major -lt 7) { throw 'Run this with PowerShell 7 (pwsh): it uses ProcessStartInfo.ArgumentList.' }
if (Test-Path $InstallDir) { throw "$InstallDir exists already: uninstall Vidya first (this test installs and removes it)." }
New-Item -ItemType Directory -Force $Stale | Out-Null

Write-Host "== Install (silent, per-user): $Installer"
$size = (Get-Item $Installer).Length
Write-Host ("   {0:N0} bytes ({1:N1} MiB)" -f $size, ($size / 1MB))
$p = Start-Process -FilePath $Installer -ArgumentList '/S' -Wait -PassThru
Check ($p.ExitCode -eq 0) "installer exit code $($p.ExitCode)"
Check (Test-Path (Join-Path $InstallDir 'vidya-desktop.exe')) "installed to $InstallDir (Tauri's currentUser folder, `$LOCALAPPDATA\`${PRODUCTNAME})"

Write-Host '== Layout'
foreach ($rel in @(
        'vidya-desktop.exe', 'vidya.exe', 'uninstall.exe',
        'native\pdfium.dll', 'native\onnxruntime.dll',
        'models\multilingual-e5-small\model_int8.onnx', 'models\multilingual-e5-small\model_int8.onnx.data', 'models\multilingual-e5-small\tokenizer.json',
        'models\llama-3.2-tokenizer\tokenizer.json',
        'ui\index.html', 'sample\ch08.pdf', 'sample\ATTRIBUTION.md', 'licenses\THIRD-PARTY-NOTICES.md',
        'msvcp140.dll', 'msvcp140_1.dll', 'vcruntime140.dll', 'vcruntime140_1.dll', 'installer-source.txt')) {
    Check (Test-Path (Join-Path $InstallDir $rel)) $rel
}
$srcFile = Join-Path $InstallDir 'installer-source.txt'
if (Test-Path $srcFile) {
    $bytes = [IO.File]::ReadAllBytes($srcFile)
    $text = [Text.Encoding]::UTF8.GetString($bytes)
    $expected = Split-Path $Installer -Parent
    Check ($text -eq "$expected`r`n") "installer-source.txt is '$($text.TrimEnd())' (expected '$expected', UTF-8 + CRLF)"
    Check (-not ($bytes.Length -ge 3 -and $bytes[0] -eq 0xEF)) 'installer-source.txt has no BOM'
}
$startMenu = Join-Path $env:APPDATA 'Microsoft\Windows\Start Menu\Programs'
Check ((Test-Path (Join-Path $startMenu 'Vidya.lnk')) -or @(Get-ChildItem $startMenu -Recurse -Filter 'Vidya.lnk' -ErrorAction SilentlyContinue).Count -gt 0) 'Start-menu shortcut Vidya.lnk'
Check (Test-Path 'HKCU:\Software\Microsoft\Windows\CurrentVersion\Uninstall\Vidya') 'per-user uninstall entry (HKCU)'

Write-Host '== A stale onnxruntime.dll (empty file) first on PATH and in the current folder'
New-Item -ItemType File -Force (Join-Path $Stale 'onnxruntime.dll') | Out-Null
$env:PATH = "$Stale;$env:PATH"
$sys32 = Join-Path $env:SystemRoot 'System32\onnxruntime.dll'
if (Test-Path $sys32) { Write-Host "   (System32 has onnxruntime.dll $((Get-Item $sys32).VersionInfo.FileVersion) too)" }
Push-Location $Stale
try {
    $env:OLLAMA_HOST = 'http://127.0.0.1:9'
    $vidya = Join-Path $InstallDir 'vidya.exe'

    Write-Host '== vidya doctor'
    $r = Run $vidya @('--library', $Library, 'doctor')
    $r = Run $vidya @('--library', $Library, 'doctor', '--json')
    Check ($r.Code -eq 0) "doctor exit code $($r.Code)"
    $doc = $r.Out | ConvertFrom-Json
    foreach ($n in @($doc.native)) {
        $inInstall = $n.path -and ($n.path.ToLowerInvariant().Contains((Join-Path $InstallDir 'native').ToLowerInvariant()))
        Check ($n.status -eq 'ok' -and $inInstall) "$($n.name) $($n.version): $($n.status) at $($n.path)"
    }
    Check (@($doc.native).Count -ge 2) 'doctor lists pdfium and onnxruntime'
    Check (@($doc.problems).Count -eq 0) "doctor reports no problems ($(@($doc.problems) -join '; '))"

    Write-Host '== vidya ingest sample\ch08.pdf'
    $r = Run $vidya @('--library', $Library, 'ingest', (Join-Path $InstallDir 'sample\ch08.pdf'))
    Check ($r.Code -eq 0) "ingest exit code $($r.Code)"
    Check (-not ($r.Err -match 'word search only')) 'ingest embedded the chapter (ONNX Runtime loaded from native\, not the stale copy)'

    Write-Host '== vidya ask "What is photosynthesis?" (Ollama unreachable: extractive answer)'
    $r = Run $vidya @('--library', $Library, 'ask', 'What is photosynthesis?')
    Check ($r.Code -eq 0 -and $r.Out -match '\[1\]') "ask answers with a citation [1] (exit code $($r.Code))"
    $r = Run $vidya @('--library', $Library, 'ask', 'What is photosynthesis?', '--json')
    $ans = $r.Out | ConvertFrom-Json
    Check (@($ans.citations).Count -gt 0 -and @($ans.citations)[0].file -eq 'ch08.pdf') 'ask --json cites ch08.pdf'
}
finally {
    Pop-Location
}

Write-Host '== vidya-desktop.exe starts'
$app = Start-Process -FilePath (Join-Path $InstallDir 'vidya-desktop.exe') -PassThru
Start-Sleep -Seconds 15
if ($app.HasExited) {
    Write-Host "  note: vidya-desktop.exe exited within 15 s (exit code $($app.ExitCode)); a CI runner may have no interactive desktop" -ForegroundColor Yellow
} else {
    Write-Host '  ok: vidya-desktop.exe is running after 15 s'
    Stop-Process -Id $app.Id -Force
    Start-Sleep -Seconds 2
}

if (-not $KeepInstalled) {
    Write-Host '== Uninstall (silent): the library folder stays'
    $null = New-Item -ItemType Directory -Force $AppData
    $marker = Join-Path $AppData 'smoke-test-marker.txt'
    Set-Content -Path $marker -Value 'kept by the uninstaller'
    $p = Start-Process -FilePath (Join-Path $InstallDir 'uninstall.exe') -ArgumentList '/S' -Wait -PassThru
    Check ($p.ExitCode -eq 0) "uninstaller exit code $($p.ExitCode)"
    # The uninstaller copies itself to %TEMP% and runs from there: wait for it to finish.
    $deadline = (Get-Date).AddSeconds(180)
    while ((Test-Path (Join-Path $InstallDir 'uninstall.exe')) -and (Get-Date) -lt $deadline) { Start-Sleep -Seconds 2 }
    Start-Sleep -Seconds 3
    $left = @(Get-ChildItem $InstallDir -Recurse -Force -ErrorAction SilentlyContinue | ForEach-Object { $_.FullName })
    Check (-not (Test-Path $InstallDir)) "install folder removed$(if ($left) { ' (left: ' + ($left -join ', ') + ')' })"
    Check (Test-Path $marker) "%APPDATA%\Vidya kept (the teacher's library)"
    Check (-not (Test-Path 'HKCU:\Software\Microsoft\Windows\CurrentVersion\Uninstall\Vidya')) 'uninstall entry removed'
    Remove-Item $marker -Force -ErrorAction SilentlyContinue
}

Remove-Item $Scratch -Recurse -Force -ErrorAction SilentlyContinue
if ($failures.Count -gt 0) {
    Write-Host ''
    Write-Host "smoke test: $($failures.Count) failure(s):" -ForegroundColor Red
    $failures | ForEach-Object { Write-Host "  - $_" -ForegroundColor Red }
    exit 1
}
Write-Host ''
Write-Host 'smoke test: all checks passed' -ForegroundColor Green
