//! The page layer: everything the tools share about a client's tabs and
//! their pages, below the tool definitions and above the backends.
//!
//! Nothing here knows a tool: it returns [`ToolError`] sentences and plain
//! text the tools put into their answers.

pub mod action;
pub mod action_waits;
pub mod client;
pub mod closed_shadow;
pub mod console_and_dialogs;
pub mod cookies;
pub mod coordinates;
pub mod current;
pub mod download;
pub mod drag;
pub mod element;
pub mod emulation;
pub mod evaluate;
pub mod feature;
pub mod fields;
pub mod frames;
pub mod har;
pub mod input;
pub mod interrupts;
pub mod keys;
pub mod load;
pub mod locator;
pub mod navigation;
pub mod network_log;
pub mod open_connections;
pub mod passkeys;
pub mod pixels;
pub mod playwright_code;
pub mod read;
pub mod recording;
pub mod refs;
pub mod resource;
pub mod routes;
pub mod save;
pub mod screenshot;
pub mod scroll;
pub mod secret_fields;
pub mod slider;
pub mod slots;
pub mod snapshot;
pub mod socket_replies;
pub mod started_requests;
pub mod storage_state;
pub mod tab;
pub mod tabs;
pub mod trace;
pub mod typing;
pub mod url_globs;
pub mod verify;
pub mod video;
pub mod webmcp;
pub mod worlds;

#[cfg(test)]
mod fake_browser_tests;

pub use crate::error::ToolError;
pub use action::Outcome;
pub use client::Client;
pub use current::Tab;
pub use element::Element;

use std::sync::Arc;

impl Client {
    /// A client of `backend` under `policy`, whose tabs get every
    /// feature's hooks (see [`feature::TabFeature`]), in this order: the
    /// order of a tab's setup commands and of the event handlers.
    pub fn new(
        backend: Arc<dyn crate::backend::Backend>,
        policy: Arc<crate::policy::Policy>,
    ) -> Self {
        let features: Vec<Arc<dyn feature::TabFeature>> = vec![
            Arc::new(worlds::Feature),
            Arc::new(webmcp::Feature),
            Arc::new(download::Feature),
            Arc::new(interrupts::Feature),
            Arc::new(routes::Feature),
            Arc::new(emulation::Feature),
            Arc::new(video::Feature),
            Arc::new(trace::Feature),
            Arc::new(passkeys::Feature),
            Arc::new(storage_state::load::Feature),
        ];
        Self::with_features(backend, policy, features)
    }
}
