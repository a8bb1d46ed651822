//! The connections a page keeps open (long polls, streams, sockets): when
//! a request counts as one, how the answer names them, and the routes a
//! tab held open before, so a later action does not wait for them again.
//! `started_requests.rs` records the requests and decides the wait.
//!
//! Connections that stay open end the wait and are named (`Open: long
//! poll GET /poll`), so the model can `browser_wait_for` what they bring:
//! - an event stream (by type, or by its `text/event-stream` answer).
//!   After an action it is waited for while it sends (Gradio delivers a
//!   job's result over a stream it opens for that job and closes after
//!   it) until quiet for [`STREAM_IDLE`]; while a page loads, never;
//! - a response whose headers came [`STREAM_IDLE`] ago and whose body is
//!   still coming (a streamed answer that does not end);
//! - after a navigation: a fetch or XHR with no answer while nothing
//!   else started or ended for [`OPEN_AFTER`], a long poll (a script or
//!   stylesheet an app imports is waited for, up to the cap). (After an action
//!   such a request is the action's own work, a slow API say, and is
//!   waited for up to [`CAP`](super::started_requests::CAP); it is named
//!   as still loading after that.)

use std::collections::VecDeque;
use std::time::Duration;

/// An event stream, or a streamed response, that has sent nothing for
/// this long no longer holds the answer (it may stay open for good).
pub const STREAM_IDLE: Duration = Duration::from_millis(1500);

/// After a navigation, a request still without an answer when no other
/// request has started or ended for this long is a connection the page
/// holds open (a long poll); the answer no longer waits for it. Short: a
/// loaded page whose network has gone quiet shows what it will show.
pub const OPEN_AFTER: Duration = Duration::from_millis(250);

/// What kind of open connection a request turned out to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpenKind {
    LongPoll,
    EventStream,
    StreamedResponse,
    WebSocket,
}

impl OpenKind {
    fn label(self) -> &'static str {
        match self {
            OpenKind::LongPoll => "long poll",
            OpenKind::EventStream => "event stream",
            OpenKind::StreamedResponse => "streamed response",
            OpenKind::WebSocket => "WebSocket",
        }
    }
}

/// A connection the wait saw open and stopped waiting for.
#[derive(Debug, Clone, PartialEq)]
pub struct Open {
    pub kind: OpenKind,
    /// `GET /poll`.
    pub what: String,
    /// The request's id (empty when no later event can end it).
    pub(in crate::page) id: String,
}

/// `METHOD /path` without the query: what names a connection a page
/// opens again and again (a long poll's cursor changes, its path not).
pub(in crate::page) fn route_of(method: &str, url: &str) -> String {
    let path = path_of(url);
    format!("{method} {}", path.split('?').next().unwrap_or(path))
}

/// How a wait for started requests ended.
#[derive(Debug, Default)]
pub struct Report {
    /// `GET /api/slow (5.0 s)`, at most three and a count; empty when
    /// nothing is.
    pub still_loading: String,
    /// Connections the page holds open (never waited for).
    pub open: Vec<Open>,
}

impl Report {
    /// The answer's line about open connections (`Open: long poll GET
    /// /poll, event stream GET /events. …`), or None.
    pub fn open_line(&self) -> Option<String> {
        if self.open.is_empty() {
            return None;
        }
        let mut items: Vec<String> = Vec::new();
        for o in &self.open {
            let item = format!("{} {}", o.kind.label(), o.what);
            if !items.contains(&item) {
                items.push(item);
            }
        }
        let more = items.len().saturating_sub(4);
        items.truncate(4);
        if more > 0 {
            items.push(format!("{more} more"));
        }
        Some(format!(
            "Open: {}. What arrives over them later is not in this answer; browser_wait_for waits \
             for text it brings.",
            items.join(", ")
        ))
    }
}

/// The routes (`METHOD /path`) a tab held open in earlier waits (long
/// polls, streams): an action that opens one again (a chat page renews
/// its long poll after every message) does not wait for it. Bounded.
#[derive(Debug, Default)]
pub struct LongLived {
    routes: VecDeque<String>,
}

impl LongLived {
    const MAX: usize = 16;

    pub fn routes(&self) -> Vec<String> {
        self.routes.iter().cloned().collect()
    }

    /// Remembers the requests `report` found held open (not sockets,
    /// which are never waited for anyway).
    pub fn learn(&mut self, report: &Report) {
        for o in &report.open {
            if o.kind == OpenKind::WebSocket {
                continue;
            }
            let (verb, path) = o.what.split_once(' ').unwrap_or(("GET", &o.what));
            let route = route_of(verb, path);
            if !self.routes.contains(&route) {
                if self.routes.len() == Self::MAX {
                    self.routes.pop_front();
                }
                self.routes.push_back(route);
            }
        }
    }
}

/// The path and query of a URL (what names a request to the model);
/// the whole URL when it has no path.
pub(in crate::page) fn path_of(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    match rest.find('/') {
        Some(at) => {
            let p = &rest[at..];
            if p.len() > 120 {
                &p[..p.char_indices().nth(120).map_or(p.len(), |(i, _)| i)]
            } else {
                p
            }
        }
        None => url,
    }
}
