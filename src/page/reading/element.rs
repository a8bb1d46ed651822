//! Elements the tools act on: a ref from the latest snapshot or a CSS
//! selector resolved to a handle in the engine's world (refs of an earlier
//! document are refused with the reason).

use std::sync::Arc;

use serde_json::{json, Value};

use crate::engine::Ref;
use crate::error::{ErrorKind, ToolError};
use crate::page::tab::current::Tab;

/// An element resolved from a ref or CSS selector.
#[derive(Debug, Clone)]
pub struct Element {
    /// The browser's node id, for elements known only by it (a file
    /// chooser's input).
    pub backend_node_id: Option<i64>,
    /// A handle to the node from resolving it (in the snapshot engine's
    /// world), valid until its document goes away.
    pub object_id: Option<Arc<str>>,
    /// The snapshot frame the element is in (0: the top document).
    pub frame: u32,
    /// The child session of the out-of-process frame the element is in.
    pub session: Option<Arc<str>>,
}

impl Element {
    /// An element known only by its backend node id.
    pub fn by_node(backend_node_id: i64) -> Self {
        Self {
            backend_node_id: Some(backend_node_id),
            object_id: None,
            frame: 0,
            session: None,
        }
    }

    /// An element resolved to the handle `object_id`, in snapshot frame
    /// `frame` (reached through `session`, or the tab's own).
    fn handle(object_id: &str, frame: u32, session: Option<Arc<str>>) -> Self {
        Self {
            backend_node_id: None,
            object_id: Some(Arc::from(object_id)),
            frame,
            session,
        }
    }

    /// The element as `DOM.*` commands take it (`objectId` or
    /// `backendNodeId`), merged into `params`.
    pub fn dom_params(&self, mut params: Value) -> Value {
        match (&self.object_id, self.backend_node_id) {
            (Some(o), _) => params["objectId"] = json!(o.as_ref()),
            (None, Some(id)) => params["backendNodeId"] = json!(id),
            (None, None) => {}
        }
        params
    }
}

impl Tab {
    /// `function` (a JS function of one element, its `this`) called with
    /// `arg` on what `target` names, resolved in the same call; its value.
    /// One round trip where [`Self::element`] then [`Self::call_on`] take
    /// two; errors are those of [`Self::element`], unexplained.
    pub async fn value_at(
        &self,
        target: &str,
        function: &str,
        arg: Value,
    ) -> Result<Value, ToolError> {
        let target = target.trim();
        let frame = self.frame_of(target).await?;
        let args = format!("{}, {function}, {arg}", json!(target));
        let v = self.engine_call(frame, "at", &args, true).await?;
        Ok(v["result"]["value"].clone())
    }

    /// The frame whose engine resolves `target`: a ref's own (checked
    /// against the latest snapshot first), else the top document's.
    async fn frame_of(&self, target: &str) -> Result<u32, ToolError> {
        Ok(match Ref::parse(target) {
            Some(r) => {
                self.check_ref(target, &r).await?;
                r.frame
            }
            None => 0,
        })
    }

    /// Resolves `target`: a ref (`e12`, `f2e7`) from the latest snapshot,
    /// or a CSS selector (in the top document). Stale refs say so instead
    /// of hitting the wrong element.
    pub async fn element(&self, target: &str) -> Result<Element, ToolError> {
        let target = target.trim();
        let frame = self.frame_of(target).await?;
        let found = self
            .engine_eval(frame, "resolve", &json!(target).to_string(), false, true)
            .await;
        let found = match found {
            Ok(v) => v,
            Err(e) if e.kind() == ErrorKind::NotFound => {
                let around = self.snapshot_excerpt(12).await;
                let told = format!("{e}. Use a ref from browser_snapshot{around}");
                return Err(e.retold(told));
            }
            Err(e) => return Err(e),
        };
        let object_id = found["result"]["objectId"].as_str().ok_or_else(|| {
            ToolError::other(format!("could not resolve {target:?} to an element"))
        })?;
        Ok(Element::handle(object_id, frame, self.frame_session(frame)))
    }

    /// [`Self::element`], and `then` (commands on its handle, their
    /// `objectId` being [`crate::protocol::EARLIER_HANDLE`]) in the same
    /// message, for a selector or a ref of the top document: the element
    /// and `then`'s answers. None when that did not work in one message
    /// (a frame's ref, nothing matched, a command failed): then the caller
    /// goes step by step, which also says why.
    pub async fn element_then(
        &self,
        target: &str,
        then: Vec<(&'static str, Value)>,
    ) -> Result<Option<(Element, Vec<Value>)>, ToolError> {
        let target = target.trim();
        if self.frame_of(target).await? != 0 {
            return Ok(None);
        }
        let (resolve, installed) = self.top_resolve_request(target).await?;
        let mut commands = vec![("Runtime.evaluate", resolve)];
        commands.extend(then);
        // Only a command's own failure (nothing matched, a node without a
        // box) is left to the step-by-step path; a closed tab, a stale
        // handle or the user's stop is the answer (and some are told once).
        let Ok(mut answers) = self.cdp_batch_or_command_error(commands).await? else {
            return Ok(None);
        };
        if !installed {
            self.engine_ran();
        }
        let Some(object_id) = answers[0]["result"]["objectId"].as_str() else {
            return Ok(None);
        };
        let el = Element::handle(object_id, 0, None);
        answers.remove(0);
        Ok(Some((el, answers)))
    }

    /// `function` (a JS function of one element, its `this`) called with
    /// `arg` on what `target` names, for an action (focus a field, choose
    /// options): for most targets in one message with the resolve
    /// ([`Self::element_then`]), else step by step ([`Self::element`],
    /// [`Self::call_on`]). Unlike [`Self::value_at`] (a read after an
    /// action, which may find nothing), a wrong target gets the explained
    /// error of [`Self::element`]. The function's value.
    pub async fn call_at(
        &self,
        target: &str,
        function: &str,
        arg: Value,
    ) -> Result<Value, ToolError> {
        let call = crate::page::tab::calls::call_params(
            crate::protocol::EARLIER_HANDLE,
            function,
            arg.clone(),
        );
        if let Some((_, mut answers)) = self
            .element_then(target, vec![("Runtime.callFunctionOn", call)])
            .await?
        {
            if let Some(answer) = answers.pop() {
                return crate::page::tab::calls::page_value(answer);
            }
        }
        let el = self.element(target).await?;
        self.call_on(el, function, arg).await
    }

    /// The same element as a handle of the page's own (main) world, for
    /// code that must see the page's globals (browser_evaluate).
    pub async fn in_main_world(&self, el: Element) -> Result<Element, ToolError> {
        let Some(object_id) = &el.object_id else {
            return Ok(el);
        };
        let desc = self
            .cdp("DOM.describeNode", json!({"objectId": object_id.as_ref()}))
            .await?;
        let id = desc["node"]["backendNodeId"]
            .as_i64()
            .ok_or_else(|| ToolError::other("the element is gone from the page".into()))?;
        Ok(Element::by_node(id))
    }

    /// Calls `function` (a JS function declaration) with the element as
    /// `this` and `arg` as its argument; returns the JSON result.
    pub async fn call_on(
        &self,
        el: Element,
        function: &str,
        arg: Value,
    ) -> Result<Value, ToolError> {
        let session = el.session.as_deref();
        let resolved = el.object_id.is_none();
        let object_id = match &el.object_id {
            Some(id) => id.to_string(),
            None => {
                let node = self
                    .cdp_in(session, "DOM.resolveNode", el.dom_params(json!({})))
                    .await?;
                node["object"]["objectId"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string()
            }
        };
        let r = self
            .cdp_in(
                session,
                "Runtime.callFunctionOn",
                crate::page::tab::calls::call_params(&object_id, function, arg),
            )
            .await;
        // A handle made for this call only: the browser would keep it (and
        // the element) for the document's life.
        if resolved {
            let _ = self
                .cdp_in(
                    session,
                    "Runtime.releaseObject",
                    json!({"objectId": object_id}),
                )
                .await;
        }
        crate::page::tab::calls::page_value(r?)
    }
}
