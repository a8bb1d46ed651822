// Tabs and the CDP relay: the checks before a client's command reaches a
// tab (ownership, tabwire's own pages, the domain policy), the tabs a
// client opens, the debugger attach, running commands in a tab, the Fetch
// holding of paused requests, and the debugger and tab events relayed to
// the tabs' servers (the listeners are registered when this module loads).

import { ERROR, MAIN_FRAME, EARLIER_HANDLE } from "./protocol.js";
import { blockedBy, LEAVING } from "./policy.js";
import { cancelDownload, claimDownload, handDownloadsToServers } from "./downloads.js";
import { serverOfConn, servers, ownerOfTab, sharedTabs, attached, RelayError, post, dropIfIdle, connsOf } from "./host.js";
import { CANCELED_BY_USER, detachIfStopped, stopAll } from "./stop.js";

const OWN_ORIGIN = chrome.runtime.getURL("");

// The setup a server ran in a tab's debugger session (domains enabled,
// scripts for new documents), by the key it gave: keyed by the attach, so
// a new session starts with none. The next serve of a `tabwire call`
// script finds the tab ready and sends nothing twice. (Fetch is not part
// of it: it is disabled when a server leaves, and sent every time.)
const setupOf = new WeakMap();  // Promise of attach -> setup key

export function serverFor(c) {
  const id = serverOfConn.get(c);
  if (!id) throw new RelayError(ERROR.BAD_REQUEST, "say hello first");
  return servers.get(id);
}

function isOwnPage(url) {
  return typeof url === "string" && url.startsWith(OWN_ORIGIN);
}

// Clients never drive tabwire's own pages (the popup shares tabs).
export function refuseOwnPage(url) {
  if (isOwnPage(url)) {
    throw new RelayError(ERROR.BAD_REQUEST, "tabwire's own extension pages cannot be opened or driven by a client");
  }
}

export function ownedTab(c, tabId) {
  const server = serverOfConn.get(c);
  // A tab this server does not own does not exist for it.
  if (!server || ownerOfTab.get(tabId) !== server) {
    throw new RelayError(ERROR.NO_SUCH_TAB, `no tab with id ${tabId}`);
  }
  return tabId;
}

export function refuseByPolicy(server, url) {
  const why = blockedBy(server?.policy, url);
  if (why) throw new RelayError(ERROR.POLICY, `refused by the extension: ${why}`);
}

// A server's tabs as the tab list shows them (a tab closed meanwhile is
// forgotten).
export async function tabsOf(s) {
  const tabs = [];
  for (const tabId of s.tabs) {
    try { tabs.push(tabInfo(await chrome.tabs.get(tabId))); } catch { forgetTab(tabId); }
  }
  return tabs;
}

export function tabInfo(t) {
  return { tabId: t.id, url: t.url ?? t.pendingUrl ?? "", title: t.title ?? "", active: !!t.active };
}

// Each client gets its own window (an agent's tab stays in front, so
// screenshots never wait on a background tab) and one tab group in it,
// named after the MCP client.
export async function createTab(c, url, groupName) {
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
export async function sendToTab(c, tabId, commands, sessionId, setup) {
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
export const heldTabs = new Set();

function noteFetch(tabId, cmd) {
  if (cmd.method === "Fetch.disable") heldTabs.delete(tabId);
  if (cmd.method !== "Fetch.enable") return;
  const patterns = Array.isArray(cmd.params?.patterns) ? cmd.params.patterns : [];
  if (patterns.some((p) => p?.resourceType !== "Document")) heldTabs.add(tabId);
  else heldTabs.delete(tabId);
}

export function forgetTab(tabId) {
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

// Events no server reads: not sent, so a page load sends fewer messages
// through native messaging (the six big pages of bench/real-pages.py:
// 494 → 353 events during serve's load waits; bench/relayed-events.py).
// A server's readers of Network events are src/page/tab/network_log.rs,
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
  // A tab with routes (src/page/network/routes.rs) has the server answer them.
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
