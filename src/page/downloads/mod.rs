//! Files the page hands over: downloads (`download.rs`) and saving a
//! file safely in the private directory (`save.rs`).
//!
//! Imports `tab/` and `network/`.

pub mod download;
pub mod save;
