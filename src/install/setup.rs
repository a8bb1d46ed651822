//! `tabwire install` and `tabwire uninstall`: work out what to write, show
//! it, write it (unless `--dry-run`), and record it for uninstall.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use super::browsers::{self, Browser, Evidence, HostLocation};
use super::clients::{self, Client, Edit, Launch};
use super::record::{self, ClientRecord, Record};
use super::source::{self, Source};
use super::{extension_files, manifest, registry, this_binary, Env, InstallError, Os};
use crate::protocol::EXTENSION_ID;

#[derive(Debug, Clone, Default)]
pub struct InstallOptions {
    /// `--browser`: register with these (default: every detected browser).
    pub browsers: Vec<String>,
    /// `--user-data-dir`: register into this one profile only.
    pub user_data_dir: Option<PathBuf>,
    /// `--client`: write tabwire into these MCP clients' config files.
    pub clients: Vec<String>,
    pub dry_run: bool,
    /// The tabwire binary to register (default: this program); the host
    /// browsers start is the `tabwire-host` beside it (see [`super::host_binary`]).
    pub binary: Option<PathBuf>,
}

#[derive(Debug, Clone, Default)]
pub struct UninstallOptions {
    /// `--user-data-dir`: remove only the registration in this profile.
    pub user_data_dir: Option<PathBuf>,
    pub dry_run: bool,
}

/// Appends human output; writes to stdout can only fail if stdout is gone.
macro_rules! say {
    ($out:expr) => {{ let _ = writeln!($out); }};
    ($out:expr, $($arg:tt)*) => {{ let _ = writeln!($out, $($arg)*); }};
}

/// Writes files and remembers what it created; in a dry run only plans.
struct Writer<'a> {
    dry_run: bool,
    record: &'a mut Record,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Change {
    Created,
    Updated,
    Unchanged,
}

impl Writer<'_> {
    /// Creates `dir` and any missing parents, recording each one created.
    fn ensure_dir(&mut self, dir: &Path) -> Result<(), InstallError> {
        let mut missing = Vec::new();
        let mut cur = Some(dir);
        while let Some(d) = cur {
            if d.exists() || d.as_os_str().is_empty() {
                break;
            }
            missing.push(d.to_path_buf());
            cur = d.parent();
        }
        for d in missing.into_iter().rev() {
            if !self.dry_run {
                std::fs::create_dir(&d).map_err(InstallError::io("create", &d))?;
            }
            self.record.add_dir(&d);
        }
        Ok(())
    }

    /// Writes `text` to `path` unless it already holds exactly that.
    fn write(&mut self, path: &Path, text: &str) -> Result<Change, InstallError> {
        let change = match std::fs::read(path) {
            Ok(bytes) if bytes == text.as_bytes() => Change::Unchanged,
            Ok(_) => Change::Updated,
            Err(_) => Change::Created,
        };
        if let Some(parent) = path.parent() {
            self.ensure_dir(parent)?;
        }
        if change != Change::Unchanged && !self.dry_run {
            std::fs::write(path, text).map_err(InstallError::io("write", path))?;
        }
        Ok(change)
    }

    /// Copies the program `from` to `dest` unless it holds the same bytes:
    /// written beside it first, then renamed into place, so a browser never
    /// starts a half-written host and a running one is not disturbed.
    fn copy_program(
        &mut self,
        os: Os,
        from: &Path,
        dest: &Path,
        aside: &Path,
    ) -> Result<Change, InstallError> {
        let bytes = std::fs::read(from).map_err(InstallError::io("read", from))?;
        let change = match std::fs::read(dest) {
            Ok(old) if old == bytes => Change::Unchanged,
            Ok(_) => Change::Updated,
            Err(_) => Change::Created,
        };
        if let Some(parent) = dest.parent() {
            self.ensure_dir(parent)?;
        }
        if change == Change::Unchanged || self.dry_run {
            return Ok(change);
        }
        let name = dest
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let staged = dest.with_file_name(format!(".{name}.new-{}", std::process::id()));
        let staged_result = (|| {
            std::fs::write(&staged, &bytes)?;
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(&staged, std::fs::Permissions::from_mode(0o755))?;
            }
            source::replace(os, &staged, dest, aside)
        })();
        if let Err(e) = staged_result {
            let _ = std::fs::remove_file(&staged);
            return Err(InstallError::io("place", dest)(e));
        }
        Ok(change)
    }
}

fn verb(change: Change, dry_run: bool) -> &'static str {
    match (change, dry_run) {
        (Change::Created, false) => "wrote",
        (Change::Created, true) => "would write",
        (Change::Updated, false) => "updated",
        (Change::Updated, true) => "would update",
        (Change::Unchanged, _) => "up to date:",
    }
}

/// Resolves `--browser` names.
fn named_browsers(names: &[String]) -> Result<Vec<&'static Browser>, InstallError> {
    names
        .iter()
        .flat_map(|n| n.split(','))
        .filter(|n| !n.trim().is_empty())
        .map(|n| browsers::by_name(n).ok_or_else(|| InstallError::UnknownBrowser(n.into())))
        .collect()
}

fn named_clients(names: &[String]) -> Result<Vec<&'static Client>, InstallError> {
    names
        .iter()
        .flat_map(|n| n.split(','))
        .filter(|n| !n.trim().is_empty())
        .map(|n| clients::by_name(n).ok_or_else(|| InstallError::UnknownClient(n.into())))
        .collect()
}

/// The browsers to register with, and why each was chosen.
fn targets(
    opts: &InstallOptions,
    env: &Env,
) -> Result<Vec<(&'static Browser, String)>, InstallError> {
    let named = named_browsers(&opts.browsers)?;
    if !named.is_empty() {
        return Ok(named
            .into_iter()
            .map(|b| (b, "named with --browser".into()))
            .collect());
    }
    Ok(browsers::detect_all(env, &|p: &Path| p.exists())
        .into_iter()
        .map(|(b, e)| (b, e.to_string()))
        .collect())
}

/// True for a binary inside a cargo build directory (a `cargo clean` away from gone).
fn in_build_dir(binary: &Path) -> bool {
    let s = binary.to_string_lossy().replace('\\', "/");
    s.contains("/target/debug/") || s.contains("/target/release/")
}

/// How MCP clients should start tabwire installed from `source` at `binary`:
/// through npx for the npm package (its binary's path changes with every
/// version and cache clean), else the binary itself.
pub fn launch_for(source: Source, binary: &Path) -> Launch {
    match source {
        Source::Npm => Launch::npx(),
        _ => Launch::binary(binary),
    }
}

/// `tabwire install`.
pub fn install(opts: &InstallOptions, env: &Env, out: &mut dyn Write) -> Result<(), InstallError> {
    let binary = match &opts.binary {
        Some(b) => b.clone(),
        None => this_binary()?,
    };
    // The host program that comes with this tabwire…
    let host_from = super::host_binary(env.os, &binary, Path::is_file);
    if let Some(udd) = &opts.user_data_dir {
        return install_into_profile(opts, env, udd, &host_from, out);
    }
    // …and the copy of it in the data directory that browsers start.
    let host = source::host_path(env.os, &env.data_dir);
    let source = Source::detect(env.os, env.launcher.as_deref(), &binary, &env.cargo_bin);
    let launch = launch_for(source, &binary);
    let clients = named_clients(&opts.clients)?;
    // Refuse a config tabwire cannot edit before writing anything.
    for c in &clients {
        let config = clients::config_path(c, env);
        if let Ok(existing) = std::fs::read_to_string(&config) {
            if let Err(why) = clients::add(c, Some(&existing), &launch) {
                return Err(InstallError::Other(format!(
                    "not changing {}: {why}",
                    config.display()
                )));
            }
        }
    }
    let targets = targets(opts, env)?;
    if targets.is_empty() {
        return Err(InstallError::Usage(format!(
            "no Chromium-family browser found (looked for Chrome, Chromium, Edge, Brave, Vivaldi \
             and Opera in their standard locations and in PATH). Install one, or name yours: \
             tabwire install --browser chrome (known: {})",
            browsers::known_names()
        )));
    }

    let record_path = record::path(env.os, &env.data_dir);
    let mut record = Record::load(&record_path)?.unwrap_or_default();
    let dry = opts.dry_run;
    let mut w = Writer {
        dry_run: dry,
        record: &mut record,
    };

    say!(
        out,
        "tabwire install{} — {} ({})",
        if dry {
            " (dry run: nothing is written)"
        } else {
            ""
        },
        binary.display(),
        source.describe()
    );
    if in_build_dir(&binary) {
        say!(
            out,
            "note: this binary is inside a cargo build directory; client configs that name it \
             break with `cargo clean`. Prefer installer/install.sh (it runs `cargo install`)."
        );
    }

    w.record.source = Some(source);
    w.record.binary = Some(binary.clone());
    w.record.host_from = Some(host_from.clone());
    let steps = install_steps(
        &mut w,
        env,
        &launch,
        (&host_from, &host),
        &targets,
        &clients,
        out,
    );
    // Whatever was written is recorded, even if a later step failed.
    if !dry {
        let text = w.record.to_text();
        w.write(&record_path, &text)?;
    }
    let ext_dir = steps?;
    let loaded_in: Vec<&Browser> = targets.iter().map(|(b, _)| *b).collect();
    next_steps(env, source, &launch, &ext_dir, &loaded_in, &clients, out);
    Ok(())
}

/// Copies the host into the data directory, registers that copy, places
/// the extension and edits client configs; returns the extension folder.
fn install_steps(
    w: &mut Writer,
    env: &Env,
    launch: &Launch,
    (host_from, host): (&Path, &Path),
    targets: &[(&'static Browser, String)],
    clients: &[&'static Client],
    out: &mut dyn Write,
) -> Result<PathBuf, InstallError> {
    let dry = w.dry_run;
    // The host first: no manifest may name a program that is not there yet.
    let aside = source::aside_path(env.os, &env.data_dir);
    let change = w.copy_program(env.os, host_from, host, &aside)?;
    w.record.add_file(host);
    say!(out);
    say!(out, "Host binary (what browsers start):");
    say!(
        out,
        "  {} {} (copied from {})",
        match (change, dry) {
            (Change::Created, false) => "placed",
            (Change::Created, true) => "would place",
            (Change::Updated, false) => "replaced",
            (Change::Updated, true) => "would replace",
            (Change::Unchanged, _) => "up to date:",
        },
        host.display(),
        host_from.display()
    );
    // Group browsers by where they read registrations: some share one.
    let mut by_location: BTreeMap<HostLocation, Vec<(&Browser, String)>> = BTreeMap::new();
    let mut no_location = Vec::new();
    for (b, why) in targets {
        match browsers::host_location(b, env) {
            Some(loc) => by_location.entry(loc).or_default().push((b, why.clone())),
            None => no_location.push(*b),
        }
    }
    say!(out);
    say!(out, "Native messaging host {}:", crate::protocol::HOST_NAME);
    let text = manifest::render(host);
    let mut windows_manifest_written = false;
    for (loc, browsers) in &by_location {
        for (b, why) in browsers {
            say!(out, "  {} ({why})", b.name);
        }
        match loc {
            HostLocation::File(path) => {
                let change = w.write(path, &text)?;
                w.record.add_file(path);
                say!(out, "    {} {}", verb(change, dry), path.display());
            }
            HostLocation::Registry { key, manifest } => {
                if !windows_manifest_written {
                    let change = w.write(manifest, &text)?;
                    w.record.add_file(manifest);
                    say!(out, "    {} {}", verb(change, dry), manifest.display());
                    windows_manifest_written = true;
                }
                let current = registry::run(&registry::query_default_args(key))
                    .ok()
                    .and_then(|o| registry::parse_sz(&o));
                let want = manifest.to_string_lossy().into_owned();
                if current.as_deref() == Some(want.as_str()) {
                    say!(out, r"    up to date: HKCU\{key}");
                } else {
                    if !dry {
                        registry::run(&registry::add_default_args(key, &want)).map_err(|e| {
                            InstallError::Other(format!(r"could not set HKCU\{key}: {e}"))
                        })?;
                    }
                    say!(
                        out,
                        r"    {} HKCU\{key} = {want}",
                        if dry { "would set" } else { "set" }
                    );
                }
                w.record.add_registry(key);
            }
        }
    }
    for b in &no_location {
        say!(
            out,
            "  {}: has no per-user native messaging location on this OS; skipped",
            b.name
        );
    }

    // The extension, in the data dir, so it survives `cargo clean`.
    let ext_dir = extension_files::dir(env.os, &env.data_dir);
    let mut changed = 0;
    for (name, content) in extension_files::FILES {
        let path = browsers::join(env.os, &ext_dir, name);
        if w.write(&path, content)? != Change::Unchanged {
            changed += 1;
        }
        w.record.add_file(&path);
    }
    say!(out);
    say!(out, "Extension (version {}):", extension_files::version());
    if changed == 0 {
        say!(out, "  up to date: {}", ext_dir.display());
    } else {
        say!(
            out,
            "  {} {changed} file(s) in {}",
            if dry { "would write" } else { "wrote" },
            ext_dir.display()
        );
    }

    // MCP clients named with --client.
    for c in clients {
        configure_client(c, env, launch, w, out)?;
    }
    Ok(ext_dir)
}

/// `--user-data-dir`: one manifest in one profile (custom profiles, tests).
/// Nothing else is written, so nothing is recorded.
fn install_into_profile(
    opts: &InstallOptions,
    env: &Env,
    udd: &Path,
    host: &Path,
    out: &mut dyn Write,
) -> Result<(), InstallError> {
    if env.os == Os::Windows {
        return Err(InstallError::Usage(
            "--user-data-dir is not used on Windows: browsers there find the host through the \
             registry, for every profile. Run `tabwire install` without it"
                .into(),
        ));
    }
    if !opts.clients.is_empty() {
        return Err(InstallError::Usage(
            "--client cannot be combined with --user-data-dir; run `tabwire install --client \
             NAME` on its own"
                .into(),
        ));
    }
    let named = named_browsers(&opts.browsers)?;
    if named.len() > 1 {
        return Err(InstallError::Usage(
            "--user-data-dir registers one profile of one browser; name at most one --browser"
                .into(),
        ));
    }
    let browser = named
        .first()
        .copied()
        .unwrap_or_else(|| browsers::by_name("chromium").expect("chromium is known"));
    let path = browsers::manifest_in_user_data_dir(env.os, udd);
    let mut scratch = Record::default();
    let mut w = Writer {
        dry_run: opts.dry_run,
        record: &mut scratch,
    };
    let change = w.write(&path, &manifest::render(host))?;
    say!(
        out,
        "tabwire: {} {} ({} profile {}; host binary {})",
        verb(change, opts.dry_run),
        path.display(),
        browser.name,
        udd.display(),
        host.display()
    );
    Ok(())
}

fn backup_path(config: &Path) -> PathBuf {
    let mut s = config.as_os_str().to_owned();
    s.push(".tabwire-backup");
    PathBuf::from(s)
}

/// Adds tabwire to one client's config: shows the change, keeps a backup of
/// the original, never touches other servers.
fn configure_client(
    c: &Client,
    env: &Env,
    launch: &Launch,
    w: &mut Writer,
    out: &mut dyn Write,
) -> Result<(), InstallError> {
    let config = clients::config_path(c, env);
    let existing = match std::fs::read_to_string(&config) {
        Ok(t) => Some(t),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(InstallError::io("read", &config)(e)),
    };
    say!(out);
    say!(out, "{} ({}):", c.name, config.display());
    let new_text = match clients::add(c, existing.as_deref(), launch) {
        Ok(Edit::Unchanged) => {
            say!(out, "  up to date: tabwire is already configured");
            return Ok(());
        }
        Ok(Edit::Changed(t)) => t,
        Err(why) => {
            return Err(InstallError::Other(format!(
                "not changing {}: {why}",
                config.display()
            )))
        }
    };
    let _ = write!(
        out,
        "{}",
        clients::diff(existing.as_deref().unwrap_or(""), &new_text)
    );
    let dry = w.dry_run;
    // A config tabwire edited before keeps its first backup (or its lack of
    // one, when tabwire created the file).
    let earlier = w
        .record
        .clients
        .iter()
        .find(|r| r.config == config)
        .cloned();
    let backup = match &earlier {
        Some(r) => r.backup.clone(),
        None => existing.as_ref().map(|_| backup_path(&config)),
    };
    if let (Some(original), Some(bak), None) = (&existing, &backup, &earlier) {
        // Keep the first backup: it holds the config from before tabwire.
        if !bak.exists() {
            if !dry {
                std::fs::write(bak, original).map_err(InstallError::io("write", bak))?;
            }
            say!(
                out,
                "  {} backup {}",
                if dry { "would keep a" } else { "kept a" },
                bak.display()
            );
        }
    }
    w.write(&config, &new_text)?;
    say!(
        out,
        "  {} {}",
        if dry { "would write" } else { "wrote" },
        config.display()
    );
    w.record.add_client(ClientRecord {
        client: c.id.into(),
        config,
        backup,
        written_hash: record::hash(&new_text),
    });
    Ok(())
}

/// The three things to do after install, each with what success looks like.
fn next_steps(
    env: &Env,
    source: Source,
    launch: &Launch,
    ext_dir: &Path,
    browsers: &[&Browser],
    configured: &[&Client],
    out: &mut dyn Write,
) {
    say!(out);
    say!(out, "Next steps");
    say!(out);
    say!(out, "1. Load the extension, once per browser. Open");
    let width = browsers.iter().map(|b| b.name.len()).max().unwrap_or(0) + 1;
    for b in browsers {
        say!(
            out,
            "     {:<width$} {}",
            format!("{}:", b.name),
            b.extensions_page,
            width = width
        );
    }
    say!(
        out,
        "   switch on \"Developer mode\", click \"Load unpacked\" and choose"
    );
    say!(out, "     {}", ext_dir.display());
    say!(
        out,
        "   Success: a \"tabwire\" card with ID {EXTENSION_ID} appears, and tabwire's toolbar"
    );
    say!(out, "   button shows \"Native host: connected\".");
    say!(out);
    say!(
        out,
        "2. Add tabwire to your MCP client. The server command is:"
    );
    say!(out, "     {}", launch.shell_line());
    say!(
        out,
        "   Let tabwire edit the client's config (it shows the change, keeps a backup"
    );
    say!(out, "   and leaves other servers alone):");
    say!(
        out,
        "     {} install --client {}",
        source.command(),
        clients::CLIENTS
            .iter()
            .map(|c| c.id)
            .collect::<Vec<_>>()
            .join("|")
    );
    if !configured.is_empty() {
        let names: Vec<&str> = configured.iter().map(|c| c.name).collect();
        say!(out, "   (done above for {})", names.join(", "));
    }
    say!(out, "   Or by hand:");
    for c in clients::CLIENTS {
        if let Some(cmd) = clients::cli_command(c, launch) {
            say!(out, "   - {}: {cmd}", c.name);
        }
    }
    // Clients that take the same text share one listing.
    let mut groups: Vec<(String, Vec<&Client>)> = Vec::new();
    for c in clients::CLIENTS.iter().filter(|c| c.id != "claude-code") {
        let text = clients::snippet(c, launch);
        match groups.iter_mut().find(|(t, _)| *t == text) {
            Some((_, members)) => members.push(c),
            None => groups.push((text, vec![c])),
        }
    }
    for (text, members) in &groups {
        say!(out, "   - add to the config file of");
        for c in members {
            say!(
                out,
                "       {}: {}",
                c.name,
                clients::config_path(c, env).display()
            );
        }
        for line in text.lines() {
            say!(out, "         {line}");
        }
    }
    say!(out);
    say!(
        out,
        "   Success: after a restart the client lists tabwire's tools (browser_navigate,"
    );
    say!(
        out,
        "   browser_snapshot, …); ask it to \"open example.com with tabwire\" and a tab group"
    );
    say!(out, "   named after the client opens in your browser.");
    say!(out);
    say!(
        out,
        "3. Check the whole chain any time: {} doctor",
        source.command()
    );
}

/// `tabwire uninstall`: removes what install recorded (and any tabwire host
/// manifest left in a known location), and nothing else.
pub fn uninstall(
    opts: &UninstallOptions,
    env: &Env,
    out: &mut dyn Write,
) -> Result<(), InstallError> {
    let dry = opts.dry_run;
    let would = |done: &'static str, planned: &'static str| if dry { planned } else { done };
    if let Some(udd) = &opts.user_data_dir {
        let path = browsers::manifest_in_user_data_dir(env.os, udd);
        match std::fs::read_to_string(&path) {
            Ok(t) if manifest::is_tabwire_manifest(&t) => {
                if !dry {
                    std::fs::remove_file(&path).map_err(InstallError::io("remove", &path))?;
                }
                say!(
                    out,
                    "tabwire: {} {}",
                    would("removed", "would remove"),
                    path.display()
                );
            }
            _ => say!(
                out,
                "tabwire: no tabwire host registration in {}",
                udd.display()
            ),
        }
        return Ok(());
    }

    let record_path = record::path(env.os, &env.data_dir);
    let record = Record::load(&record_path)?.unwrap_or_default();
    say!(
        out,
        "tabwire uninstall{}",
        if dry {
            " (dry run: nothing is removed)"
        } else {
            ""
        }
    );
    let mut removed_any = false;

    // Host manifests: recorded ones, plus any in a known location.
    let mut manifests: Vec<PathBuf> = record
        .files
        .iter()
        .filter(|f| {
            f.to_string_lossy()
                .ends_with(&browsers::manifest_file_name())
        })
        .cloned()
        .collect();
    for b in browsers::BROWSERS {
        if let Some(HostLocation::File(p)) = browsers::host_location(b, env) {
            if !manifests.contains(&p) {
                manifests.push(p);
            }
        }
    }
    for path in &manifests {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        if !manifest::is_tabwire_manifest(&text) {
            say!(out, "  left {} (not a tabwire manifest)", path.display());
            continue;
        }
        if !dry {
            std::fs::remove_file(path).map_err(InstallError::io("remove", path))?;
        }
        removed_any = true;
        say!(
            out,
            "  {} {}",
            would("removed", "would remove"),
            path.display()
        );
    }

    // Extension files (only those tabwire placed, by name).
    let ext_dir = extension_files::dir(env.os, &env.data_dir);
    let mut ext_removed = 0;
    for f in &record.files {
        if f.parent() == Some(ext_dir.as_path()) && f.exists() {
            if !dry {
                std::fs::remove_file(f).map_err(InstallError::io("remove", f))?;
            }
            ext_removed += 1;
        }
    }
    if ext_removed > 0 {
        removed_any = true;
        say!(
            out,
            "  {} {ext_removed} extension file(s) from {}",
            would("removed", "would remove"),
            ext_dir.display()
        );
        say!(
            out,
            "  (remove tabwire from your browsers' extensions page too: it cannot run without its files)"
        );
    }

    // The host copy (and, on Windows, one set aside by a replacement).
    let host_dir = source::dir(env.os, &env.data_dir);
    let aside = source::aside_path(env.os, &env.data_dir);
    for f in record
        .files
        .iter()
        .filter(|f| f.parent() == Some(host_dir.as_path()))
        .chain(std::iter::once(&aside))
    {
        if !f.exists() {
            continue;
        }
        if !dry {
            if let Err(e) = std::fs::remove_file(f) {
                say!(
                    out,
                    "  could not remove {}: {e} (a browser may still be running it: quit the \
                     browser and run `tabwire uninstall` again)",
                    f.display()
                );
                continue;
            }
        }
        removed_any = true;
        say!(
            out,
            "  {} {}",
            would("removed", "would remove"),
            f.display()
        );
    }

    for key in &record.registry {
        if !dry {
            if let Err(e) = registry::run(&registry::delete_args(key)) {
                say!(out, r"  could not remove HKCU\{key}: {e}");
                continue;
            }
        }
        removed_any = true;
        say!(out, r"  {} HKCU\{key}", would("removed", "would remove"));
    }

    for c in &record.clients {
        removed_any |= unconfigure_client(c, dry, out)?;
    }

    if !dry && record_path.exists() {
        std::fs::remove_file(&record_path).map_err(InstallError::io("remove", &record_path))?;
    }
    // Directories install created, deepest first, if nothing else is in them.
    for d in record.dirs.iter().rev() {
        if !d.exists() {
            continue;
        }
        if dry {
            say!(out, "  would remove {} if it is empty then", d.display());
            continue;
        }
        match std::fs::remove_dir(d) {
            Ok(()) => say!(out, "  removed {}", d.display()),
            Err(_) => say!(
                out,
                "  left {} (it holds files tabwire did not put there)",
                d.display()
            ),
        }
    }
    if !removed_any && record.is_empty() {
        say!(
            out,
            "  nothing to remove: tabwire is not installed for this user"
        );
    }
    Ok(())
}

/// Takes tabwire out of one client config: the backup goes back byte for
/// byte if the file is as tabwire left it, else only the tabwire entry goes.
fn unconfigure_client(
    c: &ClientRecord,
    dry: bool,
    out: &mut dyn Write,
) -> Result<bool, InstallError> {
    let Some(client) = clients::by_name(&c.client) else {
        return Ok(false);
    };
    let Ok(current) = std::fs::read_to_string(&c.config) else {
        return Ok(false);
    };
    let verb = if dry { "would restore" } else { "restored" };
    if record::hash(&current) == c.written_hash {
        match &c.backup {
            Some(bak) => {
                let original = std::fs::read(bak).map_err(InstallError::io("read", bak))?;
                if !dry {
                    std::fs::write(&c.config, original)
                        .map_err(InstallError::io("write", &c.config))?;
                    std::fs::remove_file(bak).map_err(InstallError::io("remove", bak))?;
                }
                say!(out, "  {verb} {} from its backup", c.config.display());
            }
            None => {
                if !dry {
                    std::fs::remove_file(&c.config)
                        .map_err(InstallError::io("remove", &c.config))?;
                }
                say!(
                    out,
                    "  {} {} (tabwire created it)",
                    if dry { "would remove" } else { "removed" },
                    c.config.display()
                );
            }
        }
        return Ok(true);
    }
    match clients::remove(client, &current) {
        Ok(Some(new_text)) => {
            let _ = write!(out, "{}", clients::diff(&current, &new_text));
            if !dry {
                std::fs::write(&c.config, &new_text)
                    .map_err(InstallError::io("write", &c.config))?;
                if let Some(bak) = &c.backup {
                    let _ = std::fs::remove_file(bak);
                }
            }
            say!(
                out,
                "  {} the tabwire entry from {}",
                if dry { "would remove" } else { "removed" },
                c.config.display()
            );
            Ok(true)
        }
        Ok(None) => Ok(false),
        Err(why) => {
            say!(
                out,
                "  left {}: {why}; remove the tabwire entry by hand",
                c.config.display()
            );
            Ok(false)
        }
    }
}

/// Browsers and evidence, for doctor.
pub fn detected(env: &Env) -> Vec<(&'static Browser, Evidence)> {
    browsers::detect_all(env, &|p: &Path| p.exists())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_in(tmp: &Path) -> Env {
        let mut env = Env::for_tests(Os::Linux, tmp.to_str().unwrap());
        env.path_dirs = vec![];
        env
    }

    #[test]
    fn user_data_dir_install_writes_only_the_manifest() {
        let tmp = tempfile::tempdir().unwrap();
        let env = env_in(&tmp.path().join("home"));
        let udd = tmp.path().join("profile");
        let opts = InstallOptions {
            browsers: vec!["chromium".into()],
            user_data_dir: Some(udd.clone()),
            binary: Some("/opt/tabwire".into()),
            ..Default::default()
        };
        let mut out = Vec::new();
        install(&opts, &env, &mut out).unwrap();
        let path = udd.join("NativeMessagingHosts/com.tabwire.host.json");
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            manifest::render(Path::new("/opt/tabwire"))
        );
        assert!(!tmp.path().join("home").exists(), "nothing else is written");
        let again = {
            let mut o = Vec::new();
            install(&opts, &env, &mut o).unwrap();
            String::from_utf8(o).unwrap()
        };
        assert!(again.contains("up to date"), "{again}");
        let mut o = Vec::new();
        uninstall(
            &UninstallOptions {
                user_data_dir: Some(udd.clone()),
                dry_run: false,
            },
            &env,
            &mut o,
        )
        .unwrap();
        assert!(!path.exists());
    }

    #[test]
    fn unknown_names_are_refused_with_the_known_ones() {
        let tmp = tempfile::tempdir().unwrap();
        let env = env_in(tmp.path());
        let opts = InstallOptions {
            browsers: vec!["netscape".into()],
            ..Default::default()
        };
        let err = install(&opts, &env, &mut Vec::new())
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("netscape") && err.contains("chromium"),
            "{err}"
        );
        let opts = InstallOptions {
            browsers: vec!["chromium".into()],
            clients: vec!["emacs".into()],
            ..Default::default()
        };
        let err = install(&opts, &env, &mut Vec::new())
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("emacs") && err.contains("claude-desktop"),
            "{err}"
        );
    }

    /// A fake tabwire and its host in `dir`, the host holding `host_bytes`.
    fn fake_binaries(dir: &Path, host_bytes: &str) -> PathBuf {
        std::fs::create_dir_all(dir).unwrap();
        let bin = dir.join("tabwire");
        std::fs::write(&bin, "tabwire").unwrap();
        std::fs::write(dir.join("tabwire-host"), host_bytes).unwrap();
        bin
    }

    #[test]
    fn install_registers_a_copy_of_the_host_that_a_later_version_replaces() {
        let tmp = tempfile::tempdir().unwrap();
        let mut env = env_in(&tmp.path().join("home"));
        env.launcher = Some("npm".into());
        let v1 = fake_binaries(&tmp.path().join("npx-cache/v1"), "host v1");
        let opts = |bin: &Path, clients: Vec<String>| InstallOptions {
            browsers: vec!["chromium".into()],
            clients,
            binary: Some(bin.to_path_buf()),
            ..Default::default()
        };
        let mut out = Vec::new();
        install(&opts(&v1, vec!["cursor".into()]), &env, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let host = source::host_path(Os::Linux, &env.data_dir);
        assert_eq!(std::fs::read_to_string(&host).unwrap(), "host v1");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&host).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o755);
        }
        let manifest_path = env
            .config_home
            .join("chromium/NativeMessagingHosts/com.tabwire.host.json");
        assert_eq!(
            std::fs::read_to_string(&manifest_path).unwrap(),
            manifest::render(&host),
            "the manifest names the copy, not the npx cache"
        );
        // From npm, clients start tabwire through npx.
        let cursor: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(env.home.join(".cursor/mcp.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(
            cursor["mcpServers"]["tabwire"],
            serde_json::json!({"command": "npx", "args": ["-y", "tabwire", "serve"]})
        );
        assert!(text.contains("the npm package"), "{text}");
        assert!(text.contains("npx -y tabwire serve"), "{text}");
        assert!(text.contains("npx tabwire install --client"), "{text}");
        assert!(text.contains("npx tabwire doctor"), "{text}");
        let rec = Record::load(&record::path(Os::Linux, &env.data_dir))
            .unwrap()
            .unwrap();
        assert_eq!(rec.source, Some(Source::Npm));
        assert_eq!(rec.host_from, Some(v1.with_file_name("tabwire-host")));

        // The npx cache is cleaned; a later version is installed elsewhere.
        std::fs::remove_dir_all(tmp.path().join("npx-cache/v1")).unwrap();
        let v2 = fake_binaries(&tmp.path().join("npx-cache/v2"), "host v2");
        let mut out = Vec::new();
        install(&opts(&v2, vec![]), &env, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("replaced"), "{text}");
        assert_eq!(std::fs::read_to_string(&host).unwrap(), "host v2");
        let leftovers: Vec<_> = std::fs::read_dir(host.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(leftovers, vec![std::ffi::OsString::from("tabwire-host")]);

        // Uninstall removes the copy and the directory install made for it.
        let mut out = Vec::new();
        uninstall(&UninstallOptions::default(), &env, &mut out).unwrap();
        assert!(!host.exists());
        assert!(!env.data_dir.exists(), "{}", String::from_utf8_lossy(&out));
        assert!(!manifest_path.exists());
    }

    #[test]
    fn a_dry_run_places_no_host() {
        let tmp = tempfile::tempdir().unwrap();
        let env = env_in(&tmp.path().join("home"));
        let bin = fake_binaries(&tmp.path().join("opt"), "host");
        let opts = InstallOptions {
            browsers: vec!["chromium".into()],
            binary: Some(bin),
            dry_run: true,
            ..Default::default()
        };
        let mut out = Vec::new();
        install(&opts, &env, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("would place"), "{text}");
        assert!(!tmp.path().join("home").exists(), "{text}");
    }

    #[test]
    fn build_dir_binaries_are_noticed() {
        assert!(in_build_dir(Path::new("/src/tw/target/debug/tabwire")));
        assert!(!in_build_dir(Path::new("/home/a/.cargo/bin/tabwire")));
    }
}
