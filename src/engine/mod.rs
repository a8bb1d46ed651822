//! The in-page snapshot engine: a script (`src/engine/parts/`) evaluated
//! in an isolated world of each document tabwire reads, and the small Rust
//! side that calls it: the calls' JavaScript, the shapes of their answers,
//! refs, and the text a model reads (cut notes, change lists, frames
//! spliced under their `Iframe` lines).
//!
//! Why in the page: the accessibility tree a browser hands out is O(page)
//! and, through `chrome.debugger`, crosses native messaging as megabytes of
//! JSON. The engine walks the DOM where it lives, stops once the outline
//! fills its byte budget, keeps refs as element handles of its own, and
//! reports what an action changed by comparing with its last rendering.
//! Only text crosses the wire, and its cost follows the answer.
//!
//! Nothing here talks to a browser: the session sends the expressions
//! built here (see `tools::snapshot`), so this module stays testable alone.

use std::fmt::Write as _;

use serde::Deserialize;

use crate::fence::Fence;

/// The engine's source: one expression whose value is the engine object
/// (created once per document, then reused): one IIFE cut into parts that
/// are joined in this order, the only one (a part alone is not a script;
/// `bench/engine_source.py` reads this list, `tests/house.rs` checks it).
pub const SOURCE: &str = concat!(
    include_str!("parts/01-roles.js"),
    include_str!("parts/02-visibility.js"),
    include_str!("parts/03-paint-and-covers.js"),
    include_str!("parts/04-surfaces-and-unseen.js"),
    include_str!("parts/05-pixels-and-text.js"),
    include_str!("parts/06-names-and-states.js"),
    include_str!("parts/07-refs-and-walk.js"),
    include_str!("parts/08-skeletons.js"),
    include_str!("parts/09-changes.js"),
    include_str!("parts/10-page-text.js"),
    include_str!("parts/11-answers-and-find.js"),
    include_str!("parts/12-api.js"),
);

/// The isolated world the engine lives in (one per document and frame).
pub const WORLD: &str = "tabwire";

/// Most bytes of outline one answer carries (~10k tokens): a page with
/// thousands of links would otherwise fill a model's context in one call.
/// The same limit as page text.
pub const MAX_SNAPSHOT: usize = 40_000;

/// Most changed lines listed per direction in an action's report.
pub const MAX_DIFF_LINES: usize = 40;

/// An expression calling `method(args…)` on the engine of a world whose
/// refs start with `prefix` (see [`Ref::prefix`]). `installed`: the world
/// already ran [`SOURCE`] (otherwise the source goes along; it returns the
/// existing engine if there is one).
pub fn call(installed: bool, prefix: &str, method: &str, args: &str) -> String {
    let engine = if installed {
        "globalThis.__tabwire"
    } else {
        SOURCE.trim_end()
    };
    format!("((t) => (t.configure({{prefix: {prefix:?}}}), t.{method}({args})))({engine})")
}

/// [`call`], after the engine's `due_method(due_args)` has settled (an
/// earlier step the page owed before its next look, run in the same
/// message: see `page::reading::worlds::DueEngineCall`). Its failure does
/// not fail the call.
pub fn call_after(
    installed: bool,
    prefix: &str,
    (due_method, due_args): (&str, &str),
    method: &str,
    args: &str,
) -> String {
    let engine = if installed {
        "globalThis.__tabwire"
    } else {
        SOURCE.trim_end()
    };
    format!(
        "((t) => (t.configure({{prefix: {prefix:?}}}), Promise.resolve().then(() => t.{due_method}({due_args})).catch(() => {{}}).then(() => t.{method}({args}))))({engine})"
    )
}

/// The options object of a snapshot call.
pub fn budget_args(budget: usize) -> String {
    format!("{{budget: {budget}}}")
}

/// A page outline longer than this answers with its skeleton by default:
/// landmarks, headings, form controls and what the viewport shows whole, the
/// rest folded into `[expand=eN]` lines (`skeleton`, parts/08-skeletons.js).
pub const SKELETON_OVER: usize = 12_000;

/// How much of a whole page one snapshot shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detail {
    /// The skeleton when the outline is longer than [`SKELETON_OVER`].
    Skeleton,
    /// Everything, up to the budget.
    Full,
}

/// The options object of a whole-page snapshot call.
pub fn snapshot_args(budget: usize, detail: Detail) -> String {
    match detail {
        Detail::Skeleton => format!("{{budget: {budget}, skeleton: {SKELETON_OVER}}}"),
        Detail::Full => budget_args(budget),
    }
}

/// The options of a `changes` call: `force` walks the page again even
/// when the engine saw nothing change (emulated media can change anything
/// CSS shows); `pointer`: the pointer moved, so the engine renders again
/// what the page's :hover rules can have restyled (or walks the page when
/// it cannot tell).
pub fn changes_args(budget: usize, force: bool, pointer: bool) -> String {
    format!("{{budget: {budget}, force: {force}, pointer: {pointer}}}")
}

/// What `snapshot` answers.
#[derive(Debug, Clone, Deserialize, PartialEq)]
pub struct Snapshot {
    /// Outline lines, each ending in a newline.
    pub text: String,
    /// The budget ran out before the page did.
    #[serde(default)]
    pub cut: bool,
    /// Elements of the kinds that carry refs after the cut.
    #[serde(default)]
    pub more: u64,
    /// How many `[frame=N]` lines the text has (documents another world
    /// must render).
    #[serde(default)]
    pub frames: usize,
    #[serde(default)]
    pub url: String,
    #[serde(default)]
    pub title: String,
    /// A skeleton: how many runs it folded (0: the outline as it is).
    #[serde(default)]
    pub folds: usize,
    /// A skeleton: the size of the whole outline it was made from, at
    /// least (past the first 40 KB the skeleton's walk leaves names,
    /// states and values for the lines it shows, so folded lines count
    /// short).
    #[serde(default)]
    pub outline: usize,
    /// A skeleton of only the first part of a huge page.
    #[serde(default)]
    pub partial: bool,
    /// Blocks of text left out because a person cannot see them.
    #[serde(default)]
    pub hidden: usize,
    /// Components drawn through a closed shadow root, which no script
    /// reads (a person sees what they hold).
    #[serde(default, rename = "closedHosts")]
    pub closed_hosts: usize,
    /// Texts in the viewport drawn in ways the rules cannot vouch for,
    /// waiting for the pixels (see `page::pixels`).
    #[serde(default)]
    pub doubts: usize,
    /// Such texts outside the viewport, judged by the rules alone.
    #[serde(default)]
    pub unjudged: usize,
}

/// What `changes` answers (null when the document has no whole-page
/// rendering to compare with).
#[derive(Debug, Clone, Deserialize, PartialEq)]
pub struct Changes {
    pub added: Vec<String>,
    pub removed: Vec<String>,
    #[serde(default)]
    pub frames: usize,
    #[serde(default)]
    pub url: String,
    #[serde(default)]
    pub title: String,
    /// Blocks of text left out because a person cannot see them.
    #[serde(default)]
    pub hidden: usize,
    /// The engine walked the whole page again (it saw the DOM change, or
    /// could not tell what CSS alone changed).
    #[serde(default)]
    pub walked: bool,
}

/// What `find` answers: matching outline lines with their section paths.
#[derive(Debug, Clone, Deserialize, PartialEq)]
pub struct Found {
    pub found: Vec<Match>,
    pub total: usize,
    #[serde(default)]
    pub url: String,
    #[serde(default)]
    pub title: String,
    /// Blocks of text left out because a person cannot see them.
    #[serde(default)]
    pub hidden: usize,
}

#[derive(Debug, Clone, Deserialize, PartialEq)]
pub struct Match {
    pub line: String,
    pub path: Vec<String>,
}

/// The options object of a find call.
pub fn find_args(text: Option<&str>, role: Option<&str>, limit: usize) -> String {
    serde_json::json!({"text": text, "role": role, "limit": limit}).to_string()
}

/// A find answer as the model reads it: one line per match with where it
/// is, and how many more there are.
pub fn render_found(matches: &[Match], total: usize, what: &str, fence: &Fence) -> String {
    if matches.is_empty() {
        return format!(
            "Nothing on the page matches {what}. Try other words, or browser_snapshot to see the page.\n"
        );
    }
    let mut lines = String::new();
    for m in matches {
        let _ = write!(lines, "{}", m.line);
        if !m.path.is_empty() {
            let _ = write!(lines, " — in {}", m.path.join(" › "));
        }
        lines.push('\n');
    }
    let mut out = format!(
        "{total} match{} for {}:\n{}",
        if total == 1 { "" } else { "es" },
        fence.neutralise(what),
        fence.wrap(&lines)
    );
    if total > matches.len() {
        let _ = writeln!(
            out,
            "… {} more: narrow the words or add a role.",
            total - matches.len()
        );
    }
    out
}

/// The page line tools start their answers with. The title and the URL
/// are the page's to choose, so they stand inside an inline fence.
pub fn page_line(title: &str, url: &str, fence: &Fence) -> String {
    format!("Page: {}", fence.quote(&format!("{title} ({url})")))
}

/// The outline with the note a cut outline or a skeleton ends in.
pub fn with_cut_note(snap: &Snapshot, budget: usize) -> String {
    snap.text.clone() + &cut_note(snap, budget)
}

/// The line that says how much text a person cannot see was left out
/// (empty when none was).
pub fn hidden_note(hidden: usize) -> String {
    match hidden {
        0 => String::new(),
        1 => "(1 block of text a person cannot see on the page was left out)\n".into(),
        n => format!("({n} blocks of text a person cannot see on the page were left out)\n"),
    }
}

/// The note an answer ends in when text outside the viewport is drawn in
/// ways only pixels can judge (see `page::pixels`).
pub fn unjudged_note(unjudged: usize) -> String {
    match unjudged {
        0 => String::new(),
        1 => "(1 text outside the viewport is drawn in a way only pixels can judge; rules let it through: scroll to it and snapshot again to have it looked at)\n".into(),
        n => format!("({n} texts outside the viewport are drawn in ways only pixels can judge; rules let them through: scroll to them and snapshot again to have them looked at)\n"),
    }
}

/// The note an outline with components it cannot read into ends in.
pub fn closed_note(closed: usize) -> String {
    match closed {
        0 => String::new(),
        1 => "(1 component on the page draws itself in a closed shadow root, which tabwire cannot read: it may hold more than its line says; browser_take_screenshot shows it)\n".into(),
        n => format!("({n} components on the page draw themselves in closed shadow roots, which tabwire cannot read: they may hold more than their lines say; browser_take_screenshot shows them)\n"),
    }
}

/// The notes a cut outline or a skeleton ends in (empty when whole).
pub fn cut_note(snap: &Snapshot, budget: usize) -> String {
    let mut out = String::new();
    if snap.folds > 0 {
        let _ = writeln!(
            out,
            "… a skeleton of an outline of over {} KB{}: {} folded parts end in [expand=eN]; \
             browser_snapshot target=eN shows one, full=true the whole page; browser_find \
             searches it all.",
            snap.outline / 1000,
            if snap.partial {
                " (only its first 500 KB)"
            } else {
                ""
            },
            snap.folds
        );
    }
    if snap.cut {
        let _ = writeln!(
            out,
            "… cut at {} KB: the rest of the page ({} more elements you could act on) is not \
             shown. Snapshot one part with `target` (a ref above, or a CSS selector such as main \
             or #results), or read the text with browser_read_markdown.",
            budget / 1000,
            snap.more
        );
    }
    out
}

/// An action's change report, from the engine's lists.
pub fn render_changes(c: &Changes, fence: &Fence) -> String {
    if c.added.is_empty() && c.removed.is_empty() {
        return "The snapshot did not change.".into();
    }
    let mut out = String::new();
    for (label, lines) in [("added", &c.added), ("removed", &c.removed)] {
        if lines.is_empty() {
            continue;
        }
        let _ = writeln!(out, "{label}:");
        for l in lines.iter().take(MAX_DIFF_LINES) {
            let _ = writeln!(out, "  {}", l.trim_start());
        }
        if lines.len() > MAX_DIFF_LINES {
            let _ = writeln!(
                out,
                "  … {} more; call browser_snapshot for the whole page",
                lines.len() - MAX_DIFF_LINES
            );
        }
    }
    format!(
        "Snapshot changes:\n{}{}",
        fence.wrap(&out),
        hidden_note(c.hidden)
    )
}

/// A snapshot ref: `e12` in a document the engine reached directly, or
/// `f2e12` in frame 2 (a frame rendered through its own context).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Ref {
    /// The frame number, 0 for the top document.
    pub frame: u32,
    pub id: u64,
}

impl Ref {
    /// Parses `e12` / `f2e12`; anything else is not a ref (a CSS selector).
    pub fn parse(s: &str) -> Option<Self> {
        let (frame, rest) = match s.strip_prefix('f') {
            Some(rest) => {
                let e = rest.find('e')?;
                (digits(&rest[..e])?, &rest[e..])
            }
            None => (0, s),
        };
        let id = digits(rest.strip_prefix('e')?)?;
        Some(Self {
            frame: u32::try_from(frame).ok()?,
            id,
        })
    }

    /// The engine prefix of a frame's refs.
    pub fn prefix(frame: u32) -> String {
        if frame == 0 {
            "e".into()
        } else {
            format!("f{frame}e")
        }
    }
}

impl std::fmt::Display for Ref {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}{}", Self::prefix(self.frame), self.id)
    }
}

fn digits(s: &str) -> Option<u64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// Every ref an outline hands out (`[ref=…]` and `[expand=…]` markers).
pub fn refs_in(outline: &str) -> impl Iterator<Item = Ref> + '_ {
    ["[ref=", "[expand="].into_iter().flat_map(move |marker| {
        outline.match_indices(marker).filter_map(move |(at, _)| {
            let rest = &outline[at + marker.len()..];
            Ref::parse(&rest[..rest.find(']')?])
        })
    })
}

/// Puts a frame's outline under its `[frame=n]` line, indented one level
/// deeper than that line; the marker is replaced by `[frame=f{number}]`
/// hint-free text (the frame's own refs say which frame they are in).
pub fn splice_frame(outline: &str, n: usize, inner: &str) -> String {
    let marker = format!(" [frame={n}]");
    let Some(at) = outline.find(&marker) else {
        return outline.to_string();
    };
    let line_start = outline[..at].rfind('\n').map_or(0, |i| i + 1);
    let indent = outline[line_start..]
        .bytes()
        .take_while(|b| *b == b' ')
        .count()
        + 2;
    let line_end = outline[at..].find('\n').map_or(outline.len(), |i| at + i);
    let mut out = String::with_capacity(outline.len() + inner.len());
    out.push_str(&outline[..at]);
    out.push_str(&outline[at + marker.len()..line_end]);
    out.push('\n');
    for l in inner.lines() {
        let _ = writeln!(out, "{}{l}", " ".repeat(indent));
    }
    let tail = &outline[line_end..];
    out.push_str(tail.strip_prefix('\n').unwrap_or(tail));
    out
}

/// Drops a `[frame=n]` marker that could not be filled, saying why.
pub fn unfilled_frame(outline: &str, n: usize, why: &str) -> String {
    outline.replacen(&format!(" [frame={n}]"), &format!(" ({why})"), 1)
}

#[cfg(test)]
mod tests;
