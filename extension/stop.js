// The user's stop (the emergency brake) and resume: the stop state and its
// storage, the gate every call passes, ending calls in flight, detaching
// the stopped clients' tabs, telling their servers, and the STOP badge.

import { METHOD, ERROR } from "./protocol.js";
import { serverOfConn, servers, ownerOfTab, attached, inFlight, RelayError, post, connsOf } from "./host.js";
import { closeQuestions } from "./consent.js";

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

export const CANCELED_BY_USER = "canceled_by_user";
export const STOPPED_IN_POPUP = "popup";
const STOP_KEY = "stop";
const MAX_CLIENT_STOPS = 100;
// all: {cause, since} | null; clients: {serverId: {cause, since}}
export const stop = { all: null, clients: {} };

// Read once at start; every check waits for it, so a restarted worker never
// serves a call before it knows it was stopped.
export const stopLoaded = chrome.storage.local.get(STOP_KEY).then((saved) => {
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
export function stopOf(serverId) {
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
export async function checkRunning(c) {
  await stopLoaded;
  const s = stopOf(serverOfConn.get(c));
  if (s) throw stoppedError(s);
}

// An attach that finished after its owner was stopped is undone at once.
export async function detachIfStopped(tabId) {
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

export async function stopAll(cause) {
  if (!stop.all) stop.all = { cause, since: Date.now() };
  abortInFlight(() => true);
  closeQuestions(() => true);
  announceStop();
  await saveStop();
  await detachTabs(() => true);
}

export async function stopClient(serverId) {
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

export async function resumeAll() {
  await stopLoaded;
  stop.all = null;
  await saveStop();
  announceStop();
}

export async function resumeClient(serverId) {
  await stopLoaded;
  delete stop.clients[serverId];
  await saveStop();
  announceStop();
}
