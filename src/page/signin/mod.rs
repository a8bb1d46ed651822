//! Signing in without the model seeing a secret: named secrets typed
//! into fields (`secret_fields.rs`), storage state carried between
//! browsers (`storage_state/`) and passkeys (`passkeys.rs`).
//!
//! Imports any room below it; none imports it.

pub mod passkeys;
pub mod secret_fields;
pub mod storage_state;
