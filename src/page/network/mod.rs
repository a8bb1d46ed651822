//! The network as a tab sees it: routes, mocked answers, network
//! conditions and extra headers (`routes.rs`, their URL globs:
//! `url_globs.rs`), HAR files (`har.rs`), a resource's bytes
//! (`resource.rs`) and cookies (`cookies.rs`).
//!
//! Imports only `tab/`.

pub mod cookies;
pub mod har;
pub mod resource;
pub mod routes;
pub mod url_globs;
