//! tabwire: an MCP server that drives the user's real Chrome through a small
//! extension, with no network port and no pairing token.
//!
//! # Layout
//!
//! - [`wire`]     length-prefixed codec for both framings, with size limits
//! - [`protocol`] envelopes shared by serve, native host and extension
//! - [`broker`]   private runtime directory, serve sockets, peer-uid checks
//! - [`host`]     `tabwire native-host`: origin check, discovery, routing
//! - [`backend`]  the tab + CDP trait tools are written against; extension,
//!   direct CDP (launch over a pipe, or attach) and the automatic choice
//! - [`logging`]  stderr logging for every binary
//! - [`paths`]    tabwire's data directory
//! - [`policy`]   allowed domains, tools and files, enforced on every call
//! - [`audit`]    the per-call audit log
//! - [`engine`]   the in-page snapshot engine (outline, refs, changes)
//! - [`error`]    the error tools and the page layer return
//! - [`page`]     a client's tabs and pages: CDP calls, actions, waits, refs
//! - [`tools`]    the MCP tools, one file per group, joined in one list
//! - [`app`]      assembling a server (policy, socket, backends, session)
//! - [`server`]   rmcp glue for `tabwire serve`
//! - [`call`]     `tabwire call`: one tool from a shell
//! - [`install`]  registering the native host with browsers
//! - [`wsl`]      Windows Chrome from inside WSL: the `wsl.exe` relay, and
//!   install's and doctor's Windows side
//!
//! `src/main.rs` is CLI dispatch only.

/// One malloc arena instead of one per thread: tabwire's threads mostly
/// wait, and per-thread arenas keep freed pages (a big screenshot, say)
/// resident for nothing. Call first thing in `main`.
pub fn use_one_malloc_arena() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only tunes the allocator; called before any threads.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 1);
    }
}

pub mod app;
pub mod audit;
pub mod backend;
pub mod broker;
pub mod call;
pub mod call_session;
pub mod engine;
pub mod error;
pub mod fence;
pub mod host;
pub mod install;
pub mod invisible;
pub mod logging;
pub mod page;
pub mod paths;
pub mod policy;
pub mod protocol;
pub mod secrets;
pub mod server;
pub mod text;
pub mod tools;
pub mod wire;
pub mod wsl;
