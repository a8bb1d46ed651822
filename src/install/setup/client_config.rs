//! Tabwire in one MCP client's config: added on install (the change shown,
//! the original kept as a backup) and taken out again on uninstall.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::writer::Writer;
use crate::install::clients::{self, Edit, Launch, McpClient};
use crate::install::record::{self, ClientRecord};
use crate::install::{Env, InstallError};

fn backup_path(config: &Path) -> PathBuf {
    let mut s = config.as_os_str().to_owned();
    s.push(".tabwire-backup");
    PathBuf::from(s)
}

/// Adds tabwire to one client's config: shows the change, keeps a backup of
/// the original, never touches other servers.
pub(super) fn configure_client(
    c: &McpClient,
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

/// Takes tabwire out of one client config: the backup goes back byte for
/// byte if the file is as tabwire left it, else only the tabwire entry goes.
pub(super) fn unconfigure_client(
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
