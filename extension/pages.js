// What tabwire's own pages ask (the popup, the options page, the site
// question in confirm.html): the state they show, sharing a tab with a
// client and taking it back, stop and resume, answers about sites, and
// this browser's name. The listener is registered when this module loads.

import { host, serverOfConn, servers, ownerOfTab, sharedTabs, reconnectNow, post, connsOf } from "./host.js";
import { VERSION, identity, identityLoaded, defaultLabel, browserLabel, renameBrowser, markNewTabsHere } from "./identity.js";
import { alwaysSites, prompts, answerPrompt, revokeSite } from "./consent.js";
import { STOPPED_IN_POPUP, stop, stopLoaded, stopAll, stopClient, resumeAll, resumeClient } from "./stop.js";
import { forgetTab } from "./relay.js";

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
