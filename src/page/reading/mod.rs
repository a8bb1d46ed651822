//! What the model reads of a page: snapshots (`snapshot.rs`), page text
//! and Markdown (`read.rs`), the engine's worlds and frames (`worlds.rs`,
//! `frames.rs`), refs turned into elements (`element.rs`), locators
//! (`locator.rs`), pixels for what the rules cannot vouch for
//! (`pixels.rs`), screenshots and their coordinates (`screenshot.rs`,
//! `coordinates.rs`), closed shadow roots (`closed_shadow.rs`) and
//! scripts the model runs (`evaluate.rs`).
//!
//! Imports `tab/` and `navigation/` (a navigation's snapshot).

pub mod closed_shadow;
pub mod coordinates;
pub mod element;
pub mod evaluate;
pub mod frames;
pub mod locator;
pub mod pixels;
pub mod read;
pub mod screenshot;
pub mod snapshot;
pub mod worlds;
