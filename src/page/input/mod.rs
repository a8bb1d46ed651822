//! Acting on a page as a person would: running an action and reporting
//! what it changed (`action.rs`, its waits: `action_waits.rs`), aiming and
//! the mouse (`pointer.rs`), drags (`drag.rs`), keys and typing
//! (`keys.rs`, `typing.rs`), sliders (`slider.rs`), scrolling
//! (`scroll.rs`) and form fields (`fields.rs`).
//!
//! Imports `tab/`, `navigation/`, `downloads/` and `reading/`.

pub mod action;
pub mod action_waits;
pub mod drag;
pub mod fields;
pub mod keys;
pub mod pointer;
pub mod scroll;
pub mod slider;
pub mod typing;
