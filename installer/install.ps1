# One-command install for Windows: build and install the tabwire binary
# (cargo install), then run `tabwire install`, which registers the native
# host for every Chromium-family browser found (per-user registry keys),
# places the extension and prints the next steps. Safe to re-run.
#
# Usage: .\installer\install.ps1 [-Bin PATH] [tabwire install options...]
#   -Bin PATH                     use this tabwire.exe instead of building one
#   TABWIRE_INSTALL_SKIP_BUILD=1  use the tabwire already in PATH
# Other options go to `tabwire install`, e.g. --client claude-desktop, --dry-run.
param(
    [string]$Bin = "",
    [Parameter(ValueFromRemainingArguments = $true)][string[]]$Rest = @()
)
$ErrorActionPreference = "Stop"
$Root = Split-Path -Parent $PSScriptRoot

if (-not $Bin) {
    if ($env:TABWIRE_INSTALL_SKIP_BUILD -eq "1") {
        $Bin = (Get-Command tabwire -ErrorAction Stop).Source
    } else {
        if (-not (Get-Command cargo -ErrorAction SilentlyContinue)) {
            Write-Error "cargo (Rust) is not installed. Install it from https://rustup.rs, open a new terminal and run this script again."
            exit 1
        }
        Write-Host "tabwire: building and installing the binary with cargo install (a few minutes the first time)..."
        cargo install --path $Root --locked
        if ($LASTEXITCODE -ne 0) { exit $LASTEXITCODE }
        $CargoRoot = if ($env:CARGO_INSTALL_ROOT) { $env:CARGO_INSTALL_ROOT }
                     elseif ($env:CARGO_HOME) { $env:CARGO_HOME }
                     else { Join-Path $HOME ".cargo" }
        $Bin = Join-Path $CargoRoot "bin\tabwire.exe"
    }
}

if (-not (Test-Path $Bin)) {
    Write-Error "no tabwire binary at '$Bin'. Build it with 'cargo install --path $Root --locked' or pass -Bin PATH."
    exit 1
}

& $Bin install @Rest
exit $LASTEXITCODE
