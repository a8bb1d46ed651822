//! The macro scenario: 15 steps an agent takes on the fixture site (order
//! form, 200-link catalog, long article), each mapped to the tools of
//! tabwire and of the peer servers, and each checked for correctness.

use serde_json::{json, Value};

use crate::mcp::{Call, Server};
use crate::site::{self, Site};

/// Which tool vocabulary a server speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    Tabwire,
    Playwright,
    DevTools,
}

/// What a step does, independent of any server's tool names.
#[derive(Debug, Clone, Copy)]
pub enum Op {
    Navigate(&'static str),
    Snapshot,
    Type {
        role: &'static str,
        name: &'static str,
        text: &'static str,
    },
    Select {
        role: &'static str,
        name: &'static str,
        value: &'static str,
    },
    Click {
        role: &'static str,
        name: &'static str,
    },
    GetText,
    ExtractLinks,
    Back,
}

pub struct Step {
    pub name: &'static str,
    pub op: Op,
}

pub const STEPS: &[Step] = &[
    Step {
        name: "navigate /form",
        op: Op::Navigate("/form"),
    },
    Step {
        name: "snapshot (form)",
        op: Op::Snapshot,
    },
    Step {
        name: "type name",
        op: Op::Type {
            role: "textbox",
            name: "Name",
            text: "Ada Lovelace",
        },
    },
    Step {
        name: "select color",
        op: Op::Select {
            role: "combobox",
            name: "Color",
            value: "Blue",
        },
    },
    Step {
        name: "click checkbox",
        op: Op::Click {
            role: "checkbox",
            name: "Subscribe",
        },
    },
    Step {
        name: "click radio",
        op: Op::Click {
            role: "radio",
            name: "Medium",
        },
    },
    Step {
        name: "click submit (navigates)",
        op: Op::Click {
            role: "button",
            name: "Send order",
        },
    },
    Step {
        name: "get text (result)",
        op: Op::GetText,
    },
    Step {
        name: "navigate /links",
        op: Op::Navigate("/links"),
    },
    Step {
        name: "snapshot (200 links)",
        op: Op::Snapshot,
    },
    Step {
        name: "extract links",
        op: Op::ExtractLinks,
    },
    Step {
        name: "click link (navigates)",
        op: Op::Click {
            role: "link",
            name: "Item 7",
        },
    },
    Step {
        name: "navigate back",
        op: Op::Back,
    },
    Step {
        name: "navigate /article",
        op: Op::Navigate("/article"),
    },
    Step {
        name: "get text (article)",
        op: Op::GetText,
    },
];

/// The page function peers run for "get text" (tabwire has a tool for it).
const TEXT_JS: &str = "() => document.body.innerText";
/// The page function peers run for "extract links": absolute, deduplicated
/// `- [text](url)` lines, like tabwire's browser_extract_links.
const LINKS_JS: &str = "() => { const seen = new Set(), out = []; for (const a of document.querySelectorAll('a[href]')) { if (seen.has(a.href)) continue; seen.add(a.href); out.push(`- [${a.innerText.trim()}](${a.href})`); } return out.join('\\n'); }";

impl Dialect {
    /// Tools this dialect needs for the scenario.
    pub fn needed_tools(self) -> &'static [&'static str] {
        match self {
            Dialect::Tabwire => &[
                "browser_navigate",
                "browser_snapshot",
                "browser_type",
                "browser_select_option",
                "browser_click",
                "browser_get_text",
                "browser_extract_links",
                "browser_navigate_back",
            ],
            Dialect::Playwright => &[
                "browser_navigate",
                "browser_snapshot",
                "browser_type",
                "browser_select_option",
                "browser_click",
                "browser_evaluate",
                "browser_navigate_back",
            ],
            Dialect::DevTools => &[
                "navigate_page",
                "take_snapshot",
                "fill",
                "click",
                "evaluate_script",
            ],
        }
    }

    /// The (tool, arguments) for one step; `snapshot` is the text of the
    /// latest snapshot step, where refs come from.
    fn call_for(
        self,
        op: Op,
        site: &Site,
        snapshot: &str,
    ) -> Result<(&'static str, Value), String> {
        let r = |role: &str, name: &str| {
            find_ref(snapshot, role, name)
                .ok_or_else(|| format!("no {role} \"{name}\" with a ref in the latest snapshot"))
        };
        Ok(match (self, op) {
            (Dialect::Tabwire | Dialect::Playwright, Op::Navigate(p)) => {
                ("browser_navigate", json!({"url": site.url(p)}))
            }
            (Dialect::DevTools, Op::Navigate(p)) => {
                ("navigate_page", json!({"type": "url", "url": site.url(p)}))
            }
            (Dialect::Tabwire | Dialect::Playwright, Op::Snapshot) => {
                ("browser_snapshot", json!({}))
            }
            (Dialect::DevTools, Op::Snapshot) => ("take_snapshot", json!({})),
            (Dialect::Tabwire, Op::Type { role, name, text }) => (
                "browser_type",
                json!({"target": r(role, name)?, "text": text}),
            ),
            (Dialect::Playwright, Op::Type { role, name, text }) => (
                "browser_type",
                json!({"element": format!("{name} {role}"), "target": r(role, name)?, "text": text}),
            ),
            (Dialect::DevTools, Op::Type { role, name, text }) => {
                ("fill", json!({"uid": r(role, name)?, "value": text}))
            }
            (Dialect::Tabwire, Op::Select { role, name, value }) => (
                "browser_select_option",
                json!({"target": r(role, name)?, "values": [value]}),
            ),
            (Dialect::Playwright, Op::Select { role, name, value }) => (
                "browser_select_option",
                json!({"element": format!("{name} {role}"), "target": r(role, name)?, "values": [value]}),
            ),
            (Dialect::DevTools, Op::Select { role, name, value }) => {
                ("fill", json!({"uid": r(role, name)?, "value": value}))
            }
            (Dialect::Tabwire, Op::Click { role, name }) => {
                ("browser_click", json!({"target": r(role, name)?}))
            }
            (Dialect::Playwright, Op::Click { role, name }) => (
                "browser_click",
                json!({"element": format!("{name} {role}"), "target": r(role, name)?}),
            ),
            (Dialect::DevTools, Op::Click { role, name }) => {
                ("click", json!({"uid": r(role, name)?}))
            }
            (Dialect::Tabwire, Op::GetText) => ("browser_get_text", json!({})),
            (Dialect::Playwright, Op::GetText) => {
                ("browser_evaluate", json!({"function": TEXT_JS}))
            }
            (Dialect::DevTools, Op::GetText) => ("evaluate_script", json!({"function": TEXT_JS})),
            (Dialect::Tabwire, Op::ExtractLinks) => ("browser_extract_links", json!({})),
            (Dialect::Playwright, Op::ExtractLinks) => {
                ("browser_evaluate", json!({"function": LINKS_JS}))
            }
            (Dialect::DevTools, Op::ExtractLinks) => {
                ("evaluate_script", json!({"function": LINKS_JS}))
            }
            (Dialect::Tabwire | Dialect::Playwright, Op::Back) => {
                ("browser_navigate_back", json!({}))
            }
            (Dialect::DevTools, Op::Back) => ("navigate_page", json!({"type": "back"})),
        })
    }
}

/// The ref of the first line naming `role "name"`: tabwire's and
/// playwright-mcp's `[ref=e12]`, or chrome-devtools-mcp's `uid=1_12`.
pub fn find_ref(snapshot: &str, role: &str, name: &str) -> Option<String> {
    let needle = format!("{role} \"{name}\"");
    for line in snapshot.lines() {
        let Some(at) = line.find(&needle) else {
            continue;
        };
        // The name must end at the quote (so "Item 7" is not "Item 70").
        let before = &line[..at];
        if !(before.is_empty() || before.ends_with(' ') || before.ends_with('-')) {
            continue;
        }
        if let Some(start) = line.find("[ref=") {
            let rest = &line[start + 5..];
            return rest.find(']').map(|end| rest[..end].to_string());
        }
        if let Some(start) = line.find("uid=") {
            let rest = &line[start + 4..];
            let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
            return Some(rest[..end].to_string());
        }
    }
    None
}

/// What one run of the scenario measured, step by step.
pub struct Run {
    pub calls: Vec<Call>,
}

/// Runs all steps once; an error names the step and why its check failed.
pub async fn run(server: &Server, dialect: Dialect, site: &Site) -> Result<Run, String> {
    site.clear();
    let mut snapshot = String::new();
    let mut calls = Vec::with_capacity(STEPS.len());
    for (i, step) in STEPS.iter().enumerate() {
        let (tool, args) = dialect
            .call_for(step.op, site, &snapshot)
            .map_err(|e| format!("step {} ({}): {e}", i + 1, step.name))?;
        let call = server
            .call(tool, args)
            .await
            .map_err(|e| format!("step {} ({}): {e}", i + 1, step.name))?;
        if call.is_error {
            return Err(format!(
                "step {} ({}): {tool} returned an error: {}",
                i + 1,
                step.name,
                short(&call.text)
            ));
        }
        verify(i + 1, &call.text, site).map_err(|e| {
            format!(
                "step {} ({}): {e}; answer: {}",
                i + 1,
                step.name,
                short(&call.text)
            )
        })?;
        if matches!(step.op, Op::Snapshot) {
            snapshot = call.text.clone();
        }
        calls.push(call);
    }
    Ok(Run { calls })
}

fn short(s: &str) -> String {
    let one: String = s.chars().take(400).collect();
    one.replace('\n', " ⏎ ")
}

/// The correctness check of step `n` (1-based), against the answer and
/// what the fixture server received.
fn verify(n: usize, text: &str, site: &Site) -> Result<(), String> {
    let hit = |path: &str| {
        site.last(path)
            .ok_or_else(|| format!("the server never got GET {path}"))
    };
    let has = |s: &str| {
        if text.contains(s) {
            Ok(())
        } else {
            Err(format!("the answer lacks {s:?}"))
        }
    };
    match n {
        1 => hit("/form").map(|_| ()),
        2 => {
            for (role, name) in [
                ("textbox", "Name"),
                ("combobox", "Color"),
                ("checkbox", "Subscribe"),
                ("radio", "Medium"),
                ("button", "Send order"),
            ] {
                find_ref(text, role, name)
                    .ok_or_else(|| format!("no ref for {role} \"{name}\""))?;
            }
            Ok(())
        }
        7 => {
            let h = hit("/result")?;
            let want = [
                ("name", "Ada Lovelace"),
                ("color", "blue"),
                ("subscribe", "on"),
                ("size", "M"),
            ];
            for (k, v) in want {
                let got = site::param(&h.query, k).unwrap_or_default();
                if got != v {
                    return Err(format!("the form sent {k}={got:?}, expected {v:?}"));
                }
            }
            if !h.cookie.contains(site::SESSION_COOKIE) {
                return Err(format!(
                    "the form was sent without the session cookie (Cookie: {:?})",
                    h.cookie
                ));
            }
            Ok(())
        }
        8 => has("name=Ada Lovelace;color=blue;subscribe=on;size=M"),
        9 => hit("/links").map(|_| ()),
        10 => {
            for name in ["Item 7", "Item 199"] {
                find_ref(text, "link", name).ok_or_else(|| format!("no ref for link {name:?}"))?;
            }
            Ok(())
        }
        11 => {
            has("/page/item-199")?;
            has("https://example.org/elsewhere")
        }
        12 => hit("/page/item-7").map(|_| ()),
        13 => has(&site.url("/links")),
        14 => hit("/article").map(|_| ()),
        15 => has(site::ARTICLE_END),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refs_in_all_three_formats() {
        let ours =
            "- textbox \"Name\" [ref=e12]\n- link \"Item 70\" [ref=e9]\n- link \"Item 7\" [ref=e8]";
        assert_eq!(find_ref(ours, "textbox", "Name").as_deref(), Some("e12"));
        assert_eq!(find_ref(ours, "link", "Item 7").as_deref(), Some("e8"));
        let pw = "  - listitem [ref=e4]:\n    - link \"Item 7\" [ref=e5] [cursor=pointer]:";
        assert_eq!(find_ref(pw, "link", "Item 7").as_deref(), Some("e5"));
        let cd = "  uid=1_4 textbox \"Name\"\n  uid=1_9 button \"Send order\"";
        assert_eq!(find_ref(cd, "button", "Send order").as_deref(), Some("1_9"));
        assert_eq!(find_ref(cd, "button", "Send"), None);
    }
}
