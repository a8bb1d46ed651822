//! A tab's frames as the snapshot engine sees them: each frame rendered
//! through its own world gets a number (the `f2` of `f2e7`) kept while it
//! shows the same document, the session it answers through, its document
//! rendered for a snapshot, and where its viewport sits on the page. The
//! top document's world and calling the engine are in `worlds.rs`.

use std::sync::Arc;

use serde_json::{json, Value};

use super::element::Element;
use super::worlds::TabWorlds;
use crate::engine;
use crate::error::ToolError;
use crate::page::tab::current::Tab;

/// Most frame worlds kept per tab (MAX_FRAMES per level of a snapshot,
/// a few levels deep, fit).
const MAX_FRAME_WORLDS: usize = 64;

#[derive(Debug, Clone)]
pub(in crate::page) struct FrameWorld {
    frame_id: String,
    context_id: i64,
    pub(in crate::page) installed: bool,
    /// The child session of an out-of-process frame (None: the frame is
    /// in the tab's own renderer and session).
    session: Option<Arc<str>>,
    /// The iframe element in its parent's world: (parent frame number,
    /// handle), to place the frame's content on the page.
    owner: (u32, Arc<str>),
}

impl TabWorlds {
    /// The number of the frame `frame_id` whose world is `context_id`:
    /// the same number while it shows the same document, else a new one.
    /// Also the handles of iframe elements it no longer needs (a frame's
    /// owner is found anew by every snapshot), for the caller to release.
    fn frame_number(&mut self, found: FrameWorld) -> (u32, Vec<(u32, Arc<str>)>) {
        let frames = &mut self.frames;
        if let Some((n, w)) = frames.iter_mut().find(|(_, w)| {
            w.frame_id == found.frame_id
                && w.context_id == found.context_id
                && w.session == found.session
        }) {
            let old = std::mem::replace(&mut w.owner, found.owner);
            let unused = if old.1 == w.owner.1 {
                vec![]
            } else {
                vec![old]
            };
            return (*n, unused);
        }
        let mut dropped = Vec::new();
        // The frame's earlier document is gone: its world with it.
        frames.retain(|_, w| {
            let keep = w.frame_id != found.frame_id || w.session != found.session;
            if !keep {
                dropped.push(w.owner.clone());
            }
            keep
        });
        // A page that keeps making frames: the oldest go (their refs are
        // refused as not part of the latest snapshot).
        while frames.len() >= MAX_FRAME_WORLDS {
            let Some(oldest) = frames.keys().copied().min() else {
                break;
            };
            if let Some(w) = frames.remove(&oldest) {
                dropped.push(w.owner);
            }
        }
        self.last_frame += 1;
        let n = self.last_frame;
        frames.insert(n, found);
        (n, dropped)
    }

    /// The world of frame `frame` answered that its document is gone.
    pub(in crate::page) fn forget_frame(&mut self, frame: u32) {
        self.frames.remove(&frame);
    }

    /// Frame worlds kept (for the debug counts of browser_status).
    pub fn frame_count(&self) -> usize {
        self.frames.len()
    }
}

impl Tab {
    pub(in crate::page) fn frame_world(
        &self,
        frame: u32,
    ) -> Result<(i64, bool, Option<Arc<str>>), ToolError> {
        self.tab_state()
                .slot::<TabWorlds>()
                .frames
                .get(&frame)
                .map(|w| (w.context_id, w.installed, w.session.clone()))
                .ok_or_else(|| {
                    ToolError::other(format!(
                        "frame f{frame} is not part of this tab's latest snapshot. Call browser_snapshot \
                         and use a ref from it"
                    ))
                })
    }

    /// Renders the document of the iframe behind `[frame=n]` of the last
    /// rendering in `parent` (0: the top document) through that frame's
    /// own world; the frame's number and its snapshot. None when the frame
    /// has no document this tab's session can reach.
    pub async fn frame_snapshot(
        &self,
        parent: u32,
        n: usize,
        budget: usize,
        detail: engine::Detail,
    ) -> Result<(u32, engine::Snapshot), ToolError> {
        let owner = self
            .engine_call(parent, "frameOwner", &n.to_string(), false)
            .await?;
        let object_id: Arc<str> = owner["result"]["objectId"]
            .as_str()
            .ok_or_else(|| ToolError::other("the frame's element is gone".into()))?
            .into();
        let parent_session = self.frame_session(parent);
        let desc = self
            .cdp_in(
                parent_session.as_deref(),
                "DOM.describeNode",
                json!({"objectId": object_id.as_ref()}),
            )
            .await?;
        let frame_id = desc["node"]["frameId"]
            .as_str()
            .ok_or_else(|| ToolError::other("the frame has no document yet".into()))?
            .to_string();
        // A frame in the same renderer answers through its parent's
        // session; an out-of-process one through its own child session.
        let (session, context_id) = self.frame_world_for(parent_session, &frame_id).await?;
        let (number, unused) = self
            .tab_state()
            .slot::<TabWorlds>()
            .frame_number(FrameWorld {
                frame_id,
                context_id,
                installed: false,
                session,
                owner: (parent, object_id),
            });
        // (Handles the browser would otherwise keep for the document's life.)
        for (parent, handle) in unused {
            let _ = self
                .cdp_in(
                    self.frame_session(parent).as_deref(),
                    "Runtime.releaseObject",
                    json!({ "objectId": handle.as_ref() }),
                )
                .await;
        }
        let snap = self
            .engine_value::<engine::Snapshot>(
                number,
                "snapshot",
                &engine::snapshot_args(budget, detail),
            )
            .await?
            .ok_or_else(|| ToolError::other("the frame answered nothing".into()))?;
        Ok((number, snap))
    }

    /// Makes the engine's world in `frame_id`, trying the sessions it may
    /// answer through in turn: its parent's (same renderer), the tab's (a
    /// frame of the top page's site inside an out-of-process one), its own
    /// child session (out of process). The session that worked and the
    /// world's context id.
    async fn frame_world_for(
        &self,
        parent_session: Option<Arc<str>>,
        frame_id: &str,
    ) -> Result<(Option<Arc<str>>, i64), ToolError> {
        if let Ok(c) = self.make_world(parent_session.as_deref(), frame_id).await {
            return Ok((parent_session, c));
        }
        if parent_session.is_some() {
            if let Ok(c) = self.make_world(None, frame_id).await {
                return Ok((None, c));
            }
        }
        // A frame inside an out-of-process frame attaches once its parent's
        // session asked for it (just before): give it a moment.
        let mut child = self.child_session(frame_id);
        for _ in 0..20 {
            if child.is_some() || parent_session.is_none() {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(25)).await;
            child = self.child_session(frame_id);
        }
        let child: Arc<str> = child
            .ok_or_else(|| {
                ToolError::other(
                    "its content is in another process that has not attached yet".into(),
                )
            })?
            .into();
        let c = self.make_world(Some(&child), frame_id).await?;
        // Its own out-of-process frames attach to it, not to the tab.
        let _ = self
            .cdp_in(
                Some(&child),
                "Target.setAutoAttach",
                json!({"autoAttach": true, "waitForDebuggerOnStart": false, "flatten": true}),
            )
            .await;
        Ok((Some(child), c))
    }

    /// The child session frame `frame` answers through (None: the tab's).
    pub(in crate::page) fn frame_session(&self, frame: u32) -> Option<Arc<str>> {
        if frame == 0 {
            return None;
        }
        self.tab_state()
            .slot::<TabWorlds>()
            .frames
            .get(&frame)
            .and_then(|w| w.session.clone())
    }

    /// Where frame `frame`'s viewport sits in the top page's viewport
    /// (CSS px), to turn the browser's points for an element of that frame
    /// into points for the tab's input events. The browser answers in the
    /// points of the frame's local root (the nearest ancestor frame in
    /// another renderer): only crossing a renderer boundary shifts.
    pub async fn frame_offset(&self, frame: u32) -> Result<(f64, f64), ToolError> {
        let mut at = (0.0, 0.0);
        let mut frame = frame;
        while frame != 0 {
            let Some((session, (parent, owner))) = self
                .tab_state()
                .slot::<TabWorlds>()
                .frames
                .get(&frame)
                .map(|w| (w.session.clone(), w.owner.clone()))
            else {
                break;
            };
            if session == self.frame_session(parent) {
                // Same renderer as its parent: already in the parent's points.
                frame = parent;
                continue;
            }
            let owner_el = Element {
                backend_node_id: None,
                object_id: Some(owner),
                frame: parent,
                session: self.frame_session(parent),
            };
            let r = self.call_on(owner_el,
                        "function() { const r = this.getBoundingClientRect(), s = getComputedStyle(this); \
                         return [r.left + this.clientLeft + parseFloat(s.paddingLeft), \
                                 r.top + this.clientTop + parseFloat(s.paddingTop)]; }",
                        Value::Null,
                    )
                    .await?;
            at.0 += r[0].as_f64().unwrap_or(0.0);
            at.1 += r[1].as_f64().unwrap_or(0.0);
            frame = parent;
        }
        Ok(at)
    }

    /// Frame worlds kept for `tab` (for the debug counts of browser_status).
    pub fn frame_count(&self) -> usize {
        self.tab_state().slot::<TabWorlds>().frame_count()
    }

    /// Frame numbers whose worlds this tab has (for change reports).
    pub fn frame_numbers(&self) -> Vec<u32> {
        let mut v: Vec<u32> = self
            .tab_state()
            .slot::<TabWorlds>()
            .frames
            .keys()
            .copied()
            .collect();
        v.sort_unstable();
        v
    }
}
