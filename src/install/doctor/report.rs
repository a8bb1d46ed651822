//! The report: each check's verdict, detail and fix, and the whole as text
//! for people or JSON for scripts, with the exit code.

use serde::Serialize;
use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Ok,
    /// Worth knowing, nothing to fix.
    Info,
    /// Works, but not as well as it could.
    Warn,
    /// Something the user must fix.
    Fail,
}

#[derive(Debug, Clone, Serialize)]
pub struct Check {
    /// Stable name, e.g. `manifest.chromium`, `binary.chromium`, `servers`.
    pub id: String,
    pub status: Status,
    pub title: String,
    pub detail: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
    /// Extra machine-readable facts (e.g. a server's status answer).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl Check {
    pub(super) fn new(
        id: impl Into<String>,
        status: Status,
        title: impl Into<String>,
        detail: impl Into<String>,
    ) -> Self {
        Self {
            id: id.into(),
            status,
            title: title.into(),
            detail: detail.into(),
            fix: None,
            data: None,
        }
    }

    pub(super) fn fix(mut self, fix: impl Into<String>) -> Self {
        self.fix = Some(fix.into());
        self
    }

    pub(super) fn data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub ok: bool,
    pub problems: usize,
    pub checks: Vec<Check>,
}

impl Report {
    pub(super) fn new(checks: Vec<Check>) -> Self {
        let problems = checks.iter().filter(|c| c.status == Status::Fail).count();
        Self {
            ok: problems == 0,
            problems,
            checks,
        }
    }

    /// 0 when nothing needs fixing, else 1.
    pub fn exit_code(&self) -> i32 {
        if self.ok {
            0
        } else {
            1
        }
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("report serializes")
    }

    pub fn to_text(&self) -> String {
        let mut out = format!("tabwire doctor (tabwire {})\n", env!("CARGO_PKG_VERSION"));
        for c in &self.checks {
            let tag = match c.status {
                Status::Ok => "OK  ",
                Status::Info => "INFO",
                Status::Warn => "WARN",
                Status::Fail => "FAIL",
            };
            out.push_str(&format!("  {tag}  {}: {}\n", c.title, c.detail));
            if let Some(fix) = &c.fix {
                out.push_str(&format!("        fix: {fix}\n"));
            }
        }
        out.push('\n');
        if self.ok {
            out.push_str("No problems found.\n");
        } else {
            out.push_str(&format!(
                "{} problem(s) need fixing: see the \"fix:\" lines above.\n",
                self.problems
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_exit_code_and_text() {
        let ok = Report::new(vec![Check::new("a", Status::Ok, "A", "fine")]);
        assert_eq!(ok.exit_code(), 0);
        assert!(ok.to_text().contains("No problems found"));
        let bad = Report::new(vec![
            Check::new("a", Status::Warn, "A", "meh"),
            Check::new("b", Status::Fail, "B", "broken").fix("do this"),
        ]);
        assert_eq!(bad.exit_code(), 1);
        let text = bad.to_text();
        assert!(
            text.contains("FAIL  B: broken\n        fix: do this"),
            "{text}"
        );
        let v: Value = serde_json::from_str(&bad.to_json()).unwrap();
        assert_eq!(v["ok"], false);
        assert_eq!(v["problems"], 1);
        assert_eq!(v["checks"][1]["status"], "fail");
        assert_eq!(v["checks"][1]["fix"], "do this");
        assert!(v["checks"][0].get("fix").is_none());
    }
}
