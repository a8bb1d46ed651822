//! Wire envelopes shared by `serve`, `native-host` and the extension.
//!
//! The JavaScript mirror of this file is `extension/protocol.js`; change both
//! together and bump [`PROTOCOL_VERSION`].
//!
//! ```text
//! serve ⇄ host (socket frames, u32-LE):
//!   host → serve, first frame   {"type":"host-hello","v":1,"origin":"chrome-extension://…/","pid":123}
//!   doctor → serve, first frame {"type":"status-query","v":1}
//!   serve → doctor, one frame   {"type":"status","v":1,"pid":…,"client":"…","hosts":1,"extension":{…}|null}, then close
//!   serve → ext  request        {"id":7,"method":"cdp.send","params":{…}}
//!   ext → serve  response       {"id":7,"result":…,"ms":1.2} | {"id":7,"error":{"code":"…","message":"…"}}
//!   ext → serve  event          {"event":"cdp","tabId":3,"method":"Page.loadEventFired","params":{…}}
//!   ext → serve  control event  {"event":"control","stopped":null|{"scope":"all"|"client","cause":"canceled_by_user"|"popup","since":…}}
//!   ext → serve  waiting event  {"event":"waiting","waiting":"the user to allow example.com"|null}
//!
//! serve → host wake (a host's own socket, host-<pid>.wake): connect, then
//! close; no bytes. The host lists the runtime directory for new serves.
//!
//! host ⇄ extension (native messaging, u32 native-endian), every message tagged
//! with the host's connection number `c` for one serve:
//!   {"c":4,"m":<serve message, passed through unparsed>}
//!   {"c":4,"chunk":{"id":9,"i":0,"n":3,"data":"<slice of the message text>"}}   host → ext only
//!   {"c":4,"gone":true}                                                           host → ext: serve left
//! ```
//!
//! The first request a serve sends on a new host connection is `hello`; its
//! answer proves the extension is alive and speaks this version, and (from
//! extensions that send it, when the client is not stopped) lists the
//! client's tabs as `tabs.list` would, so a new serve's first tool needs no
//! list of its own.
//!
//! `cdp` events are a driven tab's CDP events, less those no serve reads:
//! the extension drops `Network.requestServedFromCache`, the `…ExtraInfo`
//! pair, `Network.resourceChangedPriority`, and `Network.dataReceived`
//! except for `text/event-stream` responses (extension/relay.js,
//! `unread`).

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;

/// Bumped on any incompatible change to the envelopes or extension methods.
pub const PROTOCOL_VERSION: u32 = 1;

/// Name of the native-messaging host (the manifest file is `<name>.json`).
pub const HOST_NAME: &str = "com.tabwire.host";

/// ID of the tabwire extension, fixed by the `key` in `extension/manifest.json`.
pub const EXTENSION_ID: &str = "ebbhhpakakegkmbpbfbllokdfijmbljf";

/// The origin Chrome passes to the host and lists in `allowed_origins`.
pub fn extension_origin() -> String {
    format!("chrome-extension://{EXTENSION_ID}/")
}

/// The ID a web store assigned to tabwire's store build, given at build
/// time (`TABWIRE_STORE_EXTENSION_ID=… cargo build`). The store build has
/// no `key`, so it gets the store's ID instead of [`EXTENSION_ID`]; the host
/// accepts both and the manifest lists both. Unset: only the pinned ID.
pub const STORE_EXTENSION_ID: Option<&str> = match option_env!("TABWIRE_STORE_EXTENSION_ID") {
    Some(id) if !id.is_empty() => Some(id),
    _ => None,
};

// A mistyped store ID would build a host no browser can reach: refuse it
// at compile time.
const _: () = {
    if let Some(id) = STORE_EXTENSION_ID {
        assert!(
            is_extension_id(id),
            "TABWIRE_STORE_EXTENSION_ID must be 32 letters a-p (a Chrome extension ID)"
        );
    }
};

/// True for a Chrome extension ID: 32 characters `a`–`p`.
pub const fn is_extension_id(id: &str) -> bool {
    let b = id.as_bytes();
    if b.len() != 32 {
        return false;
    }
    let mut i = 0;
    while i < b.len() {
        if b[i] < b'a' || b[i] > b'p' {
            return false;
        }
        i += 1;
    }
    true
}

/// Every origin the host serves, the pinned development ID first, then the
/// store ID when one was given at build time.
pub fn extension_origins() -> Vec<String> {
    let mut out = vec![extension_origin()];
    if let Some(id) = STORE_EXTENSION_ID {
        out.push(format!("chrome-extension://{id}/"));
    }
    out
}

/// Extension methods a serve may call (mirrored in `extension/protocol.js`).
pub mod method {
    pub const HELLO: &str = "hello";
    pub const TABS_LIST: &str = "tabs.list";
    pub const TABS_CREATE: &str = "tabs.create";
    pub const TABS_CLOSE: &str = "tabs.close";
    pub const TABS_SELECT: &str = "tabs.select";
    pub const CDP_SEND: &str = "cdp.send";
    /// Several CDP commands for one tab, run in order in one message
    /// (`{tabId, commands: [{method, params}]}` → `{results: [...]}`).
    /// A tab's setup is keyed per debugger session: `"ask": key` adds
    /// `"setUp": true|false` to the answer (did this session run the setup
    /// `key` before these commands?), `"mark": key` records that these
    /// commands are it. Both optional: an extension without them answers
    /// with no `setUp`, and the serve then sends the whole setup.
    pub const CDP_BATCH: &str = "cdp.batch";
    /// Fire-and-forget: a tool call finished (the popup lists recent ones).
    pub const NOTE: &str = "note";
}

/// In a `cdp.batch`, a command's `frameId` of this value stands for the
/// top frame's id from a `Page.getFrameTree` answered earlier in the same
/// batch (a new serve learns the document and makes the engine's world in
/// one message). Mirrored in `extension/protocol.js`.
pub const MAIN_FRAME: &str = "$mainFrame";

/// In a `cdp.batch`, a command's `objectId` of this value stands for the
/// handle (`result.objectId`) the batch's first `Runtime.evaluate`
/// answered (none when that evaluate threw: its result is then the error):
/// an action resolves its target and aims at it in one message.
/// Mirrored in `extension/protocol.js`.
pub const EARLIER_HANDLE: &str = "$handle";

/// Error codes the extension answers with (mirrored in `extension/protocol.js`).
pub mod error_code {
    /// The user stopped browser control (Cancel on the browser's debugging
    /// bar, or Stop in the popup); only the user can resume it.
    pub const STOPPED_BY_USER: &str = "stopped_by_user";
    /// The user said no to a site for this client, or did not answer in time.
    pub const SITE_DENIED: &str = "site_denied";
}

/// The user's stop of a client, as the extension reports it in `hello`'s
/// answer and in `control` events (absent or null: the client may run).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct UserStop {
    /// `all` (Cancel on the bar, Stop all) or `client` (Stop for this one).
    pub scope: String,
    /// `canceled_by_user` (the bar's Cancel) or `popup`.
    pub cause: String,
}

impl UserStop {
    pub const CANCELED_BY_USER: &'static str = "canceled_by_user";

    /// What the user did, in words.
    pub fn how(&self) -> &'static str {
        if self.cause == Self::CANCELED_BY_USER {
            "they clicked Cancel on the browser's \"tabwire started debugging this browser\" bar"
        } else if self.scope == "all" {
            "they pressed Stop all in tabwire's popup"
        } else {
            "they pressed Stop for this client in tabwire's popup"
        }
    }

    /// The error a tool call gets while stopped.
    pub fn message(&self) -> String {
        format!(
            "browser control was stopped by the user ({}). Only the user can resume it, from \
             the tabwire extension's popup (its toolbar button, then Resume). Do not retry: \
             tell the user you are waiting for them to resume.",
            self.how()
        )
    }
}

/// First frame the host sends on a serve socket.
#[derive(Debug, Serialize, Deserialize, PartialEq)]
pub struct HostHello {
    #[serde(rename = "type")]
    pub kind: String,
    pub v: u32,
    pub origin: String,
    pub pid: u32,
}

impl HostHello {
    pub const KIND: &'static str = "host-hello";

    pub fn new(origin: &str) -> Self {
        Self {
            kind: Self::KIND.into(),
            v: PROTOCOL_VERSION,
            origin: origin.into(),
            pid: std::process::id(),
        }
    }
}

/// Just the `type` of a socket's first frame, to tell a native host from a
/// status client.
#[derive(Debug, Deserialize)]
pub struct FirstFrame {
    #[serde(rename = "type")]
    pub kind: String,
}

/// First (and only) frame `tabwire doctor` sends on a serve socket.
#[derive(Debug, Serialize, Deserialize, PartialEq)]
pub struct StatusQuery {
    #[serde(rename = "type")]
    pub kind: String,
    pub v: u32,
}

impl StatusQuery {
    pub const KIND: &'static str = "status-query";

    pub fn new() -> Self {
        Self {
            kind: Self::KIND.into(),
            v: PROTOCOL_VERSION,
        }
    }
}

impl Default for StatusQuery {
    fn default() -> Self {
        Self::new()
    }
}

/// A serve's answer to [`StatusQuery`]; the connection closes after it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ServeStatus {
    #[serde(rename = "type")]
    pub kind: String,
    /// The serve's protocol version.
    pub v: u32,
    pub pid: u32,
    /// tabwire version of the serve binary.
    pub version: String,
    /// The MCP client's name, once it has said hello.
    pub client: Option<String>,
    /// Native hosts connected to this serve (answered or not).
    pub hosts: u32,
    /// The extension behind the first connected browser, if one answered.
    pub extension: Option<ExtensionInfo>,
    /// Every connected browser (one native host each), in connection order.
    #[serde(default)]
    pub browsers: Vec<BrowserInfo>,
}

/// One browser (or profile) whose extension is connected to a serve.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct BrowserInfo {
    /// The browser's tabwire name, e.g. "Chromium (kfad)" or "Work Chrome".
    pub name: String,
    /// The extension's version.
    pub version: String,
    /// The browser product, e.g. "Chromium 156.0.7000.0", when known.
    pub browser: Option<String>,
    /// The native host process relaying for it.
    pub host_pid: u32,
    /// How many tabs this serve's client has there (None: did not answer).
    pub tabs: Option<usize>,
    /// True when the user marked it "Agents open new tabs here".
    #[serde(default)]
    pub new_tabs_here: bool,
    /// The user's stop of this client there, if any.
    #[serde(default)]
    pub stopped: bool,
}

impl ServeStatus {
    pub const KIND: &'static str = "status";
}

/// What the extension told a serve about itself in its `hello` answer.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ExtensionInfo {
    /// The extension's version (its manifest's `version`).
    pub version: String,
    /// The browser it runs in, e.g. "Chromium 156.0.7000.0", when known.
    pub browser: Option<String>,
    /// The native host process relaying for it.
    pub host_pid: u32,
}

/// A request from a serve to the extension.
#[derive(Debug, Serialize, Deserialize)]
pub struct Request {
    pub id: u64,
    pub method: String,
    pub params: Value,
}

/// An error the extension reports for a request.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RemoteError {
    /// Short machine-readable kind, e.g. `no_such_tab`, `debugger_busy`, `cdp`.
    #[serde(default)]
    pub code: String,
    pub message: String,
}

/// Anything the extension sends to one serve: a response or an event.
#[derive(Debug, Deserialize)]
pub struct Incoming {
    pub id: Option<u64>,
    /// Kept as text: the caller parses it into what it needs.
    pub result: Option<Box<RawValue>>,
    pub error: Option<RemoteError>,
    pub event: Option<String>,
    #[serde(rename = "tabId")]
    pub tab_id: Option<i64>,
    pub method: Option<String>,
    pub params: Option<Value>,
    pub reason: Option<String>,
    /// A CDP event from a tab's child session (an out-of-process frame).
    #[serde(rename = "sessionId")]
    pub session_id: Option<String>,
    /// For `control` events: the client's stop, or None when it may run.
    pub stopped: Option<UserStop>,
    /// For `waiting` events: what the extension waits for (the user's
    /// answer about a site), or None when it no longer waits.
    pub waiting: Option<String>,
    /// For responses: the milliseconds the extension spent on the request
    /// itself (the rest of a call's time is the relay's).
    pub ms: Option<f64>,
}

/// The host's view of a message from the extension: only the routing tag is
/// parsed; the payload stays raw text and is forwarded byte for byte.
#[derive(Debug, Deserialize)]
pub struct FromExtension<'a> {
    pub c: Option<u64>,
    #[serde(borrow)]
    pub m: Option<&'a RawValue>,
}

/// Builds `{"c":<c>,"m":<raw>}` without re-serializing the payload.
pub fn wrap_for_extension(c: u64, raw: &RawValue) -> Vec<u8> {
    let raw = raw.get();
    let mut out = Vec::with_capacity(raw.len() + 24);
    out.extend_from_slice(format!("{{\"c\":{c},\"m\":").as_bytes());
    out.extend_from_slice(raw.as_bytes());
    out.push(b'}');
    out
}

/// Tells the extension that the serve behind connection `c` went away.
pub fn gone_message(c: u64) -> Vec<u8> {
    format!("{{\"c\":{c},\"gone\":true}}").into_bytes()
}

/// Splits a message that would exceed Chrome's 1 MiB host → extension cap
/// into chunk messages. Every chunk carries a slice of the message *text*
/// as a JSON string; the extension joins the slices and parses the result.
pub fn chunk_for_extension(c: u64, chunk_id: u64, raw: &RawValue, limit: usize) -> Vec<Vec<u8>> {
    let text = raw.get();
    // Escaping at most doubles a slice of valid JSON text (quotes and
    // backslashes; control characters are already escaped), so a quarter of
    // the limit leaves ample room for the envelope.
    let slice_max = (limit / 4).max(4);
    let mut slices = Vec::new();
    let mut start = 0;
    while start < text.len() {
        let slice = crate::text::head(&text[start..], slice_max);
        slices.push(slice);
        start += slice.len();
    }
    let n = slices.len();
    slices
        .into_iter()
        .enumerate()
        .map(|(i, data)| {
            serde_json::to_vec(&serde_json::json!({
                "c": c,
                "chunk": {"id": chunk_id, "i": i, "n": n, "data": data}
            }))
            .expect("serializing a string cannot fail")
        })
        .collect()
}

/// Whether an event from an out-of-process frame's session goes to the
/// tab's events: frames attaching and detaching (frames inside frames), and
/// the frame's page tools (WebMCP events carry the frame's id). Its other
/// events (navigation, dialogs, console) are the top frame's business and
/// are not.
pub fn child_event_kept(method: &str) -> bool {
    method.starts_with("Target.") || method.starts_with("WebMCP.")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_passes_payload_through_verbatim() {
        let raw: Box<RawValue> = serde_json::from_str(r#"{"id":1, "x":"é"}"#).unwrap();
        let out = wrap_for_extension(7, &raw);
        assert_eq!(
            std::str::from_utf8(&out).unwrap(),
            r#"{"c":7,"m":{"id":1, "x":"é"}}"#
        );
        let back: FromExtension = serde_json::from_slice(&out).unwrap();
        assert_eq!(back.c, Some(7));
        assert_eq!(back.m.unwrap().get(), raw.get());
    }

    #[test]
    fn chunks_stay_under_limit_and_reassemble() {
        let big = format!(r#"{{"id":1,"s":"{}","q":"\"\\ü"}}"#, "ab\\\"".repeat(5000));
        let raw: Box<RawValue> = serde_json::from_str(&big).unwrap();
        let limit = 4096;
        let chunks = chunk_for_extension(3, 42, &raw, limit);
        assert!(chunks.len() > 1);
        let mut joined = String::new();
        for (i, ch) in chunks.iter().enumerate() {
            assert!(ch.len() <= limit, "chunk {i} is {} bytes", ch.len());
            let v: Value = serde_json::from_slice(ch).unwrap();
            assert_eq!(v["c"], 3);
            assert_eq!(v["chunk"]["i"], i);
            assert_eq!(v["chunk"]["n"], chunks.len());
            joined.push_str(v["chunk"]["data"].as_str().unwrap());
        }
        assert_eq!(joined, big);
    }

    /// The pinned ID must be the one Chrome derives from the manifest key:
    /// the first 32 hex digits of SHA-256(public key DER), mapped 0-f → a-p.
    #[test]
    fn extension_id_matches_the_manifest_key() {
        use base64::Engine as _;
        use sha2::Digest as _;
        let manifest: Value =
            serde_json::from_str(include_str!("../extension/manifest.json")).unwrap();
        let der = base64::engine::general_purpose::STANDARD
            .decode(manifest["key"].as_str().unwrap())
            .unwrap();
        let digest = sha2::Sha256::digest(&der);
        let id: String = digest[..16]
            .iter()
            .flat_map(|b| [b >> 4, b & 0xf])
            .map(|nibble| (b'a' + nibble) as char)
            .collect();
        assert_eq!(id, EXTENSION_ID);
    }

    /// Random bytes as an extension message: the host's routing parse
    /// either succeeds or fails cleanly, and a successful parse's payload is
    /// valid JSON that wraps back losslessly.
    #[test]
    fn random_envelopes_never_panic() {
        let mut x: u64 = 7;
        let alphabet = br#"{}[]":,c m 0123456789truefalsnul\"ab"#;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let len = (x % 40) as usize;
            let mut y = x;
            let bytes: Vec<u8> = (0..len)
                .map(|_| {
                    y = y.wrapping_mul(6364136223846793005).wrapping_add(1);
                    alphabet[(y >> 33) as usize % alphabet.len()]
                })
                .collect();
            if let Ok(env) = serde_json::from_slice::<FromExtension>(&bytes) {
                if let (Some(c), Some(m)) = (env.c, env.m) {
                    let wrapped = wrap_for_extension(c, m);
                    let back: FromExtension = serde_json::from_slice(&wrapped).unwrap();
                    assert_eq!(back.m.unwrap().get(), m.get());
                }
            }
            let _ = serde_json::from_slice::<Incoming>(&bytes);
            let _ = serde_json::from_slice::<HostHello>(&bytes);
        }
    }

    #[test]
    fn status_query_and_reply_round_trip() {
        let q = serde_json::to_value(StatusQuery::new()).unwrap();
        assert_eq!(
            q,
            serde_json::json!({"type": "status-query", "v": PROTOCOL_VERSION})
        );
        let first: FirstFrame = serde_json::from_value(q).unwrap();
        assert_eq!(first.kind, StatusQuery::KIND);
        let hello: FirstFrame =
            serde_json::from_slice(&serde_json::to_vec(&HostHello::new("x")).unwrap()).unwrap();
        assert_eq!(hello.kind, HostHello::KIND);
        let reply = ServeStatus {
            kind: ServeStatus::KIND.into(),
            v: 1,
            pid: 7,
            version: "0.1.0".into(),
            client: Some("Claude Code".into()),
            hosts: 1,
            extension: Some(ExtensionInfo {
                version: "0.1.0".into(),
                browser: Some("Chromium 156".into()),
                host_pid: 9,
            }),
            browsers: vec![BrowserInfo {
                name: "Work Chrome".into(),
                version: "0.1.0".into(),
                browser: Some("Chromium 156".into()),
                host_pid: 9,
                tabs: Some(2),
                new_tabs_here: true,
                stopped: false,
            }],
        };
        let back: ServeStatus =
            serde_json::from_slice(&serde_json::to_vec(&reply).unwrap()).unwrap();
        assert_eq!(back, reply);
    }

    #[test]
    fn control_events_parse_with_and_without_a_stop() {
        let on: Incoming = serde_json::from_str(
            r#"{"event":"control","stopped":{"scope":"all","cause":"canceled_by_user","since":1}}"#,
        )
        .unwrap();
        let stop = on.stopped.unwrap();
        assert_eq!(stop.scope, "all");
        assert!(stop.message().contains("stopped by the user"));
        assert!(stop.message().contains("Cancel"));
        let off: Incoming = serde_json::from_str(r#"{"event":"control","stopped":null}"#).unwrap();
        assert_eq!(off.event.as_deref(), Some("control"));
        assert!(off.stopped.is_none());
    }

    #[test]
    fn the_stop_code_matches_the_extension() {
        let js = include_str!("../extension/protocol.js");
        assert!(js.contains(&format!("STOPPED: \"{}\"", error_code::STOPPED_BY_USER)));
        assert!(js.contains(&format!("MAIN_FRAME = \"{MAIN_FRAME}\"")));
        assert!(js.contains(&format!("EARLIER_HANDLE = \"{EARLIER_HANDLE}\"")));
    }

    #[test]
    fn extension_ids_are_32_letters_a_to_p() {
        assert!(is_extension_id(EXTENSION_ID));
        assert!(!is_extension_id("ebbhhpakakegkmbpbfbllokdfijmblj"));
        assert!(!is_extension_id("ebbhhpakakegkmbpbfbllokdfijmbljz"));
        assert!(!is_extension_id("EBBHHPAKAKEGKMBPBFBLLOKDFIJMBLJF"));
        assert_eq!(extension_origins()[0], extension_origin());
        assert_eq!(
            extension_origins().len(),
            1 + usize::from(STORE_EXTENSION_ID.is_some())
        );
    }

    #[test]
    fn origin_names_the_pinned_extension() {
        assert_eq!(
            extension_origin(),
            "chrome-extension://ebbhhpakakegkmbpbfbllokdfijmbljf/"
        );
    }
}
