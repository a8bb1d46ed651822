# One-command install for Windows: put the tabwire binaries in place, then
# run `tabwire install`, which registers the native host for every
# Chromium-family browser found (per-user registry keys), places the
# extension and prints the next steps. Safe to re-run.
#
# Two ways to get the binaries:
# - prebuilt: download the Windows release archive, check its SHA-256 and
#   copy tabwire.exe and tabwire-host.exe into %LOCALAPPDATA%\Programs\tabwire.
#   The default when cargo is not installed or the script runs outside a
#   checkout; -Prebuilt asks for it. Nothing is installed unless the
#   checksum matches.
# - from source (in a checkout, with Rust's cargo): `cargo install`.
#
# Usage: .\installer\install.ps1 [options] [tabwire install options...]
#   -Prebuilt          install the release archive even where cargo is installed
#   -Archive PATH      install this release archive (a .zip made by
#                      installer/package.sh), checked against PATH.sha256
#   -BaseUrl URL       download archives from URL (default $env:TABWIRE_RELEASE_URL,
#                      else the latest GitHub release)
#   -Version V         download release V (e.g. 0.2.0) instead of the latest
#   -Dir DIR           where prebuilt binaries go (default $env:TABWIRE_INSTALL_DIR,
#                      else %LOCALAPPDATA%\Programs\tabwire)
#   -Bin PATH          register this tabwire.exe; install nothing
#   TABWIRE_INSTALL_SKIP_BUILD=1  register the tabwire already in PATH
# Other options go to `tabwire install`, e.g. --client claude-desktop, --dry-run.
param(
    [string]$Bin = "",
    [switch]$Prebuilt,
    [string]$Archive = "",
    [string]$BaseUrl = "",
    [string]$Version = "",
    [string]$Dir = "",
    [Parameter(ValueFromRemainingArguments = $true)][string[]]$Rest = @()
)
$ErrorActionPreference = "Stop"
$RepoUrl = "https://github.com/tabwire/tabwire"
$Root = Split-Path -Parent $PSScriptRoot
$Triple = "x86_64-pc-windows-msvc"

function Fail([string]$Message) {
    [Console]::Error.WriteLine("tabwire: $Message")
    exit 1
}

# Naming an archive, a download URL or a version asks for the prebuilt path;
# the variable only says where downloads come from.
if (-not $Bin -and ($Archive -or $BaseUrl -or $Version)) { $Prebuilt = $true }
if (-not $BaseUrl -and $env:TABWIRE_RELEASE_URL) { $BaseUrl = $env:TABWIRE_RELEASE_URL }
if (-not $Dir) {
    $Dir = if ($env:TABWIRE_INSTALL_DIR) { $env:TABWIRE_INSTALL_DIR }
           else { Join-Path $env:LOCALAPPDATA "Programs\tabwire" }
}

# Verifies and unpacks a release archive, then copies its binaries into $Dir
# and returns the installed tabwire.exe. Nothing is written outside a
# temporary folder until the checksum has matched and the binary has run.
function Install-Prebuilt {
    $Tmp = Join-Path ([IO.Path]::GetTempPath()) ("tabwire-" + [Guid]::NewGuid().ToString("N"))
    New-Item -ItemType Directory -Path $Tmp | Out-Null
    try {
        if ($Archive) {
            if (-not (Test-Path -LiteralPath $Archive -PathType Leaf)) { Fail "no archive at $Archive" }
            $Zip = (Resolve-Path -LiteralPath $Archive).Path
            $Sums = "$Zip.sha256"
            if (-not (Test-Path -LiteralPath $Sums -PathType Leaf)) {
                Fail "no checksum file $Sums beside the archive: tabwire installs only an archive whose SHA-256 it can check. Nothing was installed."
            }
            $What = $Zip
        } else {
            if ($env:PROCESSOR_ARCHITECTURE -ne "AMD64" -and $env:PROCESSOR_ARCHITECTURE -ne "ARM64") {
                Fail "no prebuilt tabwire for $($env:PROCESSOR_ARCHITECTURE) Windows; build it from source (install Rust from https://rustup.rs, then run this script in a checkout)"
            }
            $Base = $BaseUrl
            if (-not $Base) {
                $Base = if ($Version) { "$RepoUrl/releases/download/v$($Version.TrimStart('v'))" }
                        else { "$RepoUrl/releases/latest/download" }
            }
            $Name = "tabwire-$Triple.zip"
            $What = "$Base/$Name"
            $Zip = Join-Path $Tmp $Name
            $Sums = "$Zip.sha256"
            Write-Host "tabwire: downloading $What"
            # TLS 1.2 for Windows PowerShell 5.1, which may default to older.
            [Net.ServicePointManager]::SecurityProtocol = [Net.ServicePointManager]::SecurityProtocol -bor [Net.SecurityProtocolType]::Tls12
            try {
                Invoke-WebRequest -UseBasicParsing -Uri $What -OutFile $Zip
                Invoke-WebRequest -UseBasicParsing -Uri "$What.sha256" -OutFile $Sums
            } catch {
                Fail "could not download ${What}: $($_.Exception.Message). Nothing was installed."
            }
        }
        $Want = ((Get-Content -LiteralPath $Sums -TotalCount 1) -split '\s+')[0].ToLowerInvariant()
        if ($Want -notmatch '^[0-9a-f]{64}$') { Fail "the checksum file $Sums holds no SHA-256. Nothing was installed." }
        $Got = (Get-FileHash -LiteralPath $Zip -Algorithm SHA256).Hash.ToLowerInvariant()
        if ($Got -ne $Want) {
            Fail "checksum mismatch for ${What}:`n  expected $Want`n  got      $Got`nThe archive is damaged or is not the one released. Nothing was installed."
        }
        Write-Host "tabwire: SHA-256 checked ($Got)"
        $Unpacked = Join-Path $Tmp "unpacked"
        try {
            Expand-Archive -LiteralPath $Zip -DestinationPath $Unpacked
        } catch {
            Fail "could not unpack ${What}: $($_.Exception.Message). Nothing was installed."
        }
        $Src = Get-ChildItem -LiteralPath $Unpacked -Directory |
            Where-Object { Test-Path (Join-Path $_.FullName "tabwire.exe") } |
            Select-Object -First 1
        if (-not $Src -or -not (Test-Path (Join-Path $Src.FullName "tabwire-host.exe"))) {
            Fail "$What holds no tabwire.exe and tabwire-host.exe. Nothing was installed."
        }
        & (Join-Path $Src.FullName "tabwire.exe") --version | Out-Null
        if ($LASTEXITCODE -ne 0) { Fail "the tabwire.exe in $What does not run on this machine. Nothing was installed." }

        New-Item -ItemType Directory -Force -Path $Dir | Out-Null
        foreach ($b in @("tabwire", "tabwire-host")) {
            $Dest = Join-Path $Dir "$b.exe"
            $New = Join-Path $Dir ".$b.new.exe"
            $Old = Join-Path $Dir "$b.old.exe"
            Copy-Item -LiteralPath (Join-Path $Src.FullName "$b.exe") -Destination $New -Force
            # Windows will not overwrite a running program but lets it be
            # renamed: move the old one aside, then the new one in.
            if (Test-Path -LiteralPath $Dest) {
                Remove-Item -LiteralPath $Old -Force -ErrorAction SilentlyContinue
                Move-Item -LiteralPath $Dest -Destination $Old -Force
            }
            Move-Item -LiteralPath $New -Destination $Dest -Force
            Remove-Item -LiteralPath $Old -Force -ErrorAction SilentlyContinue
        }
    } finally {
        Remove-Item -LiteralPath $Tmp -Recurse -Force -ErrorAction SilentlyContinue
    }
    $Installed = Join-Path $Dir "tabwire.exe"
    Write-Host "tabwire: installed $(& $Installed --version) in $Dir"
    $env:TABWIRE_LAUNCHER = "archive"
    return $Installed
}

if (-not $Bin) {
    $HaveCargo = [bool](Get-Command cargo -ErrorAction SilentlyContinue)
    $InCheckout = Test-Path (Join-Path $Root "Cargo.toml")
    if (-not $Prebuilt -and $env:TABWIRE_INSTALL_SKIP_BUILD -eq "1") {
        $Bin = (Get-Command tabwire -ErrorAction Stop).Source
    } elseif (-not $Prebuilt -and $HaveCargo -and $InCheckout) {
        Write-Host "tabwire: building and installing the binary with cargo install (a few minutes the first time; -Prebuilt downloads a release instead)..."
        cargo install --path $Root --locked
        if ($LASTEXITCODE -ne 0) { exit $LASTEXITCODE }
        $CargoRoot = if ($env:CARGO_INSTALL_ROOT) { $env:CARGO_INSTALL_ROOT }
                     elseif ($env:CARGO_HOME) { $env:CARGO_HOME }
                     else { Join-Path $HOME ".cargo" }
        $Bin = Join-Path $CargoRoot "bin\tabwire.exe"
    } else {
        if (-not $Prebuilt) {
            Write-Host "tabwire: cargo (Rust) is not installed: installing the prebuilt release. (To build from source instead, install Rust from https://rustup.rs and run this script again in a checkout.)"
        }
        $Bin = Install-Prebuilt
    }
}

if (-not (Test-Path $Bin)) {
    Fail "no tabwire binary at '$Bin'. Build it with 'cargo install --path $Root --locked', pass -Bin PATH, or use -Prebuilt."
}

& $Bin install @Rest
exit $LASTEXITCODE
