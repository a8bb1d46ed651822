//! `browser_batch`: several tool calls in order in one call, each through
//! the same path as a call of its own (lookup, policy, browser choice,
//! audit), which the server lends through a [`Runner`]. The batch stops at
//! the first step that fails.
//!
//! What it answers: the page as the model must picture it after the batch
//! is the last full snapshot a step returned plus the change reports after
//! it, so the steps from the last one that returned a full snapshot on are
//! given in full, and the steps before it in one line each (that snapshot
//! supersedes their change reports).

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, OnceLock};

use rmcp::model::JsonObject;
use schemars::JsonSchema;
use serde::Deserialize;

#[cfg(test)]
use super::def::View;
use super::def::{Kind, Response, ToolDef, ToolError};
use crate::page::Client;

/// Most steps one batch runs.
pub const MAX_STEPS: usize = 10;

/// This tool's name (a batch may not hold one).
pub const NAME: &str = "browser_batch";

/// Runs one tool call the way the server runs a call of its own.
pub trait Runner: Send + Sync {
    /// Err: why `tool` cannot be called (unknown, or refused by the policy).
    fn check(&self, tool: &str) -> Result<(), String>;
    /// The call's answer, or the text of its error.
    fn run(
        &self,
        tool: String,
        arguments: JsonObject,
    ) -> Pin<Box<dyn Future<Output = Result<Response, ToolError>> + Send + 'static>>;
}

/// Where the server puts its [`Runner`] once it exists (the tools are made
/// before the server that runs them).
#[derive(Clone, Default)]
pub struct RunnerSlot(Arc<OnceLock<Arc<dyn Runner>>>);

impl RunnerSlot {
    pub fn set(&self, runner: Arc<dyn Runner>) {
        let _ = self.0.set(runner);
    }

    fn get(&self) -> Option<Arc<dyn Runner>> {
        self.0.get().cloned()
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Step {
    pub tool: String,
    pub arguments: Option<JsonObject>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct BatchArgs {
    // Its items' shape is in the description (tools/list stays small).
    #[schemars(with = "Vec<JsonObject>")]
    pub actions: Vec<Step>,
}

pub fn tools(slot: &RunnerSlot) -> Vec<ToolDef> {
    let slot = slot.clone();
    vec![ToolDef::new(
        NAME,
        "Batch of tools",
        Kind::Action,
        "Run up to 10 tools in order (type, click, wait_for …): `actions` [{tool, arguments}]; stops at a failure.",
        move |_s: Client, a: BatchArgs| {
            let slot = slot.clone();
            async move { batch(slot, a).await }
        },
    )
    .without_browser()]
}

/// One step's answer.
struct Answer {
    tool: String,
    response: Response,
}

async fn batch(slot: RunnerSlot, a: BatchArgs) -> Result<Response, ToolError> {
    let runner = slot
        .get()
        .ok_or_else(|| ToolError::other("batches cannot run here".into()))?;
    let total = a.actions.len();
    if total == 0 || total > MAX_STEPS {
        return Err(ToolError::other(format!(
            "give 1 to {MAX_STEPS} actions, not {total}; split longer sequences into several batches"
        )));
    }
    // Nothing runs unless every step may.
    for (i, step) in a.actions.iter().enumerate() {
        if step.tool == NAME {
            return Err(ToolError::other(format!(
                "step {} is {NAME}: a batch cannot hold a batch; list its steps instead. Nothing \
                 was run",
                i + 1
            )));
        }
        runner.check(&step.tool).map_err(|why| {
            ToolError::other(format!("step {} cannot run: {why}. Nothing was run", i + 1))
        })?;
    }
    let mut done: Vec<Answer> = Vec::new();
    let mut steps = a.actions.into_iter().enumerate();
    while let Some((i, step)) = steps.next() {
        let result = runner
            .run(step.tool.clone(), step.arguments.unwrap_or_default())
            .await;
        let response = match result {
            Ok(response) => response,
            Err(error) => {
                let not_run: Vec<String> = steps
                    .map(|(k, s)| format!("{} {}", k + 1, s.tool))
                    .collect();
                let rest = match not_run.len() {
                    0 => String::new(),
                    _ => format!("; not run: step {}", not_run.join(", step ")),
                };
                let mut text = format!(
                    "step {} of {total} ({}) failed, so the batch stopped{rest}.",
                    i + 1,
                    step.tool
                );
                if !done.is_empty() {
                    text.push_str(&format!("\n{}", render(&done)));
                }
                text.push_str(&format!("\n{}. {}: {error}", i + 1, step.tool));
                // The batch failed the way its step did.
                return Err(error.retold(text));
            }
        };
        done.push(Answer {
            tool: step.tool,
            response,
        });
    }
    let mut response = Response::text(format!("Ran {total} steps.\n{}", render(&done)));
    for mut a in done {
        for (data, mime) in a.response.take_images() {
            response = response.with_image(data, mime);
        }
    }
    Ok(response)
}

/// The steps' answers: in full from the last that shows the whole page
/// on, one line each before it (that snapshot supersedes their change
/// reports).
fn render(done: &[Answer]) -> String {
    let from = done
        .iter()
        .rposition(|a| a.response.shows_whole_page())
        .unwrap_or(0);
    done.iter()
        .enumerate()
        .map(|(i, a)| {
            if i < from {
                format!("{}. {}: {}", i + 1, a.tool, one_line(a.response.headline()))
            } else {
                format!("{}. {}: {}", i + 1, a.tool, a.response.render())
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// An answer's first line cut short (an inline fence cut short is closed
/// again).
fn one_line(line: &str) -> String {
    let mut out = crate::fence::cut_line(line, 200);
    if out.is_empty() {
        out = "done".into();
    }
    out + " (its full answer is superseded by a later snapshot)"
}

#[cfg(test)]
mod tests {
    use super::*;

    fn a(tool: &str, lead: &str, view: Option<View>) -> Answer {
        let response = Response::text(lead);
        Answer {
            tool: tool.into(),
            response: match view {
                Some(v) => response.with_view(v),
                None => response,
            },
        }
    }

    fn steps() -> [Answer; 3] {
        [
            a(
                "browser_type",
                "Typed 3 characters.",
                Some(View::Changes(
                    "Snapshot changes:\n<<page-content x>>\n+ a\n<<end-page-content x>>".into(),
                )),
            ),
            a(
                "browser_click",
                "Clicked.",
                Some(View::Snapshot(
                    "Page: T (u)\nSnapshot:\n<<page-content x>>\n- b\n<<end-page-content x>>"
                        .into(),
                )),
            ),
            a(
                "browser_wait_for",
                "Done waiting.",
                Some(View::Changes(
                    "Snapshot changes:\n<<page-content x>>\n+ c\n<<end-page-content x>>".into(),
                )),
            ),
        ]
    }

    #[test]
    fn answers_are_full_from_the_last_snapshot_on() {
        let out = render(&steps());
        assert!(
            out.starts_with("1. browser_type: Typed 3 characters. (its full answer is superseded"),
            "{out}"
        );
        assert!(!out.contains("+ a"), "{out}");
        assert!(out.contains("- b") && out.contains("+ c"), "{out}");
        // Without a whole snapshot every change report stays.
        let [first, _, last] = steps();
        let out = render(&[first, last]);
        assert!(out.contains("+ a") && out.contains("+ c"), "{out}");
    }

    #[test]
    fn the_headline_of_a_page_alone_is_its_page_line() {
        let r = Response::showing(View::Snapshot(
            "Page: <<page-content x>>a (b)<<end-page-content x>>\nSnapshot:\n…".into(),
        ));
        assert_eq!(
            r.headline(),
            "Page: <<page-content x>>a (b)<<end-page-content x>>"
        );
        assert!(r.shows_whole_page());
        assert!(!Response::text("Clicked.")
            .with_view(View::Line("Page: a".into()))
            .shows_whole_page());
    }

    #[test]
    fn a_first_line_cut_short_closes_its_inline_fence() {
        let long = "t".repeat(300);
        let line = one_line(&format!(
            "Page: <<page-content abc123abc123>>{long}<<end-page-content abc123abc123>>"
        ));
        assert!(
            line.contains("t…<<end-page-content abc123abc123>> (its full answer"),
            "{line}"
        );
        let short =
            one_line("Page: <<page-content abc123abc123>>T (u)<<end-page-content abc123abc123>>");
        assert!(
            short.starts_with(
                "Page: <<page-content abc123abc123>>T (u)<<end-page-content abc123abc123>> (its"
            ),
            "{short}"
        );
    }
}
