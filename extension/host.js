// The connection to the native host, and the registry of the servers it
// carries: which connection is which server, each server's record and
// tabs, the tabs attached, the requests in flight. The other modules read
// and change this state and send to servers through `post`; what the host
// sends goes to the entry point (background.js, see startHost).

import { HOST_NAME } from "./protocol.js";

let port = null;
let backoffMs = 250;
let retryTimer = null;
// What the popup shows about the native host: connecting | connected | disconnected.
export const host = { state: "connecting", error: null, since: Date.now() };

export const serverOfConn = new Map(); // c -> server id
export const servers = new Map();      // server id -> {name, windowId, groupId, tabs:Set, sharedGroups:Map}
export const ownerOfTab = new Map();   // tabId -> server id
export const sharedTabs = new Map();   // tabId -> {grouped} for tabs the user shared
export const attached = new Map();     // tabId -> Promise of attach
export const chunks = new Map();       // `${c}/${id}` -> [parts]
export const inFlight = new Map();     // `${c}/${id}` -> {c, method, abort(error)} for requests being handled

export class RelayError extends Error {
  constructor(code, message) { super(message); this.code = code; }
}

// What "Allow once" allowed, per server (consent.js): kept here, as it is
// forgotten with its server (dropIfIdle).
export const onceSites = new Map();    // server id -> Set(site)

// Where every message from the host goes (see startHost).
let deliver = () => {};

function setHost(state, error = null) {
  if (host.state !== state || host.error !== error) host.since = Date.now();
  host.state = state;
  host.error = error;
}

function connect() {
  retryTimer = null;
  setHost("connecting");
  const me = chrome.runtime.connectNative(HOST_NAME);
  port = me;
  me.onMessage.addListener(onHostMessage);
  // A missing or broken host disconnects at once; one still open after a
  // moment has started.
  setTimeout(() => { if (port === me && host.state === "connecting") setHost("connected"); }, 700);
  me.onDisconnect.addListener(() => {
    const why = chrome.runtime.lastError?.message ?? "closed";
    console.warn(`tabwire: native host disconnected (${why}); retrying in ${backoffMs} ms`);
    if (port !== me) return;
    port = null;
    setHost("disconnected", why);
    serverOfConn.clear();
    chunks.clear();
    retryTimer = setTimeout(connect, backoffMs);
    backoffMs = Math.min(backoffMs * 2, 10000);
  });
}

export function reconnectNow() {
  if (port) return;
  if (retryTimer) clearTimeout(retryTimer);
  backoffMs = 250;
  connect();
}

export function post(c, m) {
  if (!port) return;
  try {
    port.postMessage({ c, m });
  } catch (e) {
    console.error("tabwire: could not send to host", e);
  }
}

function onHostMessage(msg) {
  backoffMs = 250; // the host is alive
  setHost("connected");
  deliver(msg);
}

// Connects to the native host; `onMessage(msg)` gets every message it sends.
export function startHost(onMessage) {
  deliver = onMessage;
  connect();
}

// Whether a connection to the host is open or opening.
export function hasPort() {
  return !!port;
}

// Every serve process is a client of its own (its id names the process),
// so the worker forgets one that is gone and holds no tab: a browser that
// runs for weeks does not keep a record per client it ever served. (A
// client that connects again says hello again; a user's stop is kept in
// storage, not here.)
export function dropIfIdle(server) {
  const s = server && servers.get(server);
  if (!s || s.tabs.size > 0 || connsOf(server).length > 0) return;
  servers.delete(server);
  onceSites.delete(server);
}

export function connsOf(server) {
  return [...serverOfConn].filter(([, s]) => s === server).map(([c]) => c);
}
