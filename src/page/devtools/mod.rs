//! What a developer's tools give: traces (`trace.rs`), screen recordings
//! (`video.rs`), emulation (`emulation.rs`), the session as a test
//! (`recording.rs`, `playwright_code.rs`) and its checks (`verify.rs`).
//!
//! Imports any room below it; none imports it.

pub mod emulation;
pub mod playwright_code;
pub mod recording;
pub mod trace;
pub mod verify;
pub mod video;
