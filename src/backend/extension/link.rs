//! One native host's link: the accept loop, the handshake (`host-hello`,
//! then our `hello` to the extension), and the frames in and out until the
//! connection closes; [`dispatch`] routes each message that comes in.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::value::RawValue;
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

use super::hello::{HelloTabs, Ident};
use super::Inner;
use crate::backend::TabEvent;
use crate::broker::{self, ServeSocket};
use crate::protocol::{self, method, FirstFrame, HostHello, Incoming, RemoteError, StatusQuery};
use crate::wire::{self, FrameReader, Framing};

type Pending = Mutex<HashMap<u64, oneshot::Sender<Result<Box<RawValue>, RemoteError>>>>;

/// One native-host connection: one browser (or profile).
pub(super) struct Link {
    pub(super) tx: mpsc::Sender<Vec<u8>>,
    pub(super) host_pid: u32,
    pub(super) pending: Pending,
    /// Ids of hello requests in flight: their answers name the browser.
    pub(super) hello_ids: Mutex<HashSet<u64>>,
    /// Set from the first hello answer, before any event is routed.
    pub(super) ident: Mutex<Option<Ident>>,
    /// This client's tabs as the hello answer listed them, for the first
    /// tab lookup right after it.
    pub(super) hello_tabs: HelloTabs,
    pub(super) closed: AtomicBool,
}

impl Link {
    fn fail_all(&self, why: &str) {
        self.closed.store(true, Ordering::SeqCst);
        for (_, waiter) in self.pending.lock().expect("pending lock").drain() {
            let _ = waiter.send(Err(RemoteError {
                code: "disconnected".into(),
                message: why.into(),
            }));
        }
    }

    pub(super) fn ident(&self) -> Option<Ident> {
        self.ident.lock().expect("ident lock").clone()
    }

    pub(super) fn browser_id(&self) -> Option<String> {
        self.ident().map(|i| i.browser_id)
    }

    pub(super) fn name(&self) -> String {
        self.ident()
            .map_or_else(|| "the browser".to_string(), |i| i.name)
    }
}

pub(super) async fn accept_loop(socket: Arc<ServeSocket>, inner: Arc<Inner>) {
    use interprocess::local_socket::traits::tokio::Listener as _;
    loop {
        match socket.listener.accept().await {
            Ok(stream) => {
                let inner = inner.clone();
                tokio::spawn(async move {
                    if let Err(why) = run_link(stream, inner).await {
                        tracing::debug!(%why, "native host connection ended");
                    }
                });
            }
            Err(e) => {
                tracing::warn!(error = %e, "accept failed");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
}

/// Handshake, then pump one native-host connection until it closes.
async fn run_link(
    stream: interprocess::local_socket::tokio::Stream,
    inner: Arc<Inner>,
) -> Result<(), String> {
    broker::check_peer(&stream).map_err(|e| format!("peer refused: {e}"))?;
    let max = inner.opts.max_frame;
    // `&Stream` reads and writes: share it instead of splitting.
    let stream = Arc::new(stream);
    let mut reader = FrameReader::new(&*stream, Framing::Socket, max);

    let first = tokio::time::timeout(Duration::from_secs(5), reader.read_frame())
        .await
        .map_err(|_| "no host-hello within 5 s".to_string())?
        .map_err(|e| e.to_string())?
        .ok_or("closed before host-hello")?;
    let kind: FirstFrame =
        serde_json::from_slice(&first).map_err(|e| format!("bad first frame: {e}"))?;
    if kind.kind == StatusQuery::KIND {
        let reply = serde_json::to_vec(&inner.serve_status().await).expect("status serializes");
        wire::write_frame(&mut &*stream, &reply, Framing::Socket, max)
            .await
            .map_err(|e| format!("could not answer a status query: {e}"))?;
        return Ok(());
    }
    let hello: HostHello =
        serde_json::from_slice(&first).map_err(|e| format!("bad host-hello: {e}"))?;
    if hello.kind != HostHello::KIND || hello.v != protocol::PROTOCOL_VERSION {
        tracing::error!(
            got = hello.v,
            want = protocol::PROTOCOL_VERSION,
            "native host speaks another protocol version; run `tabwire install` again so \
             browser and server use the same tabwire"
        );
        return Err("protocol version mismatch".into());
    }
    tracing::info!(host_pid = hello.pid, "native host connected");
    inner.hosts.fetch_add(1, Ordering::SeqCst);

    let (tx, mut rx) = mpsc::channel::<Vec<u8>>(256);
    let link = Arc::new(Link {
        tx,
        host_pid: hello.pid,
        pending: Mutex::new(HashMap::new()),
        hello_ids: Mutex::new(HashSet::new()),
        ident: Mutex::new(None),
        hello_tabs: HelloTabs::default(),
        closed: AtomicBool::new(false),
    });
    let write_side = stream.clone();
    let writer = tokio::spawn(async move {
        while let Some(body) = rx.recv().await {
            if let Err(e) = wire::write_frame(&mut &*write_side, &body, Framing::Socket, max).await
            {
                tracing::info!(error = %e, "write to native host failed");
                break;
            }
        }
    });

    // Say hello to the extension in the background, so the reader below is
    // already pumping when the answer arrives.
    let greeter = {
        let inner = inner.clone();
        let link = link.clone();
        tokio::spawn(async move {
            let params = inner.hello_params();
            match inner.request(&link, method::HELLO, params.clone()).await {
                Ok(info) => {
                    // Who the browser is was read from this answer as it
                    // arrived (see dispatch), before any of its events.
                    tracing::info!(extension = %info, browser = %link.name(), "extension answered hello");
                    inner.links.lock().expect("links lock").push(link.clone());
                    inner.recompute_stop();
                    inner.link_added.notify_waiters();
                    // The client's name may have arrived while we waited.
                    let now = inner.hello_params();
                    if now != params {
                        let _ = inner.request(&link, method::HELLO, now).await;
                    }
                }
                Err(e) => tracing::warn!(error = %e, "extension did not answer hello"),
            }
        })
    };

    let end = loop {
        match reader.read_frame().await {
            Ok(Some(msg)) => dispatch(&msg, &link, &inner),
            Ok(None) => break "native host disconnected".to_string(),
            Err(e) => break format!("bad frame from native host: {e}"),
        }
    };
    tracing::info!(reason = %end, "native host link closed");
    inner.hosts.fetch_sub(1, Ordering::SeqCst);
    greeter.abort();
    writer.abort();
    link.fail_all(&format!(
        "{end}; the browser or its extension went away. Retry; if it persists, check that Chrome is running"
    ));
    inner
        .links
        .lock()
        .expect("links lock")
        .retain(|l| !Arc::ptr_eq(l, &link));
    inner.recompute_stop();
    Ok(())
}

/// Routes one message from the extension: a response or an event.
fn dispatch(msg: &[u8], link: &Link, inner: &Inner) {
    let inc: Incoming = match serde_json::from_slice(msg) {
        Ok(m) => m,
        Err(e) => {
            tracing::warn!(error = %e, "ignoring malformed message from the extension");
            return;
        }
    };
    if let Some(id) = inc.id {
        let hello = link.hello_ids.lock().expect("hello lock").remove(&id);
        if hello && inc.error.is_none() {
            if let Some(info) = inc
                .result
                .as_ref()
                .and_then(|r| serde_json::from_str::<Value>(r.get()).ok())
            {
                inner.adopt_hello(link, &info);
            }
        }
        if let Some(ms) = inc.ms {
            tracing::debug!(target: "tabwire::relay", id, ms, "inside the extension");
        }
        let waiter = link.pending.lock().expect("pending lock").remove(&id);
        if let Some(waiter) = waiter {
            let outcome = match inc.error {
                Some(e) => Err(e),
                None => Ok(inc.result.unwrap_or_else(|| RawValue::NULL.to_owned())),
            };
            let _ = waiter.send(outcome);
        }
        return;
    }
    let Some(ident) = link.ident() else {
        // Nothing is routed before the extension said who it is.
        return;
    };
    if inc.event.as_deref() == Some("control") {
        inner.set_stop(&ident.browser_id, &ident.name, inc.stopped);
        return;
    }
    if inc.event.as_deref() == Some("browser") {
        inner.adopt_browser_event(link, inc.params.as_ref().unwrap_or(&Value::Null));
        return;
    }
    if inc.event.as_deref() == Some("waiting") {
        *inner.waiting.lock().expect("waiting lock") = inc.waiting;
        return;
    }
    let (Some(kind), Some(tab)) = (inc.event.as_deref(), inc.tab_id) else {
        return;
    };
    let tab = inner
        .handles
        .lock()
        .expect("handles lock")
        .intern(&ident.browser_id, tab);
    // A child session's events (an out-of-process frame) are not the
    // tab's page events: navigation and dialogs are the top frame's.
    // Frames attaching inside a frame are let through (for frames inside
    // frames), and so are the frame's page tools (WebMCP: each carries its
    // frame's id).
    if kind == "cdp"
        && inc.session_id.is_some()
        && !crate::protocol::child_event_kept(inc.method.as_deref().unwrap_or(""))
    {
        return;
    }
    let event = match kind {
        "cdp" => TabEvent::Cdp {
            tab,
            method: inc.method.unwrap_or_default(),
            params: inc.params.unwrap_or(Value::Null),
        },
        "tabClosed" => {
            link.hello_tabs.forget();
            TabEvent::Closed { tab }
        }
        "tabOpened" => {
            link.hello_tabs.forget();
            TabEvent::Opened {
                tab,
                url: inc
                    .params
                    .as_ref()
                    .and_then(|p| p["url"].as_str())
                    .unwrap_or("")
                    .to_string(),
            }
        }
        "detached" => TabEvent::Detached {
            tab,
            reason: inc.reason.unwrap_or_default(),
        },
        _ => return,
    };
    let _ = inner.events.send(event);
}
