// tabwire service worker: relays between the native host and chrome.debugger.
//
// Each tabwire server (one per MCP client) reaches us through the native host
// as a connection number `c`. Its `hello` names a stable server id, which
// owns tabs: a server sees and drives only the tabs it opened, grouped under
// its client's name. All tool logic lives in Rust; this file only relays.

import { PROTOCOL_VERSION, HOST_NAME, METHOD, ERROR } from "./protocol.js";

const VERSION = chrome.runtime.getManifest().version;

let port = null;
let backoffMs = 250;

const serverOfConn = new Map(); // c -> server id
const servers = new Map();      // server id -> {name, windowId, groupId, tabs:Set}
const ownerOfTab = new Map();   // tabId -> server id
const attached = new Map();     // tabId -> Promise of attach
const chunks = new Map();       // `${c}/${id}` -> [parts]

class RelayError extends Error {
  constructor(code, message) { super(message); this.code = code; }
}

function connect() {
  port = chrome.runtime.connectNative(HOST_NAME);
  port.onMessage.addListener(onHostMessage);
  port.onDisconnect.addListener(() => {
    const why = chrome.runtime.lastError?.message ?? "closed";
    console.warn(`tabwire: native host disconnected (${why}); retrying in ${backoffMs} ms`);
    port = null;
    serverOfConn.clear();
    chunks.clear();
    setTimeout(connect, backoffMs);
    backoffMs = Math.min(backoffMs * 2, 10000);
  });
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
  const c = msg.c;
  if (msg.gone) {
    serverOfConn.delete(c);
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
      try { whole = JSON.parse(parts.join("")); } catch (e) { return; }
      handleRequest(c, whole);
    }
    return;
  }
  if (msg.m) handleRequest(c, msg.m);
}

async function handleRequest(c, req) {
  if (typeof req?.id !== "number" || typeof req?.method !== "string") return;
  try {
    const result = await dispatch(c, req.method, req.params ?? {});
    post(c, { id: req.id, result: result ?? {} });
  } catch (e) {
    const code = e instanceof RelayError ? e.code : ERROR.CDP;
    post(c, { id: req.id, error: { code, message: String(e?.message ?? e) } });
  }
}

function serverFor(c) {
  const id = serverOfConn.get(c);
  if (!id) throw new RelayError(ERROR.BAD_REQUEST, "say hello first");
  return servers.get(id);
}

function ownedTab(c, tabId) {
  const server = serverOfConn.get(c);
  // A tab this server does not own does not exist for it.
  if (!server || ownerOfTab.get(tabId) !== server) {
    throw new RelayError(ERROR.NO_SUCH_TAB, `no tab with id ${tabId}`);
  }
  return tabId;
}

async function dispatch(c, method, params) {
  switch (method) {
    case METHOD.HELLO: {
      if (params.v !== PROTOCOL_VERSION) {
        throw new RelayError(ERROR.VERSION,
          `extension speaks protocol ${PROTOCOL_VERSION}, server ${params.v}: update tabwire and reload the extension`);
      }
      const id = String(params.server);
      serverOfConn.set(c, id);
      if (!servers.has(id)) servers.set(id, { windowId: null, groupId: null, tabs: new Set() });
      return { v: PROTOCOL_VERSION, version: VERSION };
    }
    case METHOD.TABS_LIST: {
      const s = serverFor(c);
      const tabs = [];
      for (const tabId of s.tabs) {
        try { tabs.push(tabInfo(await chrome.tabs.get(tabId))); } catch { forgetTab(tabId); }
      }
      return { tabs };
    }
    case METHOD.TABS_CREATE:
      return { tab: tabInfo(await createTab(c, params.url || "about:blank", params.group || "tabwire")) };
    case METHOD.TABS_CLOSE:
      await chrome.tabs.remove(ownedTab(c, params.tabId));
      return {};
    case METHOD.TABS_SELECT: {
      const tab = await chrome.tabs.update(ownedTab(c, params.tabId), { active: true });
      return { tab: tabInfo(tab) };
    }
    case METHOD.CDP_SEND: {
      const tabId = ownedTab(c, params.tabId);
      await attach(tabId);
      return await chrome.debugger.sendCommand({ tabId }, params.method, params.params ?? {});
    }
    default:
      throw new RelayError(ERROR.BAD_REQUEST, `unknown method ${method}`);
  }
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
  } catch (e) {
    // Tab groups are cosmetic; some Chromium builds lack them.
    s.groupId = null;
  }
  return tab;
}

function attach(tabId) {
  let p = attached.get(tabId);
  if (!p) {
    p = chrome.debugger.attach({ tabId }, "1.3").catch((e) => {
      attached.delete(tabId);
      const msg = String(e?.message ?? e);
      if (/already attached/i.test(msg)) {
        throw new RelayError(ERROR.DEBUGGER_BUSY,
          "another debugger (DevTools or another extension) is attached to this tab; close it and retry");
      }
      throw new RelayError(ERROR.CDP, msg);
    });
    attached.set(tabId, p);
  }
  return p;
}

function forgetTab(tabId) {
  const owner = ownerOfTab.get(tabId);
  ownerOfTab.delete(tabId);
  attached.delete(tabId);
  if (owner) servers.get(owner)?.tabs.delete(tabId);
  return owner;
}

function connsOf(server) {
  return [...serverOfConn].filter(([, s]) => s === server).map(([c]) => c);
}

chrome.debugger.onEvent.addListener((source, method, params) => {
  const owner = ownerOfTab.get(source.tabId);
  if (!owner) return;
  for (const c of connsOf(owner)) post(c, { event: "cdp", tabId: source.tabId, method, params, sessionId: source.sessionId });
});

chrome.debugger.onDetach.addListener((source, reason) => {
  attached.delete(source.tabId);
  const owner = ownerOfTab.get(source.tabId);
  if (!owner) return;
  for (const c of connsOf(owner)) post(c, { event: "detached", tabId: source.tabId, reason });
});

chrome.tabs.onRemoved.addListener((tabId) => {
  const owner = forgetTab(tabId);
  if (!owner) return;
  for (const c of connsOf(owner)) post(c, { event: "tabClosed", tabId });
});

connect();
