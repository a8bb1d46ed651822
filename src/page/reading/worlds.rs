//! A tab's snapshot engine as the tools see it: which isolated world of
//! which document answers a call, the refs handed out, and turning a ref
//! or CSS selector into an element.
//!
//! The engine itself is [`crate::engine`]. A world belongs to one document:
//! when the page navigates, its world (and every handle it made) is gone,
//! so a call that finds no world makes one in the frame's current document.
//!
//! The frames' worlds (numbering them, their sessions, rendering a frame,
//! its place on the page) are in `frames.rs`.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{json, Value};

use super::frames::FrameWorld;
use crate::engine::{self, Ref};
use crate::error::{ErrorKind, ToolError};
use crate::page::tab::calls::exception_text;
use crate::page::tab::current::Tab;

/// An engine call the page is owed before it is next looked at (the tab's
/// slot): an action's in-page settle. It rides in the same message as the
/// next engine call of the top document (its answer then comes after it),
/// or runs on its own before any other command; a navigation drops it
/// (the page it was for is going).
#[derive(Default)]
pub struct DueEngineCall(Option<Due>);

struct Due {
    method: &'static str,
    args: String,
    /// The longest it may take on its own.
    cap: std::time::Duration,
}

/// Commands after which an owed in-page step is moot: they leave the page.
const LEAVES_PAGE: &[&str] = &[
    "Page.navigate",
    "Page.reload",
    "Page.navigateToHistoryEntry",
    "Page.close",
];

/// Adopts the world the tab's setup made; forgets the worlds on a detach;
/// runs an engine call owed to the page before a command that did not
/// take it along.
pub struct Feature;

impl crate::page::tab::feature::TabFeature for Feature {
    fn set_up(
        &self,
        state: &mut crate::page::tab::calls::TabState,
        world: Option<&crate::page::tab::feature::TopWorld>,
    ) {
        if let Some(w) = world {
            state
                .slot::<TabWorlds>()
                .adopt_top(w.loader_id.clone(), w.context_id, w.installed);
        }
    }

    fn detached(&self, state: &mut crate::page::tab::calls::TabState) {
        *state.slot::<TabWorlds>() = TabWorlds::default();
        state.slot::<DueEngineCall>().0 = None;
    }

    fn before_command<'a>(
        &'a self,
        tab: &'a Tab,
        method: &'a str,
    ) -> Option<crate::page::tab::feature::Hook<'a, ()>> {
        let due = tab.tab_state().slot::<DueEngineCall>().0.take()?;
        if LEAVES_PAGE.contains(&method) || tab.dialog().is_some() {
            return None;
        }
        Some(Box::pin(async move {
            let began = std::time::Instant::now();
            let ran = tab.engine_awaited::<Value>(due.method, &due.args);
            let r = tokio::time::timeout(due.cap, ran).await;
            tracing::debug!(target: "tabwire::wait", method = due.method, ok = matches!(r, Ok(Ok(_))), ms = began.elapsed().as_millis() as u64, "owed engine call ran before {method}");
        }))
    }
}

/// The engine worlds of one tab.
#[derive(Default)]
pub struct TabWorlds {
    /// The top document's world.
    top: Option<World>,
    /// Worlds of frames rendered through their own context, by number
    /// (the `f2` of `f2e7`). Numbers are never reused within a tab, so a
    /// ref of a frame's old document cannot name an element of a new one.
    pub(in crate::page) frames: HashMap<u32, FrameWorld>,
    /// The last frame number given (the first is 1; 0 is the top).
    pub(in crate::page) last_frame: u32,
    /// Target handles made per session (None: the tab's own), to put them
    /// in groups the browser can let go of (see `target_group`).
    targets: HashMap<Option<Arc<str>>, u64>,
}

/// Action targets (element handles) per object group. The browser keeps
/// every handle it hands out until it is released or its document goes:
/// each action on a long-lived page would pin its target, and the removed
/// subtree around it, for the rest of the session.
const TARGET_GROUP: u64 = 64;

#[derive(Debug, Clone)]
struct World {
    loader_id: String,
    context_id: i64,
    /// The engine's source ran in it.
    installed: bool,
}

impl TabWorlds {
    /// The top document's world as the tab's setup made it, unless one is
    /// known already (`installed`: the engine ran in it).
    pub(in crate::page) fn adopt_top(
        &mut self,
        loader_id: String,
        context_id: i64,
        installed: bool,
    ) {
        if self.top.is_none() {
            self.top = Some(World {
                loader_id,
                context_id,
                installed,
            });
        }
    }

    /// The object group for the next action target in `session`,
    /// and the group to release first: groups of [`TARGET_GROUP`] handles,
    /// the one before last released as a new one starts, so the latest 64
    /// targets (and at most 128) are held.
    fn target_group(&mut self, session: Option<Arc<str>>) -> (String, Option<String>) {
        let made = self.targets.entry(session).or_insert(0);
        let group = *made / TARGET_GROUP;
        let release = (*made % TARGET_GROUP == 0 && group >= 2)
            .then(|| format!("tabwire-targets-{}", group - 2));
        *made += 1;
        (format!("tabwire-targets-{group}"), release)
    }
}

/// The browser says the world's document is gone (navigated or closed).
fn context_gone(e: &ToolError) -> bool {
    e.kind() == ErrorKind::ContextGone
}

/// The `Runtime.evaluate` of `method(args)` on the engine of snapshot
/// frame `frame`, in its world `context_id` (with the engine's source when
/// it is not `installed` there yet).
fn evaluate_params(
    context_id: i64,
    installed: bool,
    frame: u32,
    method: &str,
    args: &str,
    by_value: bool,
) -> Value {
    let expression = engine::call(installed, &Ref::prefix(frame), method, args);
    json!({"expression": expression, "contextId": context_id, "returnByValue": by_value})
}

/// An engine method's value parsed into `T` (None for null).
fn parse_value<T: serde::de::DeserializeOwned>(
    method: &str,
    value: &Value,
) -> Result<Option<T>, ToolError> {
    if value.is_null() {
        return Ok(None);
    }
    T::deserialize(value).map(Some).map_err(|e| {
        ToolError::other(format!(
            "tabwire's page engine answered {method} in an unexpected shape ({e}); try again"
        ))
    })
}

/// The message of an engine error (`Error: ref e9 …` → `ref e9 …`).
fn engine_error(ex: &Value) -> ToolError {
    let text = exception_text(ex);
    // The engine names the errors code decides on (`NotFound: …`).
    match text.strip_prefix("NotFound: ") {
        Some(rest) => ToolError::new(ErrorKind::NotFound, rest.to_string()),
        None => ToolError::other(text.strip_prefix("Error: ").unwrap_or(&text).to_string()),
    }
}

impl Tab {
    /// Leaves `method(args)` (a promise the engine settles) owed to the
    /// top document's engine before it is next looked at (see
    /// [`DueEngineCall`]); `cap`: the longest it may take on its own.
    pub(in crate::page) fn owe_engine_call(
        &self,
        method: &'static str,
        args: String,
        cap: std::time::Duration,
    ) {
        self.tab_state().slot::<DueEngineCall>().0 = Some(Due { method, args, cap });
    }

    /// Calls `method(args)` on the engine of `tab`'s top document (frame
    /// 0) or of frame `frame`; the CDP answer of `Runtime.evaluate`, by
    /// value or as a handle. An error the engine throws is a ToolError
    /// with its message.
    pub async fn engine_call(
        &self,
        frame: u32,
        method: &str,
        args: &str,
        by_value: bool,
    ) -> Result<Value, ToolError> {
        self.engine_eval(frame, method, args, by_value, false).await
    }

    /// [`Self::engine_call`]; with `target`, the handle it answers is an
    /// action's target, which the browser lets go of once it is old (see
    /// [`TabWorlds::target_group`]).
    pub(in crate::page) async fn engine_eval(
        &self,
        frame: u32,
        method: &str,
        args: &str,
        by_value: bool,
        target: bool,
    ) -> Result<Value, ToolError> {
        self.engine_eval_in(frame, method, args, by_value, target, false)
            .await
    }

    /// The object group for an action's target handle in `session` (see
    /// [`TabWorlds::target_group`]); the group it replaces is let go of.
    async fn handle_group(&self, session: Option<&str>) -> String {
        let (group, old) = self
            .tab_state()
            .slot::<TabWorlds>()
            .target_group(session.map(Arc::from));
        if let Some(old) = old {
            let _ = self
                .cdp_in(
                    session,
                    "Runtime.releaseObjectGroup",
                    json!({ "objectGroup": old }),
                )
                .await;
        }
        group
    }

    /// The `Runtime.evaluate` that resolves `target` to a handle in the top
    /// document's engine (an action's target), to send in a batch; and
    /// whether the engine was installed already (if not, the command
    /// carries its source: call [`Self::engine_ran`] once it has run).
    pub(in crate::page) async fn top_resolve_request(
        &self,
        target: &str,
    ) -> Result<(Value, bool), ToolError> {
        let (context_id, installed) = self.top_world(false).await?;
        let args = json!(target).to_string();
        let mut params = evaluate_params(context_id, installed, 0, "resolve", &args, false);
        params["objectGroup"] = json!(self.handle_group(None).await);
        Ok((params, installed))
    }

    /// The top document's engine source ran (see [`Self::top_resolve_request`]).
    pub(in crate::page) fn engine_ran(&self) {
        self.set_installed(0, true);
    }

    /// [`Self::engine_value`] of a method that answers with a promise: its
    /// value once it settles.
    pub(in crate::page) async fn engine_awaited<T: serde::de::DeserializeOwned>(
        &self,
        method: &str,
        args: &str,
    ) -> Result<Option<T>, ToolError> {
        let v = self
            .engine_eval_in(0, method, args, true, false, true)
            .await?;
        parse_value(method, &v["result"]["value"])
    }

    /// Whether `text` is in what a person sees of the top document and its
    /// same-origin frames within `ms` (with `gone`: whether it is not):
    /// one round trip that the page answers as soon as it holds.
    pub async fn wait_for_text(&self, text: &str, gone: bool, ms: u64) -> Result<bool, ToolError> {
        let args = json!({"text": text, "gone": gone, "ms": ms}).to_string();
        Ok(self
            .engine_awaited::<bool>("waitText", &args)
            .await?
            .unwrap_or(false))
    }

    /// [`Self::engine_eval`]; with `await_promise`, the answer is what the
    /// promise the method returns settles to. (Seven arguments: the three
    /// flags are what the callers above choose between.)
    #[allow(clippy::too_many_arguments)]
    async fn engine_eval_in(
        &self,
        frame: u32,
        method: &str,
        args: &str,
        by_value: bool,
        target: bool,
        await_promise: bool,
    ) -> Result<Value, ToolError> {
        // Taken before anything is sent (finding the world may send a
        // command, which would otherwise run it on its own first).
        let mut owed = match frame {
            0 => self.tab_state().slot::<DueEngineCall>().0.take(),
            _ => None,
        };
        for attempt in 0..2 {
            let (context_id, installed, session) = if frame == 0 {
                let (c, i) = self.top_world(attempt > 0).await?;
                (c, i, None)
            } else {
                self.frame_world(frame)?
            };
            let mut params = evaluate_params(context_id, installed, frame, method, args, by_value);
            // The step the page is owed goes first, in the same message.
            let due = owed.take();
            if let Some(due) = &due {
                let call = engine::call_after(
                    installed,
                    &Ref::prefix(0),
                    (due.method, &due.args),
                    method,
                    args,
                );
                params["expression"] = json!(call);
            }
            if await_promise || due.is_some() {
                params["awaitPromise"] = json!(true);
            }
            if target {
                params["objectGroup"] = json!(self.handle_group(session.as_deref()).await);
            }
            let r = self
                .cdp_in(session.as_deref(), "Runtime.evaluate", params)
                .await;
            match r {
                Ok(v) => {
                    let ex = v.get("exceptionDetails");
                    // A world the browser made anew under a reused id (a
                    // crashed renderer's successor): install again.
                    let missing = installed
                        && ex.is_some_and(|ex| exception_text(ex).contains("'configure'"));
                    if missing && attempt == 0 {
                        self.set_installed(frame, false);
                        continue;
                    }
                    // The source ran (even if the call then threw).
                    if !installed {
                        self.set_installed(frame, true);
                    }
                    return match ex {
                        Some(ex) => Err(engine_error(ex)),
                        None => Ok(v),
                    };
                }
                Err(e) if context_gone(&e) && frame == 0 && attempt == 0 => {
                    self.tab_state().slot::<TabWorlds>().top = None;
                }
                Err(e) if context_gone(&e) && frame != 0 => {
                    self.tab_state().slot::<TabWorlds>().forget_frame(frame);
                    return Err(ToolError::other(format!(
                        "frame f{frame} navigated or was removed since the snapshot, so its refs \
                             are stale. Call browser_snapshot again"
                    )));
                }
                Err(e) => return Err(e),
            }
        }
        Err(ToolError::other(
            "the page changed documents twice while tabwire read it; try again".into(),
        ))
    }

    /// [`Self::engine_call`] by value, parsed into `T` (None for null).
    pub async fn engine_value<T: serde::de::DeserializeOwned>(
        &self,
        frame: u32,
        method: &str,
        args: &str,
    ) -> Result<Option<T>, ToolError> {
        let v = self.engine_call(frame, method, args, true).await?;
        parse_value(method, &v["result"]["value"])
    }

    /// The top document's world: the known one, or (when the document is
    /// new, or `fresh`) one made now.
    async fn top_world(&self, fresh: bool) -> Result<(i64, bool), ToolError> {
        let doc = self.doc().await?;
        if !fresh {
            if let Some(w) = &self.tab_state().slot::<TabWorlds>().top {
                if w.loader_id == doc.loader_id {
                    return Ok((w.context_id, w.installed));
                }
            }
        }
        // The browser announced the new document's world (the tab setup
        // has it made with every document): no round trip to find it.
        let announced = (!fresh)
            .then(|| self.tab_state().events.engine_world(&doc.loader_id))
            .flatten();
        let context_id = match announced {
            Some(id) => id,
            None => self.make_world(None, &doc.frame_id).await?,
        };
        let mut state = self.tab_state();
        let worlds = &mut state.slot::<TabWorlds>();
        // A new top document: the frames of the old one are gone (their
        // numbers are not reused, so their refs stay refused).
        if worlds
            .top
            .as_ref()
            .is_some_and(|w| w.loader_id != doc.loader_id)
        {
            worlds.frames.clear();
        }
        // A new document's world has the engine already (the tab setup
        // registers it for new documents; engine_call installs it where
        // that was too late). The same document's world again keeps what
        // it had.
        let installed = worlds.top.as_ref().is_none_or(|w| {
            w.loader_id != doc.loader_id || (w.context_id == context_id && w.installed)
        });
        worlds.top = Some(World {
            loader_id: doc.loader_id,
            context_id,
            installed,
        });
        Ok((context_id, installed))
    }

    fn set_installed(&self, frame: u32, installed: bool) {
        let mut state = self.tab_state();
        let worlds = &mut state.slot::<TabWorlds>();
        if frame == 0 {
            if let Some(w) = worlds.top.as_mut() {
                w.installed = installed;
            }
        } else if let Some(w) = worlds.frames.get_mut(&frame) {
            w.installed = installed;
        }
    }

    /// Creates (or finds: the browser keeps one per document and name)
    /// the engine's isolated world in `frame_id` (through the child
    /// `session` of an out-of-process frame); its context id.
    pub(in crate::page) async fn make_world(
        &self,
        session: Option<&str>,
        frame_id: &str,
    ) -> Result<i64, ToolError> {
        let r = self
            .cdp_in(
                session,
                "Page.createIsolatedWorld",
                json!({"frameId": frame_id, "worldName": engine::WORLD}),
            )
            .await?;
        r["executionContextId"].as_i64().ok_or_else(|| {
            ToolError::other("the browser made no isolated world for the page".into())
        })
    }

    /// The checks a ref passes before the engine is asked for it.
    pub(in crate::page) async fn check_ref(&self, target: &str, r: &Ref) -> Result<(), ToolError> {
        let tab = self.id();
        let Some(mark) = self.client().last_snapshot() else {
            return Err(ToolError::new(
                    ErrorKind::StaleRef,
                    format!(
                    "ref {target} is unknown: no snapshot has been taken yet. Call browser_snapshot \
                     and use a ref from it"
                ),
                ));
        };
        if mark.tab != tab {
            return Err(ToolError::new(
                ErrorKind::StaleRef,
                format!(
                    "ref {target} comes from a snapshot of another tab. Call browser_snapshot on \
                     the current tab and use a ref from it"
                ),
            ));
        }
        if self.loader_id().await? != mark.loader_id {
            return Err(ToolError::new(
                ErrorKind::StaleRef,
                format!(
                    "ref {target} is stale: the page navigated since the snapshot. Call \
                     browser_snapshot again and use the new refs"
                ),
            ));
        }
        if !mark.has(r) {
            return Err(ToolError::new(
                ErrorKind::StaleRef,
                if mark.had_before(r) {
                    format!(
                        "ref {target} is stale: it belongs to the page before the last \
                         navigation. Use refs from the latest snapshot"
                    )
                } else {
                    format!(
                        "ref {target} is not in any snapshot of this page. Call \
                         browser_snapshot and use a ref from it"
                    )
                },
            ));
        }
        Ok(())
    }
}
