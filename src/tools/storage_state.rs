//! `browser_storage_state` and `browser_set_storage_state`: a sign-in saved
//! to a file and loaded again (Playwright's storage-state JSON; see
//! `page::storage_state`). Files live in the download directory: a bare
//! name lands there, and a path elsewhere is refused.

use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use super::def::{Cap, Kind, Response, ToolDef, ToolError};
use crate::page::downloads::save::{sanitize_name, save};
use crate::page::signin::storage_state::{provenance, StorageState};
use crate::page::Client;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct SaveArgs {
    /// File name in the download directory (default storage-state.json).
    pub filename: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct LoadArgs {
    /// A file in the download directory (or an upload directory).
    pub filename: String,
}

pub fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::new(
            "browser_storage_state",
            "Save sign-in",
            Kind::ReadOnly,
            "Saves the sign-in of the sites your tabs have open (cookies incl. httpOnly, \
             localStorage, sessionStorage) as a Playwright storage-state file, private to the \
             user. Load it later with browser_set_storage_state, or start a server with \
             `serve --storage-state FILE`. The file is a key: never show its contents.",
            save_state,
        )
        .in_group(Cap::Storage),
        ToolDef::new(
            "browser_set_storage_state",
            "Load sign-in",
            Kind::Action,
            "Loads a storage-state file (cookies, localStorage, passkeys) saved by \
             browser_storage_state or Playwright, replacing those of its sites; then navigate. \
             The user's own browser takes only files tabwire saved or ones in an upload \
             directory; a file naming a site the policy blocks is refused whole.",
            load_state,
        )
        .in_group(Cap::Storage),
    ]
}

/// browser_storage_state.
async fn save_state(s: Client, a: SaveArgs) -> Result<Response, ToolError> {
    let dir = s.policy().download_dir();
    let raw = a.filename.unwrap_or_else(|| "storage-state.json".into());
    if raw.contains(['/', '\\']) && !inside(&dir, Path::new(&raw).parent()) {
        return Err(ToolError::other(format!(
            "storage-state files are saved only in the download directory {}: give a bare file \
             name such as \"site.json\"",
            dir.display()
        )));
    }
    let mut name = sanitize_name(&raw, "storage-state.json");
    if !name.to_ascii_lowercase().ends_with(".json") {
        name.push_str(".json");
    }
    s.set_progress(Some("reading cookies and web storage".into()));
    let exported = s.export_storage_state().await?;
    s.set_progress(None);
    let json = serde_json::to_vec_pretty(&exported.state)
        .map_err(|e| ToolError::other(format!("could not write the state: {e}")))?;
    if json.len() as u64 > s.policy().max_download_bytes() {
        return Err(ToolError::other(
            "the storage state is larger than --max-download-mb; nothing was saved".into(),
        ));
    }
    let saved = save(&dir, &name, &json, "application/json")?;
    if let Err(e) = provenance::record_written(&crate::paths::data_dir(), &saved.path) {
        tracing::warn!("could not record the storage state as tabwire's own: {e}");
    }
    let origins: Vec<&str> = exported
        .state
        .origins
        .iter()
        .map(|o| o.origin.as_str())
        .collect();
    s.note_for_audit(json!({ "exported_sites": origins }));
    let scope = if exported.whole_browser {
        "all cookies of tabwire's own browser"
    } else {
        "only the cookies your tabs' pages receive (your browser's other sites stay in it)"
    };
    let partitioned = match exported.partitioned {
        0 => String::new(),
        n => format!(" {n} partitioned cookies were left out (the format cannot hold them)."),
    };
    Ok(Response::text(format!(
        "{}\nStorage state: {} ({scope}).{partitioned}\nThe file signs in whoever holds it: \
         never show or send its contents. Load it with browser_set_storage_state, or start a \
         server with `tabwire serve --storage-state FILE`.",
        saved.describe(s.fence()),
        s.fence().quote(&exported.state.summary()),
    )))
}

/// browser_set_storage_state.
async fn load_state(s: Client, a: LoadArgs) -> Result<Response, ToolError> {
    let path = resolve(&s, &a.filename)?;
    let users_word = provenance::written_by_tabwire(&crate::paths::data_dir(), &path)
        || s.policy().check_upload(&path).is_ok();
    let state = StorageState::read(&path).map_err(|why| {
        ToolError::other(format!(
            "{} was not loaded: {why}. Nothing was changed",
            path.display()
        ))
    })?;
    let loaded = s.load_storage_state(&state, users_word).await?;
    let cleared = if loaded.whole_browser {
        "tabwire's own browser's cookies were replaced"
    } else {
        "only these sites' cookies and localStorage were replaced in your browser"
    };
    let passkeys = match (loaded.passkeys, loaded.passkeys_left_out) {
        (0, 0) => String::new(),
        (n, 0) => format!(" {n} passkey(s) are in tabwire's virtual authenticator, in every tab."),
        (_, n) => format!(
            " {n} passkey(s) were not loaded: your browser keeps its passkeys in its own \
             authenticators (they load only into tabwire's own browser)."
        ),
    };
    Ok(Response::text(format!(
        "Loaded {}: {} cookies on {} sites, localStorage of {} origins ({cleared}).{passkeys} \
         Navigate to a site to use it.",
        s.fence().quote(&path.display().to_string()),
        loaded.cookies,
        loaded.sites,
        loaded.local_origins
    )))
}

/// The file `name` stands for: a name in the download directory, or an
/// absolute path inside it or inside an upload directory.
fn resolve(s: &Client, name: &str) -> Result<PathBuf, ToolError> {
    let dir = s.policy().download_dir();
    let given = Path::new(name);
    let candidate = if given.is_absolute() {
        given.to_path_buf()
    } else {
        dir.join(given)
    };
    let real = candidate.canonicalize().map_err(|e| {
        ToolError::other(format!(
            "no storage-state file {} ({e}); files are read from the download directory {}",
            candidate.display(),
            dir.display()
        ))
    })?;
    let in_downloads = dir.canonicalize().is_ok_and(|d| real.starts_with(d));
    if in_downloads || s.policy().check_upload(&real).is_ok() {
        Ok(real)
    } else {
        Err(ToolError::other(format!(
            "{} is outside the download directory {} (and any upload directory): tabwire reads \
             storage-state files only from there",
            candidate.display(),
            dir.display()
        )))
    }
}

/// Whether `parent` (of a path the caller gave) is the download directory.
fn inside(dir: &Path, parent: Option<&Path>) -> bool {
    let (Some(parent), Ok(dir)) = (parent, dir.canonicalize()) else {
        return false;
    };
    parent.canonicalize().is_ok_and(|p| p == dir)
}
