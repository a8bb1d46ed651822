//! Replies an action waits for on the page's WebSockets.
//!
//! An app whose state flows over a socket (Streamlit, Jupyter, NiceGUI,
//! Shiny, …) answers a click with messages, after its server has done the
//! work. The action itself says what to expect: a message it sent on a
//! socket is a question, and its answer is on the way. So an action's
//! answer waits, bounded by [`SOCKET_CAP`], for the replies on the sockets
//! the action wrote to, and only those: a socket that streams on its own
//! (a ticker, presence, a clock) and that the action did not write to
//! never holds an answer.
//!
//! When is a reply complete? The protocol is the app's, so the rule goes by
//! time: frames that come back at once (within [`ACK_WINDOW`] of the send)
//! are acknowledgements or "busy" notices, after which the real result
//! may take the server's work time, so the wait goes on until the socket
//! has been quiet for [`AFTER_ACK_QUIET`]; once a frame has come later
//! than that (the server's result), the wait ends after a short
//! [`AFTER_RESULT_QUIET`]. A socket still sending at the cap is named in
//! the answer (it keeps streaming), as is one that never replied.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use serde_json::Value;

/// The longest an answer waits for socket replies (from the first send).
pub const SOCKET_CAP: Duration = Duration::from_secs(2);

/// Frames back within this of the send are taken as acknowledgements.
const ACK_WINDOW: Duration = Duration::from_millis(150);

/// After only acknowledgements: how long the socket must be quiet.
const AFTER_ACK_QUIET: Duration = Duration::from_millis(1000);

/// After a later frame (a result): how long the socket must be quiet.
const AFTER_RESULT_QUIET: Duration = Duration::from_millis(250);

/// One socket the action wrote to.
#[derive(Debug, Clone)]
struct Asked {
    /// Its address without the scheme, as answers name it.
    what: String,
    /// The action's first message on it.
    sent: Instant,
    /// Frames received since (their arrival instants).
    replies: Vec<Instant>,
}

impl Asked {
    fn quiet_needed(&self) -> Option<Duration> {
        let last = *self.replies.last()?;
        Some(if last.duration_since(self.sent) <= ACK_WINDOW {
            AFTER_ACK_QUIET
        } else {
            AFTER_RESULT_QUIET
        })
    }

    /// When this socket stops holding the answer, with no new frame.
    fn done_at(&self) -> Instant {
        let cap = self.sent + SOCKET_CAP;
        match (self.replies.last(), self.quiet_needed()) {
            (Some(last), Some(q)) => (*last + q).min(cap),
            _ => cap,
        }
    }
}

/// The sockets an action wrote to, and what came back on them.
#[derive(Debug, Default)]
pub struct SocketReplies {
    /// Socket addresses by request id, from `Network.webSocketCreated`
    /// (sockets opened before the wait are named by id until then).
    urls: HashMap<String, String>,
    asked: HashMap<String, Asked>,
    /// Frames the action's sockets got, in all (for the log).
    pub frames: usize,
}

impl SocketReplies {
    /// `urls`: the addresses of the sockets the tab had open before.
    pub fn new(urls: HashMap<String, String>) -> Self {
        Self {
            urls,
            ..Self::default()
        }
    }

    /// Records one Network event of the tab. `acting`: the action (or the
    /// tasks it queued) is still running, so a message sent now is its.
    pub fn observe(&mut self, method: &str, params: &Value, acting: bool) {
        self.observe_at(method, params, acting, Instant::now());
    }

    fn observe_at(&mut self, method: &str, params: &Value, acting: bool, now: Instant) {
        let Some(id) = params["requestId"].as_str() else {
            return;
        };
        match method {
            "Network.webSocketCreated" => {
                let url = params["url"].as_str().unwrap_or_default();
                let what = url.split_once("://").map_or(url, |(_, rest)| rest);
                self.urls.insert(id.to_string(), what.to_string());
            }
            "Network.webSocketFrameSent" if acting => {
                let what = self.urls.get(id).cloned().unwrap_or_else(|| id.to_string());
                self.asked.entry(id.to_string()).or_insert(Asked {
                    what,
                    sent: now,
                    replies: Vec::new(),
                });
            }
            "Network.webSocketFrameReceived" => {
                if let Some(a) = self.asked.get_mut(id) {
                    a.replies.push(now);
                    self.frames += 1;
                }
            }
            // A socket that closes has said all it will.
            "Network.webSocketClosed" => {
                if let Some(a) = self.asked.get_mut(id) {
                    a.sent = a.sent.min(now - SOCKET_CAP);
                }
            }
            _ => {}
        }
    }

    /// Whether the action wrote to any socket.
    pub fn any(&self) -> bool {
        !self.asked.is_empty()
    }

    pub fn is_done(&self) -> bool {
        self.is_done_at(Instant::now())
    }

    fn is_done_at(&self, now: Instant) -> bool {
        self.asked.values().all(|a| now >= a.done_at())
    }

    /// When [`Self::is_done`] may next turn true with no new frame.
    pub fn next_change(&self) -> Option<Instant> {
        self.asked.values().map(Asked::done_at).min()
    }

    /// Sentences for the answer: sockets cut off by the cap (still
    /// sending, or never answering).
    pub fn notes(&self) -> Vec<String> {
        self.notes_at(Instant::now())
    }

    fn notes_at(&self, now: Instant) -> Vec<String> {
        let mut asked: Vec<&Asked> = self.asked.values().collect();
        asked.sort_by_key(|a| a.sent);
        let cap = SOCKET_CAP.as_secs_f64();
        let mut notes = Vec::new();
        for a in asked {
            let cut_off = now >= a.sent + SOCKET_CAP;
            match a.replies.last() {
                None if cut_off => notes.push(format!(
                    "The action sent a message on WebSocket {} and no reply came within {cap} s: \
                     its result is not in this answer; browser_wait_for waits for it.",
                    a.what
                )),
                Some(last) if cut_off && a.quiet_needed().is_some_and(|q| *last + q > now) => notes
                    .push(format!(
                        "WebSocket {} was still sending after {cap} s ({} messages since the \
                         action): later messages are not in this answer.",
                        a.what,
                        a.replies.len()
                    )),
                _ => {}
            }
        }
        notes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ev(id: &str) -> Value {
        json!({"requestId": id})
    }

    #[test]
    fn a_reply_after_server_work_is_waited_for_past_its_acknowledgement() {
        let t0 = Instant::now();
        let mut r = SocketReplies::new(HashMap::from([("7".into(), "h/ws".into())]));
        r.observe_at("Network.webSocketFrameSent", &ev("7"), true, t0);
        assert!(!r.is_done_at(t0 + Duration::from_millis(100)));
        // An acknowledgement at once: the result may still come.
        r.observe_at(
            "Network.webSocketFrameReceived",
            &ev("7"),
            false,
            t0 + Duration::from_millis(10),
        );
        assert!(!r.is_done_at(t0 + Duration::from_millis(800)));
        // The result after 0.8 s of work, then quiet.
        let result = t0 + Duration::from_millis(810);
        r.observe_at("Network.webSocketFrameReceived", &ev("7"), false, result);
        assert!(!r.is_done_at(result + Duration::from_millis(100)));
        assert!(r.is_done_at(result + AFTER_RESULT_QUIET));
        assert!(r.notes_at(result + AFTER_RESULT_QUIET).is_empty());
    }

    #[test]
    fn sockets_the_action_did_not_write_to_never_hold_the_answer() {
        let t0 = Instant::now();
        let mut r = SocketReplies::default();
        // A ticker's frames, and a message the page sent before the action.
        r.observe_at("Network.webSocketFrameSent", &ev("1"), false, t0);
        r.observe_at("Network.webSocketFrameReceived", &ev("1"), false, t0);
        assert!(!r.any());
        assert!(r.is_done_at(t0));
    }

    #[test]
    fn the_cap_ends_a_silent_or_chatty_socket_and_says_so() {
        let t0 = Instant::now();
        let mut r = SocketReplies::new(HashMap::from([("7".into(), "h/ws".into())]));
        r.observe_at("Network.webSocketFrameSent", &ev("7"), true, t0);
        let at_cap = t0 + SOCKET_CAP;
        assert!(r.is_done_at(at_cap));
        assert!(r.notes_at(at_cap)[0].contains("no reply came within 2 s"));
        // A socket that keeps sending every 100 ms.
        let mut chatty = SocketReplies::new(HashMap::new());
        chatty.observe_at("Network.webSocketFrameSent", &ev("9"), true, t0);
        for i in 1..=19 {
            let at = t0 + Duration::from_millis(100 * i);
            chatty.observe_at("Network.webSocketFrameReceived", &ev("9"), false, at);
            assert!(!chatty.is_done_at(at));
        }
        assert!(chatty.is_done_at(at_cap));
        assert!(chatty.notes_at(at_cap)[0].contains("still sending"));
    }
}
