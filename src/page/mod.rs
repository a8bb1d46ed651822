//! The page layer: everything the tools share about a client's tabs and
//! their pages, below the tool definitions and above the backends.
//!
//! Nothing here knows a tool: it returns [`ToolError`] sentences and plain
//! text the tools put into their answers.
//!
//! It is cut into rooms, each a folder whose `mod.rs` says what it owns.
//! Imports run one way: a room uses only the rooms before it in this
//! order, bottom up (`tests/house.rs` reads the next line and checks it):
//!
//! rooms: tab network navigation downloads reading input devtools signin webmcp
//!
//! The tab (its client, calls, events and the hooks features register) is
//! below everything; a feature keeps its per-tab state in the tab's slots
//! and hooks into a tab's life through [`tab::feature::TabFeature`], so the
//! tab never names a feature. This file is above every room: it lists the
//! features when a [`Client`] is made.

pub mod devtools;
pub mod downloads;
pub mod input;
pub mod navigation;
pub mod network;
pub mod reading;
pub mod signin;
pub mod tab;
pub mod webmcp;

#[cfg(test)]
mod fake_browser_tests;

pub use crate::error::ToolError;
pub use input::action::Outcome;
pub use reading::element::Element;
pub use tab::client::Client;
pub use tab::current::Tab;

use std::sync::Arc;

impl Client {
    /// A client of `backend` under `policy`, whose tabs get every
    /// feature's hooks (see [`tab::feature::TabFeature`]), in this order: the
    /// order of a tab's setup commands and of the event handlers.
    pub fn new(
        backend: Arc<dyn crate::backend::Backend>,
        policy: Arc<crate::policy::Policy>,
    ) -> Self {
        let features: Vec<Arc<dyn tab::feature::TabFeature>> = vec![
            Arc::new(reading::worlds::Feature),
            Arc::new(webmcp::Feature),
            Arc::new(downloads::download::Feature),
            Arc::new(tab::interrupts::Feature),
            Arc::new(network::routes::Feature),
            Arc::new(devtools::emulation::Feature),
            Arc::new(devtools::video::Feature),
            Arc::new(devtools::trace::Feature),
            Arc::new(signin::passkeys::Feature),
            Arc::new(signin::storage_state::load::Feature),
        ];
        Self::with_features(backend, policy, features)
    }
}
