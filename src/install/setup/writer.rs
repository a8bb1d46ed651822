//! Writing what install places: files and directories, each recorded for
//! uninstall; in a dry run only planned.

use std::path::Path;

use crate::install::record::Record;
use crate::install::source;
use crate::install::{InstallError, Os};

/// Writes files and remembers what it created; in a dry run only plans.
pub(super) struct Writer<'a> {
    pub(super) dry_run: bool,
    pub(super) record: &'a mut Record,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Change {
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
    pub(super) fn write(&mut self, path: &Path, text: &str) -> Result<Change, InstallError> {
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
    pub(super) fn copy_program(
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

pub(super) fn verb(change: Change, dry_run: bool) -> &'static str {
    match (change, dry_run) {
        (Change::Created, false) => "wrote",
        (Change::Created, true) => "would write",
        (Change::Updated, false) => "updated",
        (Change::Updated, true) => "would update",
        (Change::Unchanged, _) => "up to date:",
    }
}
