// tabwire service worker: relays between the native host and chrome.debugger.
//
// Each tabwire server (one per MCP client) reaches us through the native host
// as a connection number `c`. Its `hello` names a stable server id, which
// owns tabs: a server sees and drives only the tabs it opened, grouped under
// its client's name. All tool logic lives in Rust; this file only relays.
//
// The popup (popup.html / options.html) asks for the connection state and
// lets the user share one of their own tabs with a chosen client, or stop
// sharing it. A tab nobody shared stays invisible to every client.

import { PROTOCOL_VERSION, HOST_NAME, METHOD, ERROR, MAIN_FRAME, EARLIER_HANDLE } from "./protocol.js";
import { blockedBy, LEAVING } from "./policy.js";
import { siteOf } from "./sites.js";
import { cancelDownload, claimDownload, handDownloadsToServers } from "./downloads.js";

const VERSION = chrome.runtime.getManifest().version;
// Changes whenever this worker starts: tab ownership lives in its memory, so
// a server that sees a new instance knows its old tab handles are gone.
const INSTANCE = crypto.randomUUID();
const OWN_ORIGIN = chrome.runtime.getURL("");

let port = null;
let backoffMs = 250;
let retryTimer = null;
// What the popup shows about the native host: connecting | connected | disconnected.
const host = { state: "connecting", error: null, since: Date.now() };

const serverOfConn = new Map(); // c -> server id
const servers = new Map();      // server id -> {name, windowId, groupId, tabs:Set, sharedGroups:Map}
const ownerOfTab = new Map();   // tabId -> server id
const sharedTabs = new Map();   // tabId -> {grouped} for tabs the user shared
const attached = new Map();     // tabId -> Promise of attach
// The setup a server ran in a tab's debugger session (domains enabled,
// scripts for new documents), by the key it gave: keyed by the attach, so
// a new session starts with none. The next serve of a `tabwire call`
// script finds the tab ready and sends nothing twice. (Fetch is not part
// of it: it is disabled when a server leaves, and sent every time.)
const setupOf = new WeakMap();  // Promise of attach -> setup key
const chunks = new Map();       // `${c}/${id}` -> [parts]
const inFlight = new Map();     // `${c}/${id}` -> {c, method, abort(error)} for requests being handled

class RelayError extends Error {
  constructor(code, message) { super(message); this.code = code; }
}

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

function reconnectNow() {
  if (port) return;
  if (retryTimer) clearTimeout(retryTimer);
  backoffMs = 250;
  connect();
}

function post(c, m) {
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
  const c = msg.c;
  if (msg.gone) {
    const server = serverOfConn.get(c);
    serverOfConn.delete(c);
    // Pieces of a message it never finished.
    for (const key of chunks.keys()) if (key.startsWith(`${c}/`)) chunks.delete(key);
    // Its tabs' pages load without pausing for it any more.
    if (server && connsOf(server).length === 0) {
      for (const tabId of attached.keys()) {
        if (ownerOfTab.get(tabId) !== server) continue;
        heldTabs.delete(tabId);
        chrome.debugger.sendCommand({ tabId }, "Fetch.disable").catch(() => {});
      }
    }
    dropIfIdle(server);
    return;
  }
  if (msg.chunk) {
    const { id, i, n, data } = msg.chunk;
    const key = `${c}/${id}`;
    const parts = chunks.get(key) ?? [];
    parts[i] = data;
    chunks.set(key, parts);
    if (parts.filter((p) => p !== undefined).length === n) {
      chunks.delete(key);
      let whole;
      try { whole = JSON.parse(parts.join("")); } catch { return; }
      handleRequest(c, whole);
    }
    return;
  }
  if (msg.m) handleRequest(c, msg.m);
}

async function handleRequest(c, req) {
  if (typeof req?.id !== "number" || typeof req?.method !== "string") return;
  // A stop by the user ends the call at once (see abortInFlight), whatever
  // the browser is still doing for it.
  const key = `${c}/${req.id}`;
  let abort;
  const aborted = new Promise((_, reject) => { abort = reject; });
  inFlight.set(key, { c, method: req.method, abort });
  // The time this worker spent on the request (checks, chrome.debugger),
  // so the server can tell it from the relay's (its debug log shows both).
  const began = performance.now();
  try {
    const result = await Promise.race([dispatch(c, req.method, req.params ?? {}), aborted]);
    post(c, { id: req.id, result: result ?? {}, ms: Math.round((performance.now() - began) * 100) / 100 });
  } catch (e) {
    const code = e instanceof RelayError ? e.code : ERROR.CDP;
    post(c, { id: req.id, error: { code, message: String(e?.message ?? e) } });
  } finally {
    inFlight.delete(key);
  }
}

function serverFor(c) {
  const id = serverOfConn.get(c);
  if (!id) throw new RelayError(ERROR.BAD_REQUEST, "say hello first");
  return servers.get(id);
}

function isOwnPage(url) {
  return typeof url === "string" && url.startsWith(OWN_ORIGIN);
}

// Clients never drive tabwire's own pages (the popup shares tabs).
function refuseOwnPage(url) {
  if (isOwnPage(url)) {
    throw new RelayError(ERROR.BAD_REQUEST, "tabwire's own extension pages cannot be opened or driven by a client");
  }
}

function ownedTab(c, tabId) {
  const server = serverOfConn.get(c);
  // A tab this server does not own does not exist for it.
  if (!server || ownerOfTab.get(tabId) !== server) {
    throw new RelayError(ERROR.NO_SUCH_TAB, `no tab with id ${tabId}`);
  }
  return tabId;
}

function refuseByPolicy(server, url) {
  const why = blockedBy(server?.policy, url);
  if (why) throw new RelayError(ERROR.POLICY, `refused by the extension: ${why}`);
}

async function dispatch(c, method, params) {
  if (method !== METHOD.HELLO && method !== METHOD.NOTE) {
    await checkRunning(c);
    await checkSites(c, method, params);
  }
  switch (method) {
    case METHOD.HELLO: {
      if (params.v !== PROTOCOL_VERSION) {
        throw new RelayError(ERROR.VERSION,
          `extension speaks protocol ${PROTOCOL_VERSION}, server ${params.v}: update tabwire and reload the extension`);
      }
      const id = String(params.server);
      serverOfConn.set(c, id);
      if (!servers.has(id)) {
        servers.set(id, { name: null, windowId: null, groupId: null, tabs: new Set(), sharedGroups: new Map(), policy: null, recent: [] });
      }
      if (typeof params.client === "string" && params.client.trim()) servers.get(id).name = params.client.trim();
      if (params.policy && typeof params.policy === "object") servers.get(id).policy = params.policy;
      if (Number(params.consentTimeoutMs) > 0) servers.get(id).consentTimeoutMs = Number(params.consentTimeoutMs);
      await stopLoaded;
      await identityLoaded;
      const stopped = stopOf(id);
      const answer = {
        v: PROTOCOL_VERSION, version: VERSION, browser: browserName(), instance: INSTANCE, stopped,
        browserId: identity.id, browserLabel: browserLabel(), newTabsHere: identity.newTabsHere,
      };
      // The server's tabs ride on the answer, so its first tool needs no
      // tabs.list of its own (a round trip of every `tabwire call`). Not
      // while stopped: tabs.list then answers with why.
      if (!stopped) answer.tabs = await tabsOf(servers.get(id));
      return answer;
    }
    case METHOD.TABS_LIST:
      return { tabs: await tabsOf(serverFor(c)) };
    case METHOD.NOTE: {
      // The server's last few tool calls, for the popup.
      const s = serverFor(c);
      s.recent.push({ tool: String(params.tool ?? "?"), ok: params.ok !== false, time: Date.now() });
      if (s.recent.length > 5) s.recent.shift();
      return {};
    }
    case METHOD.TABS_CREATE:
      refuseOwnPage(params.url);
      refuseByPolicy(serverFor(c), params.url);
      return { tab: tabInfo(await createTab(c, params.url || "about:blank", params.group || "tabwire")) };
    case METHOD.TABS_CLOSE:
      await chrome.tabs.remove(ownedTab(c, params.tabId));
      return {};
    case METHOD.TABS_SELECT: {
      const tab = await chrome.tabs.update(ownedTab(c, params.tabId), { active: true });
      return { tab: tabInfo(tab) };
    }
    case METHOD.CDP_SEND:
      return await sendToTab(c, params.tabId, [{ method: params.method, params: params.params }],
        typeof params.sessionId === "string" ? params.sessionId : undefined)
        .then((results) => results[0]);
    case METHOD.CDP_BATCH: {
      // One message for a sequence (mouse down/up, key down/up): fewer
      // trips through the host, the same checks, strictly in order.
      const commands = Array.isArray(params.commands) ? params.commands : [];
      // `ask`: did the tab's session run the setup of this key before?
      // `mark`: these commands are that setup (see setupOf).
      const str = (v) => (typeof v === "string" ? v : undefined);
      const setup = { ask: str(params.ask), mark: str(params.mark) };
      const results = await sendToTab(c, params.tabId, commands, undefined, setup);
      return setup.ask ? { results, setUp: setup.done === true } : { results };
    }
    default:
      throw new RelayError(ERROR.BAD_REQUEST, `unknown method ${method}`);
  }
}

// "Chromium 156.0.7000.1", "Google Chrome 131.0…", for doctor.
function browserName() {
  const ua = navigator.userAgent;
  const version = ua.match(/Chrom(?:e|ium)\/([\d.]+)/)?.[1] ?? "";
  const brands = (navigator.userAgentData?.brands ?? []).map((b) => b.brand);
  const brand = brands.find((b) => !/not.?a.?brand/i.test(b) && b !== "Chromium")
    ?? (/ Edg\//.test(ua) ? "Microsoft Edge" : "Chromium");
  return `${brand} ${version}`.trim();
}

// ---- this browser's name -------------------------------------------------
//
// Several browsers (Chrome and Edge) or profiles may run tabwire at once, and
// every serve keeps all of them connected. Each profile's extension has a
// stable id (random, kept in chrome.storage.local), a name agents see (by
// default the browser's brand and the id's first letters, e.g.
// "Chromium (3f9a)"; renamable on the options page), and may be marked in
// the popup "Agents open new tabs here" (the mark carries its time: among
// the connected browsers, the latest mark wins). Servers hear of a change
// through a "browser" event.

const IDENTITY_KEY = "browser";
const identity = { id: null, label: null, newTabsHere: null };
const MAX_LABEL = 60;

const identityLoaded = chrome.storage.local.get(IDENTITY_KEY).then(async (saved) => {
  const s = saved?.[IDENTITY_KEY] ?? {};
  identity.id = typeof s.id === "string" && s.id ? s.id : crypto.randomUUID();
  identity.label = typeof s.label === "string" && s.label.trim() ? s.label.trim() : null;
  identity.newTabsHere = Number(s.newTabsHere) > 0 ? Number(s.newTabsHere) : null;
  if (!s.id) await saveIdentity();
}).catch((e) => {
  console.error("tabwire: could not read this browser's name", e);
  identity.id ??= crypto.randomUUID();
});

function saveIdentity() {
  return chrome.storage.local.set({ [IDENTITY_KEY]: { ...identity } })
    .catch((e) => console.error("tabwire: could not save this browser's name", e));
}

function defaultLabel() {
  const brand = browserName().replace(/\s+[\d.]+$/, "") || "Browser";
  return `${brand} (${String(identity.id ?? "").replace(/-/g, "").slice(0, 4)})`;
}

function browserLabel() {
  return identity.label ?? defaultLabel();
}

function announceBrowser() {
  const params = { browserLabel: browserLabel(), newTabsHere: identity.newTabsHere };
  for (const c of serverOfConn.keys()) post(c, { event: "browser", params });
}

async function renameBrowser(name) {
  await identityLoaded;
  const label = String(name ?? "").trim().slice(0, MAX_LABEL);
  identity.label = label || null;
  await saveIdentity();
  announceBrowser();
}

async function markNewTabsHere(on) {
  await identityLoaded;
  identity.newTabsHere = on ? Date.now() : null;
  await saveIdentity();
  announceBrowser();
}

// A server's tabs as the tab list shows them (a tab closed meanwhile is
// forgotten).
async function tabsOf(s) {
  const tabs = [];
  for (const tabId of s.tabs) {
    try { tabs.push(tabInfo(await chrome.tabs.get(tabId))); } catch { forgetTab(tabId); }
  }
  return tabs;
}

function tabInfo(t) {
  return { tabId: t.id, url: t.url ?? t.pendingUrl ?? "", title: t.title ?? "", active: !!t.active };
}

// Each client gets its own window (an agent's tab stays in front, so
// screenshots never wait on a background tab) and one tab group in it,
// named after the MCP client.
async function createTab(c, url, groupName) {
  const s = serverFor(c);
  let tab = null;
  if (s.windowId !== null) {
    try { tab = await chrome.tabs.create({ windowId: s.windowId, url, active: true }); } catch { s.windowId = null; }
  }
  if (!tab) {
    const win = await chrome.windows.create({ url, focused: false });
    s.windowId = win.id;
    tab = win.tabs[0];
  }
  s.tabs.add(tab.id);
  ownerOfTab.set(tab.id, serverOfConn.get(c));
  try {
    const opts = { tabIds: [tab.id] };
    if (s.groupId !== null) opts.groupId = s.groupId; else opts.createProperties = { windowId: s.windowId };
    s.groupId = await chrome.tabs.group(opts);
    await chrome.tabGroups.update(s.groupId, { title: groupName });
  } catch {
    // Tab groups are cosmetic; some Chromium builds lack them.
    s.groupId = null;
  }
  return tab;
}

async function tabExists(tabId) {
  try {
    await chrome.tabs.get(tabId);
    return true;
  } catch {
    return false;
  }
}

const ALREADY_ATTACHED = /already attached/i;

// Chromium refuses an attach only when this same extension is attached to
// the tab already (DevTools and other extensions attach side by side, see
// tests/faults.rs). That session was left by an earlier instance of this
// worker (the worker was stopped and restarted): take it over.
async function attachOnce(tabId) {
  try {
    await chrome.debugger.attach({ tabId }, "1.3");
    return;
  } catch (e) {
    if (!ALREADY_ATTACHED.test(String(e?.message ?? e))) throw e;
  }
  try {
    await chrome.debugger.detach({ tabId });
  } catch {
    // Not ours to detach: fall through to the refusal below.
  }
  await chrome.debugger.attach({ tabId }, "1.3");
}

function attach(tabId) {
  let p = attached.get(tabId);
  if (!p) {
    p = attachOnce(tabId).catch((e) => {
      attached.delete(tabId);
      throw attachError(String(e?.message ?? e));
    }).then(() => detachIfStopped(tabId));
    attached.set(tabId, p);
  }
  return p;
}

// A refusal to attach, as the error a client sees: terminal, with its cause.
function attachError(msg) {
  if (ALREADY_ATTACHED.test(msg)) {
    return new RelayError(ERROR.DEBUGGER_BUSY,
      "another debugger (DevTools or another extension) is attached to this tab and tabwire " +
      `could not take it over (${msg}). Close that debugger or use another tab`);
  }
  return new RelayError(ERROR.CDP, msg);
}

// Runs CDP commands on a tab this client owns, one after another, after
// the ownership, own-page and policy checks (once for the whole sequence).
// `sessionId`: a child session of the tab (an out-of-process frame the
// tab's session auto-attached).
// `setup` ({ask, mark}, keys of setupOf): `done` tells whether the tab's
// session had run the setup `ask` before these commands; after them, the
// session has run the setup `mark`.
async function sendToTab(c, tabId, commands, sessionId, setup) {
  ownedTab(c, tabId);
  for (const cmd of commands) refuseOwnPage(cmd.params?.url);
  const tab = await chrome.tabs.get(tabId);
  refuseOwnPage(tab.url);
  refuseOwnPage(tab.pendingUrl);
  const server = serverFor(c);
  for (const cmd of commands) {
    if (cmd.method === "Page.navigate") refuseByPolicy(server, cmd.params?.url);
    if (!LEAVING.has(cmd.method)) refuseByPolicy(server, tab.url || tab.pendingUrl);
  }
  try {
    const session = attach(tabId);
    await session;
    if (setup?.ask) setup.done = setupOf.get(session) === setup.ask;
    const results = [];
    let mainFrame, handle, evaluated;
    for (const cmd of commands) {
      const target = sessionId ? { tabId, sessionId } : { tabId };
      if (!sessionId) noteFetch(tabId, cmd);
      let params = cmd.params ?? {};
      if (params.frameId === MAIN_FRAME) {
        if (!mainFrame) throw new RelayError(ERROR.BAD_REQUEST, `${MAIN_FRAME} before any Page.getFrameTree`);
        params = { ...params, frameId: mainFrame };
      }
      if (params.objectId === EARLIER_HANDLE) {
        if (!handle) {
          const why = evaluated?.exceptionDetails?.exception?.description ?? "no Runtime.evaluate answered one";
          throw new RelayError(ERROR.BAD_REQUEST, `${EARLIER_HANDLE} without a handle: ${why}`);
        }
        params = { ...params, objectId: handle };
      }
      // chrome.debugger has no Browser domain; this one is answered here.
      const result = cmd.method === "Browser.cancelDownload"
        ? await cancelDownload(params.guid)
        : await chrome.debugger.sendCommand(target, String(cmd.method), params);
      if (cmd.method === "Page.getFrameTree") mainFrame = result?.frameTree?.frame?.id;
      if (cmd.method === "Runtime.evaluate" && !evaluated) {
        evaluated = result;
        // A script that threw answers with the error's handle: not the
        // element the batch is about.
        handle = result?.exceptionDetails ? undefined : result?.result?.objectId;
      }
      results.push(result);
    }
    // Only a setup that ran whole, in the session it ran in, counts.
    if (setup?.mark && attached.get(tabId) === session) setupOf.set(session, setup.mark);
    return results;
  } catch (e) {
    // A tab closed while the command ran answers "Detached while
    // handling command": say what happened instead.
    if (!(await tabExists(tabId))) {
      throw new RelayError(ERROR.NO_SUCH_TAB, `tab ${tabId} was closed`);
    }
    throw e;
  }
}

// Tabs whose latest Fetch.enable asks for more than the document pause
// every tab has for sign-in challenges: the server routes some of their
// requests, so their paused requests go to it instead of on at once. The
// rule is holds_paused in src/backend/mod.rs.
const heldTabs = new Set();

function noteFetch(tabId, cmd) {
  if (cmd.method === "Fetch.disable") heldTabs.delete(tabId);
  if (cmd.method !== "Fetch.enable") return;
  const patterns = Array.isArray(cmd.params?.patterns) ? cmd.params.patterns : [];
  if (patterns.some((p) => p?.resourceType !== "Document")) heldTabs.add(tabId);
  else heldTabs.delete(tabId);
}

function forgetTab(tabId) {
  heldTabs.delete(tabId);
  streamsOf.delete(tabId);
  const owner = ownerOfTab.get(tabId);
  ownerOfTab.delete(tabId);
  sharedTabs.delete(tabId);
  attached.delete(tabId);
  if (owner) servers.get(owner)?.tabs.delete(tabId);
  dropIfIdle(owner);
  return owner;
}

// Every serve process is a client of its own (its id names the process),
// so the worker forgets one that is gone and holds no tab: a browser that
// runs for weeks does not keep a record per client it ever served. (A
// client that connects again says hello again; a user's stop is kept in
// storage, not here.)
function dropIfIdle(server) {
  const s = server && servers.get(server);
  if (!s || s.tabs.size > 0 || connsOf(server).length > 0) return;
  servers.delete(server);
  onceSites.delete(server);
}

function connsOf(server) {
  return [...serverOfConn].filter(([, s]) => s === server).map(([c]) => c);
}

// Events no server reads: not sent, so a page load sends fewer messages
// through native messaging (the six big pages of bench/real-pages.py:
// 494 → 353 events during serve's load waits; bench/relayed-events.py).
// A server's readers of Network events are src/page/network_log.rs,
// started_requests.rs and har.rs.
const UNREAD = new Set([
  "Network.requestServedFromCache", "Network.requestWillBeSentExtraInfo",
  "Network.responseReceivedExtraInfo", "Network.resourceChangedPriority",
]);
// Network.dataReceived is read only for event streams (what they send
// keeps a wait going), so it is sent only for responses that are one.
const streamsOf = new Map(); // tabId -> Set of requestIds

function unread(tabId, method, params) {
  if (UNREAD.has(method)) return true;
  const id = params?.requestId;
  switch (method) {
    case "Network.responseReceived":
      if (String(params?.response?.mimeType ?? "").startsWith("text/event-stream")) {
        if (!streamsOf.has(tabId)) streamsOf.set(tabId, new Set());
        streamsOf.get(tabId).add(id);
      }
      return false;
    case "Network.dataReceived":
      return !streamsOf.get(tabId)?.has(id);
    case "Network.loadingFinished":
    case "Network.loadingFailed":
      streamsOf.get(tabId)?.delete(id);
      return false;
    default:
      return false;
  }
}

chrome.debugger.onEvent.addListener((source, method, params) => {
  const owner = ownerOfTab.get(source.tabId);
  const conns = owner ? connsOf(owner) : [];
  if (unread(source.tabId, method, params) && conns.length > 0) return;
  // A download a driven tab starts is made by the browser for the tab's
  // server (downloads.js), which saves the file where the client asked.
  if (owner && method === "Page.downloadWillBegin") claimDownload(params?.url, source.tabId, params?.guid);
  // Document requests are paused only so that sign-in challenges reach
  // the server: they go on at once, from here, with no round trip.
  // A tab with routes (src/page/routes.rs) has the server answer them.
  const held = heldTabs.has(source.tabId) && !source.sessionId;
  if (conns.length === 0 || (method === "Fetch.requestPaused" && !held)) return releasePaused(source, method, params);
  for (const c of conns) post(c, { event: "cdp", tabId: source.tabId, method, params, sessionId: source.sessionId });
});

// A request the server's Fetch interception paused (see src/tools/interrupts.rs)
// goes on; with no server left to answer a challenge (it quit, or an
// earlier worker attached) the browser handles it as usual.
function releasePaused(source, method, params) {
  const go = (cmd, extra) => chrome.debugger
    .sendCommand(source, cmd, { requestId: params.requestId, ...extra })
    .catch(() => { /* already gone */ });
  if (method === "Fetch.requestPaused") go("Fetch.continueRequest", {});
  if (method === "Fetch.authRequired") go("Fetch.continueWithAuth", { authChallengeResponse: { response: "Default" } });
}

chrome.debugger.onDetach.addListener((source, reason) => {
  attached.delete(source.tabId);
  heldTabs.delete(source.tabId);
  streamsOf.delete(source.tabId);
  // The user clicked Cancel on the browser's "started debugging this
  // browser" bar: their emergency stop, for every client.
  if (reason === CANCELED_BY_USER) stopAll(CANCELED_BY_USER);
  const owner = ownerOfTab.get(source.tabId);
  if (!owner) return;
  for (const c of connsOf(owner)) post(c, { event: "detached", tabId: source.tabId, reason });
});

// A client's tab's downloads go to its server (downloads.js).
handDownloadsToServers(() => attached.size > 0, (tabId, method, params) => {
  const owner = ownerOfTab.get(tabId);
  for (const c of owner ? connsOf(owner) : []) post(c, { event: "cdp", tabId, method, params });
});

chrome.tabs.onRemoved.addListener((tabId) => {
  const owner = forgetTab(tabId);
  if (!owner) return;
  for (const c of connsOf(owner)) post(c, { event: "tabClosed", tabId });
});

// A client's page opening a tab (window.open, a target=_blank link): the
// new tab belongs to the same client, which is told so it can report it.
chrome.tabs.onCreated.addListener((tab) => {
  if (tab.openerTabId === undefined || ownerOfTab.has(tab.id)) return;
  const owner = ownerOfTab.get(tab.openerTabId);
  if (!owner) return;
  ownerOfTab.set(tab.id, owner);
  servers.get(owner)?.tabs.add(tab.id);
  const url = tab.pendingUrl || tab.url || "";
  for (const c of connsOf(owner)) post(c, { event: "tabOpened", tabId: tab.id, params: { url } });
});

// ---- stop: the user's emergency brake -----------------------------------
//
// Cancel on the browser's '"tabwire" started debugging this browser' bar
// (onDetach reason "canceled_by_user"), or Stop all in the popup, stops every
// client; Stop next to one client in the popup stops that one. A stopped
// client's calls in flight end at once, every later call is refused with
// ERROR.STOPPED, its tabs are detached, and nothing attaches again until the
// user presses Resume in the popup. Clients are told through a "control"
// event (their servers record it in the audit log and show it in
// browser_status).
//
// The state is kept in chrome.storage.local, not .session: a stop is lifted
// only by the user's Resume. A worker restart (which .session would survive
// too) and a browser restart (which would clear .session) are not the user
// saying "go on", and the servers outlive browser restarts and reconnect
// with the same ids, so a stop must survive both.

const CANCELED_BY_USER = "canceled_by_user";
const STOPPED_IN_POPUP = "popup";
const STOP_KEY = "stop";
const MAX_CLIENT_STOPS = 100;
// all: {cause, since} | null; clients: {serverId: {cause, since}}
const stop = { all: null, clients: {} };

// Read once at start; every check waits for it, so a restarted worker never
// serves a call before it knows it was stopped.
const stopLoaded = chrome.storage.local.get(STOP_KEY).then((saved) => {
  const s = saved?.[STOP_KEY];
  if (s?.all && !stop.all) stop.all = s.all;
  if (s?.clients && typeof s.clients === "object") stop.clients = { ...s.clients, ...stop.clients };
  if (stop.all) detachTabs(() => true);
  showStopBadge();
}).catch((e) => console.error("tabwire: could not read the stop state", e));

function saveStop() {
  const ids = Object.keys(stop.clients);
  for (const id of ids.slice(0, Math.max(0, ids.length - MAX_CLIENT_STOPS))) delete stop.clients[id];
  return chrome.storage.local.set({ [STOP_KEY]: stop })
    .catch((e) => console.error("tabwire: could not save the stop state", e));
}

// What a client is told about its stop, or null while it may run.
function stopOf(serverId) {
  if (stop.all) return { scope: "all", cause: stop.all.cause, since: stop.all.since };
  const mine = serverId ? stop.clients[serverId] : null;
  return mine ? { scope: "client", cause: mine.cause, since: mine.since } : null;
}

function stoppedError(s) {
  const how = s.cause === CANCELED_BY_USER
    ? "they clicked Cancel on the browser's \"tabwire started debugging this browser\" bar"
    : s.scope === "all"
      ? "they pressed Stop all in tabwire's popup"
      : "they pressed Stop for this client in tabwire's popup";
  return new RelayError(ERROR.STOPPED,
    `browser control was stopped by the user (${how}). Only the user can resume it, from the ` +
    "tabwire extension's popup (its toolbar button, then Resume). Do not retry: tell the user " +
    "you are waiting for them to resume.");
}

// The gate every call except hello and note passes.
async function checkRunning(c) {
  await stopLoaded;
  const s = stopOf(serverOfConn.get(c));
  if (s) throw stoppedError(s);
}

// An attach that finished after its owner was stopped is undone at once.
async function detachIfStopped(tabId) {
  const s = stopOf(ownerOfTab.get(tabId));
  if (!s) return;
  attached.delete(tabId);
  try { await chrome.debugger.detach({ tabId }); } catch { /* already gone */ }
  throw stoppedError(s);
}

// Ends the calls in flight of every connection whose server `hit` matches.
function abortInFlight(hit) {
  for (const [key, call] of inFlight) {
    const id = serverOfConn.get(call.c);
    const s = stopOf(id);
    if (s && hit(id) && call.method !== METHOD.HELLO && call.method !== METHOD.NOTE) {
      inFlight.delete(key);
      call.abort(stoppedError(s));
    }
  }
}

// Detaches the debugger from every tab whose owner `hit` matches (for a
// stop of all: every tab this extension is attached to, even one an earlier
// worker attached), telling the owners so they re-enable domains later.
async function detachTabs(hit) {
  const tabs = new Set([...attached.keys()].filter((t) => hit(ownerOfTab.get(t))));
  if (hit(undefined)) {
    try {
      for (const t of await chrome.debugger.getTargets()) {
        if (t.attached && t.tabId !== undefined) tabs.add(t.tabId);
      }
    } catch { /* best effort */ }
  }
  await Promise.all([...tabs].map(async (tabId) => {
    attached.delete(tabId);
    try {
      await chrome.debugger.detach({ tabId });
    } catch {
      return; // not attached by us
    }
    const owner = ownerOfTab.get(tabId);
    if (owner) for (const c of connsOf(owner)) post(c, { event: "detached", tabId, reason: "stopped_by_user" });
  }));
}

// Tells every connected server its current stop state.
function announceStop() {
  for (const [c, id] of serverOfConn) post(c, { event: "control", stopped: stopOf(id) });
  showStopBadge();
}

function showStopBadge() {
  const any = stop.all || Object.keys(stop.clients).length;
  chrome.action.setBadgeText({ text: any ? "STOP" : "" }).catch(() => {});
  chrome.action.setBadgeBackgroundColor({ color: "#cf222e" }).catch(() => {});
}

async function stopAll(cause) {
  if (!stop.all) stop.all = { cause, since: Date.now() };
  abortInFlight(() => true);
  closeQuestions(() => true);
  announceStop();
  await saveStop();
  await detachTabs(() => true);
}

async function stopClient(serverId) {
  if (!servers.has(serverId)) throw new Error("no such MCP client");
  if (!stop.clients[serverId]) {
    // The name too: the popup lists a stopped client that is away.
    stop.clients[serverId] = { cause: STOPPED_IN_POPUP, since: Date.now(), name: servers.get(serverId)?.name ?? null };
  }
  abortInFlight((id) => id === serverId);
  closeQuestions((id) => id === serverId);
  announceStop();
  await saveStop();
  await detachTabs((owner) => owner === serverId);
}

async function resumeAll() {
  await stopLoaded;
  stop.all = null;
  await saveStop();
  announceStop();
}

async function resumeClient(serverId) {
  await stopLoaded;
  delete stop.clients[serverId];
  await saveStop();
  announceStop();
}

// ---- sites need a yes (serve --confirm-sites) ----------------------------
//
// A server whose policy says confirmSites may open or act on a site (its
// registrable domain, see sites.js) only once the user said yes for that
// client: the extension asks in a small window of its own (confirm.html)
// with Allow once / Always for this site / Deny. A window, not a
// notification: notification buttons are not shown on every platform, and
// the popup cannot be opened by the extension; a window shows in every
// Chromium, headed or not, and can be answered with the keyboard.
//
// "Allow once" lasts while this client (this server id) runs; "Always" is
// kept per client name and site in chrome.storage.local, listed on the
// options page and revocable there. The call waits at most the server's
// consentTimeoutMs (less than its call timeout), and the server is told it
// is "waiting for the user" for its progress notifications. The domain
// policy is checked first and wins: a denied site is refused, never asked.

const SITES_KEY = "sites";
let alwaysSites = {};                // client name -> {site: since}
const onceSites = new Map();         // server id -> Set(site)
const prompts = new Map();           // prompt id -> {serverId, client, site, windowId, done(answer)}
const asking = new Map();            // `${serverId}\n${site}` -> Promise of the answer
let nextPrompt = 1;

const sitesLoaded = chrome.storage.local.get(SITES_KEY).then((saved) => {
  alwaysSites = { ...(saved?.[SITES_KEY] ?? {}), ...alwaysSites };
}).catch((e) => console.error("tabwire: could not read approved sites", e));

function saveSites() {
  return chrome.storage.local.set({ [SITES_KEY]: alwaysSites })
    .catch((e) => console.error("tabwire: could not save approved sites", e));
}

// The sites a request would open or act on, for a server that asks.
async function sitesOf(serverId, s, method, params) {
  const urls = [];
  if (method === METHOD.TABS_CREATE) urls.push(params.url);
  if (method === METHOD.CDP_SEND || method === METHOD.CDP_BATCH) {
    const cmds = method === METHOD.CDP_SEND
      ? [{ method: params.method, params: params.params }]
      : (Array.isArray(params.commands) ? params.commands : []);
    for (const cmd of cmds) if (cmd?.method === "Page.navigate") urls.push(cmd.params?.url);
    // Acting on the page it shows (leaving it needs no yes).
    if (cmds.some((cmd) => !LEAVING.has(cmd?.method)) && ownerOfTab.get(params.tabId) === serverId) {
      try {
        const tab = await chrome.tabs.get(params.tabId);
        urls.push(tab.url || tab.pendingUrl);
      } catch { /* closed: the call says so later */ }
    }
  }
  // The policy's refusal comes later and wins: never ask about a blocked site.
  return [...new Set(urls.filter((u) => u && !blockedBy(s.policy, u)).map(siteOf).filter(Boolean))];
}

async function checkSites(c, method, params) {
  const serverId = serverOfConn.get(c);
  const s = servers.get(serverId);
  if (!s?.policy?.confirmSites) return;
  await sitesLoaded;
  for (const site of await sitesOf(serverId, s, method, params)) await approve(serverId, s, site);
}

async function approve(serverId, s, site) {
  const client = s.name ?? "an MCP client";
  if (alwaysSites[client]?.[site] || onceSites.get(serverId)?.has(site)) return;
  const key = `${serverId}\n${site}`;
  let answer = asking.get(key);
  if (!answer) {
    answer = askUser(serverId, client, site, s.consentTimeoutMs ?? 25000)
      .finally(() => asking.delete(key));
    asking.set(key, answer);
  }
  const said = await answer;
  if (said === "deny") {
    throw new RelayError(ERROR.SITE_DENIED,
      `the user did not allow ${client} to use ${site} (they pressed Deny or closed the question). ` +
      "Do not retry this site; ask the user if you need it");
  }
  if (said === "timeout") {
    throw new RelayError(ERROR.SITE_DENIED,
      `the user did not allow ${client} to use ${site}: they did not answer the question in the ` +
      `browser within ${Math.round((s.consentTimeoutMs ?? 25000) / 1000)} s. Tell the user tabwire ` +
      "asks in their browser whether you may use this site, then retry");
  }
}

// Tells the server what its call waits for (null: nothing any more).
function waitingFor(serverId, what) {
  for (const c of connsOf(serverId)) post(c, { event: "waiting", waiting: what });
}

function askUser(serverId, client, site, ms) {
  return new Promise((resolve) => {
    const id = nextPrompt++;
    const entry = { serverId, client, site, windowId: null, done: null };
    const timer = setTimeout(() => entry.done("timeout"), ms);
    entry.done = (answer) => {
      if (!prompts.has(id)) return;
      prompts.delete(id);
      clearTimeout(timer);
      waitingFor(serverId, null);
      if (entry.windowId !== null) chrome.windows.remove(entry.windowId).catch(() => {});
      resolve(answer);
    };
    prompts.set(id, entry);
    waitingFor(serverId, `the user to allow ${site} in the browser`);
    chrome.windows.create({ url: chrome.runtime.getURL(`confirm.html?id=${id}`), type: "popup", width: 460, height: 300, focused: true })
      .then((w) => {
        entry.windowId = w.id;
        if (!prompts.has(id)) chrome.windows.remove(w.id).catch(() => {});
      })
      .catch((e) => {
        console.error("tabwire: could not ask the user", e);
        entry.done("timeout");
      });
  });
}

// Closing the question is a no.
chrome.windows.onRemoved.addListener((windowId) => {
  for (const entry of prompts.values()) if (entry.windowId === windowId) entry.done("deny");
});

// A stopped client's open questions about sites go away (as a no).
function closeQuestions(hit) {
  for (const entry of [...prompts.values()]) if (hit(entry.serverId)) entry.done("deny");
}

function answerPrompt(id, answer) {
  const entry = prompts.get(id);
  if (!entry) throw new Error("this question was already answered or has expired");
  if (answer === "once") {
    if (!onceSites.has(entry.serverId)) onceSites.set(entry.serverId, new Set());
    onceSites.get(entry.serverId).add(entry.site);
  } else if (answer === "always") {
    alwaysSites[entry.client] = { ...(alwaysSites[entry.client] ?? {}), [entry.site]: Date.now() };
    saveSites();
  } else if (answer !== "deny") {
    throw new Error(`unknown answer ${answer}`);
  }
  entry.done(answer === "deny" ? "deny" : "allow");
}

async function revokeSite(client, site) {
  if (alwaysSites[client]) {
    delete alwaysSites[client][site];
    if (!Object.keys(alwaysSites[client]).length) delete alwaysSites[client];
  }
  await saveSites();
}

// ---- the popup: state, sharing ----------------------------------------

// Only tabwire's own pages may ask, and never from a tab a client drives.
function checkSender(sender) {
  if (sender.id !== chrome.runtime.id) throw new Error("not allowed");
  if (sender.tab && ownerOfTab.has(sender.tab.id)) {
    throw new Error("a tab driven by an MCP client cannot change what is shared");
  }
}

function connectedServers() {
  const live = new Set(serverOfConn.values());
  return [...servers].filter(([id]) => live.has(id));
}

function popupState() {
  const clients = connectedServers().map(([id, s]) => ({
    id,
    name: s.name ?? "an unnamed MCP client",
    tabs: [...s.tabs].map((tabId) => ({ tabId, shared: sharedTabs.has(tabId) })),
    recent: s.recent ?? [],
    stopped: stop.clients[id] ?? null,
  }));
  const owners = {};
  for (const [tabId, id] of ownerOfTab) {
    owners[tabId] = { client: id, name: servers.get(id)?.name ?? "an MCP client", shared: sharedTabs.has(tabId) };
  }
  // Clients the user stopped that are not connected now (a `tabwire call`
  // session, a client started again later): still stopped, and resumable.
  const live = new Set(serverOfConn.values());
  const stoppedAway = Object.entries(stop.clients).filter(([id]) => !live.has(id))
    .map(([id, s]) => ({ id, name: s.name ?? servers.get(id)?.name ?? "an MCP client" }));
  const browser = { id: identity.id, label: browserLabel(), defaultLabel: defaultLabel(), custom: identity.label !== null, newTabsHere: identity.newTabsHere };
  return { version: VERSION, host: { ...host }, clients, owners, stoppedAll: stop.all, stoppedAway, sites: alwaysSites, browser };
}

function shareable(url) {
  return /^(https?|file):/i.test(url ?? "") || url === "about:blank";
}

async function shareTab(tabId, serverId) {
  const s = servers.get(serverId);
  if (!s || !connsOf(serverId).length) throw new Error("that MCP client is no longer connected");
  if (ownerOfTab.has(tabId)) {
    throw new Error(`this tab already belongs to ${servers.get(ownerOfTab.get(tabId))?.name ?? "another client"}`);
  }
  const tab = await chrome.tabs.get(tabId);
  if (!shareable(tab.url || tab.pendingUrl)) {
    throw new Error("only web pages can be shared, not browser or extension pages");
  }
  ownerOfTab.set(tabId, serverId);
  s.tabs.add(tabId);
  const info = { grouped: false };
  sharedTabs.set(tabId, info);
  // Mark it in the tab strip with the client's name, unless the user grouped it.
  if (tab.groupId === chrome.tabGroups.TAB_GROUP_ID_NONE) {
    try {
      const known = s.sharedGroups.get(tab.windowId);
      let groupId;
      try {
        groupId = await chrome.tabs.group(known !== undefined
          ? { groupId: known, tabIds: [tabId] }
          : { tabIds: [tabId], createProperties: { windowId: tab.windowId } });
      } catch {
        groupId = await chrome.tabs.group({ tabIds: [tabId], createProperties: { windowId: tab.windowId } });
      }
      s.sharedGroups.set(tab.windowId, groupId);
      await chrome.tabGroups.update(groupId, { title: `${s.name ?? "MCP client"} (shared)` });
      info.grouped = true;
    } catch {
      // Cosmetic only.
    }
  }
}

async function unshareTab(tabId) {
  const info = sharedTabs.get(tabId);
  if (!info) throw new Error("this tab is not shared");
  const owner = forgetTab(tabId);
  try { await chrome.debugger.detach({ tabId }); } catch { /* was not attached */ }
  if (info.grouped) {
    try { await chrome.tabs.ungroup(tabId); } catch { /* closed meanwhile */ }
  }
  // For the client the tab is gone.
  if (owner) for (const c of connsOf(owner)) post(c, { event: "tabClosed", tabId });
}

chrome.runtime.onMessage.addListener((msg, sender, reply) => {
  (async () => {
    checkSender(sender);
    await stopLoaded;
    await identityLoaded;
    switch (msg?.type) {
      case "tabwire.state": return popupState();
      case "tabwire.share": await shareTab(Number(msg.tabId), String(msg.client)); return popupState();
      case "tabwire.unshare": await unshareTab(Number(msg.tabId)); return popupState();
      case "tabwire.reconnect": reconnectNow(); return popupState();
      case "tabwire.stopAll": await stopAll(STOPPED_IN_POPUP); return popupState();
      case "tabwire.resumeAll": await resumeAll(); return popupState();
      case "tabwire.stopClient": await stopClient(String(msg.client)); return popupState();
      case "tabwire.resumeClient": await resumeClient(String(msg.client)); return popupState();
      case "tabwire.prompt": {
        const entry = prompts.get(Number(msg.id));
        if (!entry) throw new Error("this question was already answered or has expired");
        return { client: entry.client, site: entry.site };
      }
      case "tabwire.answer": answerPrompt(Number(msg.id), String(msg.answer)); return {};
      case "tabwire.revokeSite": await revokeSite(String(msg.client), String(msg.site)); return popupState();
      case "tabwire.newTabsHere": await markNewTabsHere(!!msg.on); return popupState();
      case "tabwire.renameBrowser": await renameBrowser(msg.name); return popupState();
      default: throw new Error(`unknown request ${msg?.type}`);
    }
  })().then(reply, (e) => reply({ error: String(e?.message ?? e) }));
  return true; // answered asynchronously
});

// A stopped worker (crash, "Stop" in chrome://serviceworker-internals)
// is started again only by an event it listens to; without one, no
// client could reach the browser until the user touched the extension.
// The alarm wakes it (at most every 30 s) to reconnect the host.
const WAKE_ALARM = "tabwire-reconnect";
chrome.alarms.onAlarm.addListener((alarm) => {
  if (alarm.name === WAKE_ALARM && !port) reconnectNow();
});
chrome.alarms.create(WAKE_ALARM, { periodInMinutes: 0.5 });

connect();
