//! The audit log: one JSON line per tool call, in tabwire's data dir
//! (`audit.log`, mode 0600, rotated to `audit.log.1` past a size limit).
//! Typed text, form values and prompt answers are redacted before writing.
//! The user's stops and resumes of browser control are recorded too, as
//! lines with an `event` instead of a `tool`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde_json::{json, Value};

/// Rotate when the log grows past this many bytes.
pub const DEFAULT_MAX_BYTES: u64 = 5 * 1024 * 1024;

/// Argument names whose values may be secrets (passwords, cookie values,
/// personal data typed into forms): recorded only by length.
const SECRET_KEYS: &[&str] = &["text", "value", "promptText", "cookieValue"];

#[derive(Debug)]
pub struct AuditLog {
    path: PathBuf,
    max_bytes: u64,
    lock: Mutex<()>,
}

/// One tool call, as recorded.
pub struct Entry<'a> {
    pub client: &'a str,
    pub tool: &'a str,
    pub args: &'a Value,
    pub url: Option<&'a str>,
    pub error: Option<&'a str>,
    pub ms: u64,
    /// What the tool adds to its line (browser_storage_state: the sites
    /// whose sign-in left the browser).
    pub note: Option<Value>,
}

pub fn default_path() -> PathBuf {
    crate::paths::data_dir().join("audit.log")
}

impl AuditLog {
    pub fn new(path: PathBuf, max_bytes: u64) -> Self {
        Self {
            path,
            max_bytes,
            lock: Mutex::new(()),
        }
    }

    /// Appends one entry. Failing to write is logged, never fatal: the
    /// tool call already happened.
    pub fn record(&self, e: &Entry) {
        let line = json!({
            "time": rfc3339_now(),
            "client": e.client,
            "tool": e.tool,
            "args": redact(e.args),
            "url": e.url,
            "ok": e.error.is_none(),
            "error": e.error.map(|m| m.chars().take(300).collect::<String>()),
            "ms": e.ms,
        });
        let mut line = line;
        if let Some(note) = &e.note {
            line["note"] = note.clone();
        }
        let _guard = self.lock.lock().expect("audit lock");
        if let Err(err) = self.append(&line.to_string()) {
            tracing::warn!(path = %self.path.display(), error = %err, "could not write the audit log");
        }
    }

    /// Records something the user did rather than a tool call: `event` is
    /// `stopped_by_user` or `resumed_by_user`, `scope` `all` or `client`,
    /// `cause` `canceled_by_user` (the browser's Cancel bar) or `popup`.
    pub fn record_event(&self, client: &str, event: &str, scope: &str, cause: &str) {
        let line = json!({
            "time": rfc3339_now(),
            "client": client,
            "event": event,
            "scope": scope,
            "cause": cause,
        });
        let _guard = self.lock.lock().expect("audit lock");
        if let Err(err) = self.append(&line.to_string()) {
            tracing::warn!(path = %self.path.display(), error = %err, "could not write the audit log");
        }
    }

    fn append(&self, line: &str) -> std::io::Result<()> {
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        if std::fs::metadata(&self.path).is_ok_and(|m| m.len() >= self.max_bytes) {
            std::fs::rename(&self.path, rotated(&self.path))?;
        }
        let mut opts = std::fs::OpenOptions::new();
        opts.create(true).append(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            opts.mode(0o600);
        }
        let mut f = opts.open(&self.path)?;
        f.write_all(format!("{line}\n").as_bytes())
    }
}

fn rotated(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".1");
    path.with_file_name(name)
}

/// Replaces secret-bearing values (at any depth) by their length.
pub fn redact(v: &Value) -> Value {
    match v {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| {
                    let v = match v {
                        Value::String(s) if SECRET_KEYS.contains(&k.as_str()) => {
                            json!(format!("[redacted {} chars]", s.chars().count()))
                        }
                        other => redact(other),
                    };
                    (k.clone(), v)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(redact).collect()),
        other => other.clone(),
    }
}

/// The last `n` entries (from the current and the rotated file), optionally
/// only those of one client.
pub fn tail(path: &Path, n: usize, client: Option<&str>) -> Vec<Value> {
    let mut lines = Vec::new();
    for p in [rotated(path), path.to_path_buf()] {
        if let Ok(text) = std::fs::read_to_string(&p) {
            lines.extend(
                text.lines()
                    .filter_map(|l| serde_json::from_str::<Value>(l).ok()),
            );
        }
    }
    let mut picked: Vec<Value> = lines
        .into_iter()
        .filter(|e| client.is_none_or(|c| e["client"] == c))
        .collect();
    let skip = picked.len().saturating_sub(n);
    picked.drain(..skip);
    picked
}

/// One entry as a human-readable line.
pub fn format_line(e: &Value) -> String {
    if let Some(event) = e["event"].as_str() {
        return format!(
            "{} {} {} scope={} cause={}",
            e["time"].as_str().unwrap_or("?"),
            e["client"].as_str().unwrap_or("?"),
            event.to_uppercase(),
            e["scope"].as_str().unwrap_or("?"),
            e["cause"].as_str().unwrap_or("?"),
        );
    }
    let outcome = if e["ok"] == true {
        "ok".to_string()
    } else {
        format!("ERROR {}", e["error"].as_str().unwrap_or(""))
    };
    let note = match &e["note"] {
        Value::Null => String::new(),
        n => format!(" note={n}"),
    };
    format!(
        "{} {} {} {}ms {} {} {}{note}",
        e["time"].as_str().unwrap_or("?"),
        e["client"].as_str().unwrap_or("?"),
        e["tool"].as_str().unwrap_or("?"),
        e["ms"],
        e["url"].as_str().unwrap_or("-"),
        e["args"],
        outcome
    )
}

/// The current UTC time as `YYYY-MM-DDTHH:MM:SSZ`.
pub fn rfc3339_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    rfc3339(secs)
}

fn rfc3339(secs: u64) -> String {
    let rem = secs % 86_400;
    let (year, month, day) = civil_date((secs / 86_400) as i64);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// The calendar date (year, month, day) of a day counted from 1970-01-01
/// (Howard Hinnant's civil-from-days algorithm).
pub(crate) fn civil_date(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(month <= 2), month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_rfc3339() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(1_795_307_696), "2026-11-22T00:34:56Z");
    }

    #[test]
    fn secrets_are_redacted_at_any_depth() {
        let args = json!({"target": "e3", "text": "hunter2", "fields": [{"target": "#p", "value": "s3cret"}]});
        let r = redact(&args);
        assert_eq!(r["target"], "e3");
        assert_eq!(r["text"], "[redacted 7 chars]");
        assert_eq!(r["fields"][0]["value"], "[redacted 6 chars]");
        assert!(!r.to_string().contains("hunter2"));
    }

    #[test]
    fn log_is_private_rotates_and_tails_by_client() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("audit.log");
        let log = AuditLog::new(path.clone(), 600);
        for i in 0..10 {
            log.record(&Entry {
                client: if i % 2 == 0 { "A" } else { "B" },
                tool: "browser_type",
                args: &json!({"text": "pw", "n": i}),
                url: Some("https://x/"),
                error: (i == 9).then_some("boom"),
                ms: 3,
                note: (i == 9).then(|| json!({"exported_sites": ["https://x"]})),
            });
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600);
        }
        assert!(rotated(&path).exists(), "the log should have rotated");
        let all = tail(&path, 100, None);
        assert!(all.len() >= 4 && all.len() <= 10);
        let b = tail(&path, 2, Some("B"));
        assert_eq!(b.len(), 2);
        assert_eq!(b[1]["args"]["n"], 9);
        assert_eq!(b[1]["ok"], false);
        assert!(format_line(&b[1]).contains("ERROR boom"));
        assert!(format_line(&b[1]).contains(r#"note={"exported_sites":["https://x"]}"#));
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(!text.contains("\"pw\""));
    }

    #[test]
    fn stops_and_resumes_are_recorded_per_client() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("audit.log");
        let log = AuditLog::new(path.clone(), DEFAULT_MAX_BYTES);
        log.record_event("A", "stopped_by_user", "all", "canceled_by_user");
        log.record_event("A", "resumed_by_user", "all", "canceled_by_user");
        let a = tail(&path, 10, Some("A"));
        assert_eq!(a.len(), 2);
        assert_eq!(a[0]["event"], "stopped_by_user");
        assert_eq!(a[1]["event"], "resumed_by_user");
        let line = format_line(&a[0]);
        assert!(
            line.contains("A STOPPED_BY_USER scope=all cause=canceled_by_user"),
            "{line}"
        );
    }
}
