//! What a feature may hook into a tab's life, so the client and the tab
//! call a list instead of naming features (which would tie every feature
//! to the client and the client to every feature). `page/mod.rs`, the top
//! of the page layer, lists the features when a [`Client`](super::client::Client) is made.

use std::future::Future;
use std::pin::Pin;

use serde_json::Value;

use super::calls::TabState;
use super::current::Tab;
use crate::error::ToolError;

/// A boxed future of a hook (the hooks are called through `dyn`).
pub type Hook<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// The engine's world in a tab's top document, as the tab's setup made it.
pub struct TopWorld {
    pub loader_id: String,
    pub context_id: i64,
    /// The engine already ran in it (an earlier session set the tab up).
    pub installed: bool,
}

/// One feature's hooks into a tab's life; each does nothing unless the
/// feature overrides it.
pub trait TabFeature: Send + Sync {
    /// Commands the tab's one-time setup sends (in the same batch).
    fn setup(&self, _state: &mut TabState) -> Vec<(&'static str, Value)> {
        Vec::new()
    }

    /// The tab was set up (under the client's lock: no waiting here).
    fn set_up(&self, _state: &mut TabState, _world: Option<&TopWorld>) {}

    /// After the tab was set up, before the command that asked for it.
    fn after_set_up<'a>(&'a self, _tab: &'a Tab) -> Hook<'a, ()> {
        Box::pin(async {})
    }

    /// A call chose `tab` to work on, before anything is sent to it; an
    /// error fails the call.
    fn chosen<'a>(&'a self, _tab: &'a Tab) -> Hook<'a, Result<(), ToolError>> {
        Box::pin(async { Ok(()) })
    }

    /// A command is about to go to the tab: a step the feature owes the
    /// page before then, if any (None, at once, when there is none: this
    /// is asked before every command).
    fn before_command<'a>(&'a self, _tab: &'a Tab, _method: &'a str) -> Option<Hook<'a, ()>> {
        None
    }

    /// An event of the tab that may need an answer before the page goes
    /// on. True: handled here, not recorded as the tab's state.
    fn intercept(&self, _tab: &Tab, _method: &str, _params: &Value) -> bool {
        false
    }

    /// An event of the tab, as it is recorded (under the client's lock).
    /// `current`: the tab is the client's current one.
    fn record(
        &self,
        _tab: &Tab,
        _state: &mut TabState,
        _current: bool,
        _method: &str,
        _params: &Value,
    ) {
    }

    /// A line the feature adds under the page line of every answer, about
    /// how the tab shows the page (what it emulates); None: nothing.
    fn head_note(&self, _state: &mut TabState) -> Option<String> {
        None
    }

    /// The debugger let go of the tab: events may have been missed and it
    /// will be set up again.
    fn detached(&self, _state: &mut TabState) {}

    /// The tab closed, or its debugger let go (before its state goes).
    fn gone(&self, _tab: &Tab) {}
}
