//! Going to pages and knowing when one is usable: navigating and the
//! history (`navigate.rs`), the load wait (`load.rs`), the requests a
//! navigation or an action started and the connections a page keeps open
//! (`started_requests.rs`, `open_connections.rs`), and the socket replies
//! an action waits for (`socket_replies.rs`).
//!
//! Imports only `tab/`.

pub mod load;
pub mod navigate;
pub mod open_connections;
pub mod socket_replies;
pub mod started_requests;
