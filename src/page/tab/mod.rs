//! The tab and its client: one MCP client's view of the browser (its
//! tabs, current tab, policy, fence and progress: `client.rs`, `current.rs`,
//! `tabs.rs`), one tab's calls and the setup every tab gets (`calls.rs`),
//! what the tab's events recorded (document, dialogs, console:
//! `console_and_dialogs.rs`; requests: `network_log.rs`; what interrupted
//! it: `interrupts.rs`), the refs the last snapshot handed out
//! (`refs.rs`), and how features hook into a tab's life without the tab
//! naming them (`feature.rs`, `slots.rs`).
//!
//! The bottom room of `page/`: it imports no other room.

pub mod calls;
pub mod client;
pub mod console_and_dialogs;
pub mod current;
pub mod feature;
pub mod interrupts;
pub mod network_log;
pub mod refs;
pub mod slots;
pub mod tabs;
