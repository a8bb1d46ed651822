// Sites that need the user's yes (serve --confirm-sites): which sites a
// request would use, asking the user in confirm.html, the answers kept
// ("Always" in chrome.storage.local; "Allow once" in host.js's onceSites),
// and revoking them.

import { METHOD, ERROR } from "./protocol.js";
import { blockedBy, LEAVING } from "./policy.js";
import { siteOf } from "./sites.js";
import { serverOfConn, servers, ownerOfTab, onceSites, RelayError, post, connsOf } from "./host.js";

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
// (Replaced once read from storage: importers see the new object, as an
// ES module export is a live binding.)
export let alwaysSites = {};         // client name -> {site: since}
export const prompts = new Map();    // prompt id -> {serverId, client, site, windowId, done(answer)}
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

export async function checkSites(c, method, params) {
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
export function closeQuestions(hit) {
  for (const entry of [...prompts.values()]) if (hit(entry.serverId)) entry.done("deny");
}

export function answerPrompt(id, answer) {
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

export async function revokeSite(client, site) {
  if (alwaysSites[client]) {
    delete alwaysSites[client][site];
    if (!Object.keys(alwaysSites[client]).length) delete alwaysSites[client];
  }
  await saveSites();
}
