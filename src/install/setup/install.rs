//! The install flow: which browsers and clients, the host copy and its
//! registration where each browser reads it (a file, or the Windows
//! registry), the extension files, and the record uninstall goes by.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use super::client_config::configure_client;
use super::next_steps::next_steps;
use super::writer::{verb, Change, Writer};
use super::InstallOptions;
use crate::install::browsers::{self, Browser, HostLocation};
use crate::install::clients::{self, Launch, McpClient};
use crate::install::record::{self, Record};
use crate::install::source::{self, Source};
use crate::install::{extension_files, manifest, registry, this_binary, Env, InstallError, Os};

/// Resolves `--browser` names.
fn named_browsers(names: &[String]) -> Result<Vec<&'static Browser>, InstallError> {
    names
        .iter()
        .flat_map(|n| n.split(','))
        .filter(|n| !n.trim().is_empty())
        .map(|n| browsers::by_name(n).ok_or_else(|| InstallError::UnknownBrowser(n.into())))
        .collect()
}

fn named_clients(names: &[String]) -> Result<Vec<&'static McpClient>, InstallError> {
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
    let host_from = crate::install::host_binary(env.os, &binary, Path::is_file);
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
    // Inside WSL the browser is usually Windows Chrome (the Windows step
    // below): the distribution need not have a browser of its own.
    if targets.is_empty() && env.wsl.is_none() {
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
    if let Some(wsl) = &env.wsl {
        let runtime_dir = crate::broker::dir::runtime_dir_path();
        let plan = crate::wsl::setup::Plan {
            wsl,
            binary: &binary,
            host: &host,
            runtime_dir: &runtime_dir,
            dry_run: dry,
        };
        crate::wsl::setup::install(&crate::wsl::interop::SystemInterop, &plan, out);
    }
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
    clients: &[&'static McpClient],
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

/// `--user-data-dir`: one manifest in one profile (custom profiles, tests),
/// naming the data directory's copy of the host, as the full install does
/// (the program next to this tabwire can vanish: npm's cache is cleaned,
/// a cargo build directory is rebuilt). Only the copy and the manifest are
/// written; nothing is recorded (the copy may serve other registrations,
/// and `uninstall --user-data-dir` removes only the manifest).
fn install_into_profile(
    opts: &InstallOptions,
    env: &Env,
    udd: &Path,
    host_from: &Path,
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
    // The host first: no manifest may name a program that is not there yet.
    let host = source::host_path(env.os, &env.data_dir);
    let aside = source::aside_path(env.os, &env.data_dir);
    w.copy_program(env.os, host_from, &host, &aside)?;
    let change = w.write(&path, &manifest::render(&host))?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::install::setup::{uninstall, UninstallOptions};

    fn env_in(tmp: &Path) -> Env {
        let mut env = Env::for_tests(Os::Linux, tmp.to_str().unwrap());
        env.path_dirs = vec![];
        env
    }

    #[test]
    fn user_data_dir_install_registers_the_data_dirs_copy_of_the_host() {
        let tmp = tempfile::tempdir().unwrap();
        let env = env_in(&tmp.path().join("home"));
        let udd = tmp.path().join("profile");
        // A tabwire with its host beside it (as npm's cache holds them).
        let opt = tmp.path().join("npm-cache");
        std::fs::create_dir_all(&opt).unwrap();
        std::fs::write(opt.join("tabwire"), b"serve").unwrap();
        std::fs::write(opt.join("tabwire-host"), b"host v1").unwrap();
        let opts = InstallOptions {
            browsers: vec!["chromium".into()],
            user_data_dir: Some(udd.clone()),
            binary: Some(opt.join("tabwire")),
            ..Default::default()
        };
        let mut out = Vec::new();
        install(&opts, &env, &mut out).unwrap();
        let copy = source::host_path(Os::Linux, &env.data_dir);
        let path = udd.join("NativeMessagingHosts/com.tabwire.host.json");
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            manifest::render(&copy)
        );
        assert_eq!(std::fs::read(&copy).unwrap(), b"host v1");
        // npm's cache is cleaned: the registered host is still there.
        std::fs::remove_dir_all(&opt).unwrap();
        assert!(copy.is_file());
        // Only the copy and the manifest were written.
        let written: Vec<_> = walk(&tmp.path().join("home"));
        assert_eq!(written, vec![copy.clone()]);
        std::fs::create_dir_all(&opt).unwrap();
        std::fs::write(opt.join("tabwire"), b"serve").unwrap();
        std::fs::write(opt.join("tabwire-host"), b"host v1").unwrap();
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

    fn walk(dir: &Path) -> Vec<PathBuf> {
        let mut out = Vec::new();
        for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            if e.path().is_dir() {
                out.extend(walk(&e.path()));
            } else {
                out.push(e.path());
            }
        }
        out
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

    #[test]
    fn inside_wsl_no_linux_browser_is_needed_and_a_missing_relay_is_named() {
        let tmp = tempfile::tempdir().unwrap();
        let mut env = env_in(&tmp.path().join("home"));
        env.wsl = Some(crate::wsl::Wsl {
            distro: Some("Ubuntu".into()),
            interop: true,
        });
        // No tabwire-wsl-relay.exe beside it: Windows is left alone (no
        // call into it is made), the Linux side is installed.
        let bin = fake_binaries(&tmp.path().join("bin"), "host");
        let opts = InstallOptions {
            binary: Some(bin),
            ..Default::default()
        };
        let mut out = Vec::new();
        install(&opts, &env, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.contains("tabwire-wsl-relay.exe is not beside this tabwire"),
            "{text}"
        );
        let host = source::host_path(Os::Linux, &env.data_dir);
        assert_eq!(std::fs::read_to_string(host).unwrap(), "host");
    }
}
