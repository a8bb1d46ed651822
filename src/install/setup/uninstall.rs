//! `tabwire uninstall`: removes what install recorded, and nothing else.

use std::io::Write;
use std::path::PathBuf;

use super::client_config::unconfigure_client;
use super::UninstallOptions;
use crate::install::browsers::{self, HostLocation};
use crate::install::record::{self, Record};
use crate::install::source;
use crate::install::{extension_files, manifest, registry, Env, InstallError};

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
