//! What `tabwire install` placed: the host copy browsers start (and where
//! it came from) and the extension files.

use std::path::Path;

use super::report::{Check, Status};
use crate::install::record::Record;
use crate::install::source::{self, Source};
use crate::install::{extension_files, Env};

/// Which install this is (npm, archive, cargo…) and where the host that
/// browsers start comes from.
pub(super) fn install_check(env: &Env, me: Option<&Path>, record: Option<&Record>) -> Check {
    let title = "install";
    let Some(me) = me else {
        return Check::new(
            "install",
            Status::Info,
            title,
            "this program's path is unknown",
        );
    };
    let mut source = Source::detect(env.os, env.launcher.as_deref(), me, &env.cargo_bin);
    // install.sh says "archive" only while it runs tabwire; the record keeps it.
    if let Some(r) = record {
        if r.binary.as_deref() == Some(me) && source == Source::Binary {
            source = r.source.unwrap_or(source);
        }
    }
    let host = source::host_path(env.os, &env.data_dir);
    let mut data = serde_json::json!({
        "source": source.name(),
        "binary": me.display().to_string(),
    });
    let what = format!("{}: {}", source.describe(), me.display());
    let placed = record.is_some_and(|r| r.files.contains(&host));
    if !placed || !host.is_file() {
        return Check::new(
            "install",
            Status::Info,
            title,
            format!(
                "{what}; no host copy in {} (`tabwire install` places one and registers it)",
                host.parent().unwrap_or(&host).display()
            ),
        )
        .data(data);
    }
    let r = record.expect("placed implies a record");
    data["host"] = serde_json::json!(host.display().to_string());
    let from = match &r.host_from {
        Some(from) => {
            data["host_from"] = serde_json::json!(from.display().to_string());
            let by = match r.source {
                Some(s) if s != source => format!(" (then run from {})", s.describe()),
                _ => String::new(),
            };
            format!(", copied from {} by `tabwire install`{by}", from.display())
        }
        None => ", copied by `tabwire install`".to_string(),
    };
    let detail = format!("{what}; browsers start {}{from}", host.display());
    // Is the copy this tabwire's own host?
    let mine = crate::install::host_binary(env.os, me, Path::is_file);
    let same = match (std::fs::read(&mine), std::fs::read(&host)) {
        (Ok(a), Ok(b)) => a == b,
        _ => true,
    };
    if same {
        Check::new("install", Status::Ok, title, detail).data(data)
    } else {
        Check::new(
            "install",
            Status::Warn,
            title,
            format!(
                "{detail}; it is not this tabwire's host ({}), an older or other version",
                mine.display()
            ),
        )
        .fix(
            "run `tabwire install` to put this version's host in place; the extension picks it \
             up when it reconnects",
        )
        .data(data)
    }
}

pub(super) fn extension_files_check(env: &Env) -> Check {
    let dir = extension_files::dir(env.os, &env.data_dir);
    let title = "extension files";
    if !dir.exists() {
        return Check::new(
            "extension-files",
            Status::Warn,
            title,
            format!("{} does not exist", dir.display()),
        )
        .fix("run `tabwire install` to place the extension there, then load it unpacked from that folder");
    }
    let stale = extension_files::stale_files(&dir);
    if stale.is_empty() {
        Check::new(
            "extension-files",
            Status::Ok,
            title,
            format!("{} matches this tabwire", dir.display()),
        )
    } else {
        Check::new(
            "extension-files",
            Status::Warn,
            title,
            format!("{} is out of date ({})", dir.display(), stale.join(", ")),
        )
        .fix("run `tabwire install`, then press the reload button on tabwire's card in the browser's extensions page")
    }
}
