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
//
// This file is the entry point: it answers what servers ask (hello, tabs,
// CDP commands) and starts the connection. The rest is in modules it
// imports, each registering its listeners as it loads (an MV3 worker must
// register them in its first turn):
//   host.js      the native host connection and the registry of servers
//   identity.js  this extension's version and this browser's name
//   consent.js   sites that need the user's yes
//   stop.js      the user's stop and resume, the badge
//   relay.js     tabs, the debugger attach, the CDP relay and its events
//   pages.js     what the popup, options and confirm pages ask
// (Each imports only from those above it in this list.)

import { PROTOCOL_VERSION, METHOD, ERROR } from "./protocol.js";
import { serverOfConn, servers, ownerOfTab, attached, chunks, inFlight, RelayError, post, reconnectNow, startHost, hasPort, dropIfIdle, connsOf } from "./host.js";
import { VERSION, browserName, identity, identityLoaded, browserLabel } from "./identity.js";
import { checkSites } from "./consent.js";
import { stopLoaded, stopOf, checkRunning } from "./stop.js";
import { serverFor, refuseOwnPage, ownedTab, refuseByPolicy, tabsOf, tabInfo, createTab, sendToTab, heldTabs } from "./relay.js";
import "./pages.js";

// Changes whenever this worker starts: tab ownership lives in its memory, so
// a server that sees a new instance knows its old tab handles are gone.
const INSTANCE = crypto.randomUUID();

// Every message from the host (host.js's startHost).
function onHostMessage(msg) {
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
  // A stop by the user ends the call at once (see abortInFlight in
  // stop.js), whatever the browser is still doing for it.
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
      // `mark`: these commands are that setup (see setupOf, relay.js).
      const str = (v) => (typeof v === "string" ? v : undefined);
      const setup = { ask: str(params.ask), mark: str(params.mark) };
      const results = await sendToTab(c, params.tabId, commands, undefined, setup);
      return setup.ask ? { results, setUp: setup.done === true } : { results };
    }
    default:
      throw new RelayError(ERROR.BAD_REQUEST, `unknown method ${method}`);
  }
}

// A stopped worker (crash, "Stop" in chrome://serviceworker-internals)
// is started again only by an event it listens to; without one, no
// client could reach the browser until the user touched the extension.
// The alarm wakes it (at most every 30 s) to reconnect the host.
const WAKE_ALARM = "tabwire-reconnect";
chrome.alarms.onAlarm.addListener((alarm) => {
  if (alarm.name === WAKE_ALARM && !hasPort()) reconnectNow();
});
chrome.alarms.create(WAKE_ALARM, { periodInMinutes: 0.5 });

startHost(onHostMessage);
