// tabwire popup (toolbar button) and options page: shows whether the native
// host is connected (and why not), the connected MCP clients with their
// tabs, lets the user share a tab with a client or stop sharing it, and
// stop (and resume) one client or all of them.
// All state lives in the service worker; this page only asks and shows.

const view = document.body.dataset.view; // "popup" | "options"
const query = new URLSearchParams(location.search);
const $ = (id) => document.getElementById(id);

function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === "class") node.className = v;
    else if (k === "data") Object.assign(node.dataset, v);
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node[k] = v;
  }
  for (const c of children.flat()) {
    if (c !== null && c !== undefined) node.append(c);
  }
  return node;
}

// Text with `code` spans, as nodes.
function withCode(text) {
  return text.split("`").map((part, i) => (i % 2 ? el("code", {}, part) : part));
}

async function ask(msg) {
  const r = await chrome.runtime.sendMessage(msg);
  if (r?.error) throw new Error(r.error);
  return r;
}

// What the browser's error means and what to do about it.
function explain(error) {
  const e = error ?? "";
  if (/not found/i.test(e)) {
    return "tabwire's native host is not registered for this browser (or for this profile). Run `tabwire install` in a terminal, then click Retry.";
  }
  if (/forbidden/i.test(e)) {
    return "The host manifest does not allow this extension's ID. Run `tabwire install` again.";
  }
  if (/failed to start/i.test(e)) {
    return "The browser could not start the program named in the host manifest (moved or deleted?). Run `tabwire install` again.";
  }
  if (/exited/i.test(e)) {
    return "The native host started and exited at once.";
  }
  return "The connection to tabwire's native host closed.";
}

let lastError = null;
let lastState = "";
let busy = false;

function renderHost(state) {
  const box = $("host");
  box.replaceChildren();
  const h = state.host;
  const clients = state.clients.length;
  if (h.state === "connected") {
    box.append(
      el("div", { class: "state ok" }, "Native host: connected"),
      el("div", { class: "muted" },
        clients === 0
          ? withCode("No MCP client is connected. Start your MCP client; it runs `tabwire serve`.")
          : `${clients} MCP client${clients === 1 ? "" : "s"} connected.`),
    );
  } else if (h.state === "connecting") {
    box.append(el("div", { class: "state wait" }, "Native host: connecting…"));
  } else {
    box.append(
      el("div", { class: "state bad" }, "Native host: not connected"),
      el("p", { class: "hint" }, withCode(explain(h.error))),
      el("p", { class: "hint muted" }, `Browser said: ${h.error ?? "nothing"}`),
      el("p", { class: "hint" }, "Run ", el("code", {}, "tabwire doctor"), " in a terminal: it checks every step and says how to fix it."),
      el("div", { class: "row" }, el("button", { data: { action: "retry" }, onclick: () => act({ type: "tabwire.reconnect" }) }, "Retry now")),
    );
  }
}

// This browser's name (what agents see when several browsers or profiles
// are connected), the "Agents open new tabs here" mark, and (options page)
// renaming it. Left alone while unchanged, so typing a name is not undone.
function renderBrowser(state) {
  const box = $("browser");
  if (!box || !state.browser) return;
  const b = state.browser;
  const key = JSON.stringify(b);
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  box.replaceChildren(
    el("div", {}, "This browser: ", el("span", { class: "client-name", id: "browser-name" }, b.label)),
    el("label", { class: "row" },
      el("input", {
        type: "checkbox",
        id: "new-tabs-here",
        checked: !!b.newTabsHere,
        onchange: (e) => act({ type: "tabwire.newTabsHere", on: e.target.checked }),
      }),
      "Agents open new tabs here"),
  );
  if (view === "options") {
    const input = el("input", { type: "text", id: "browser-label", value: b.custom ? b.label : "", placeholder: b.defaultLabel, maxLength: 60 });
    box.append(el("div", { class: "row" },
      el("label", { for: "browser-label" }, "Name"),
      input,
      el("button", { data: { action: "rename" }, onclick: () => act({ type: "tabwire.renameBrowser", name: input.value }) }, "Rename")),
    el("div", { class: "muted" }, "Agents see this name when several browsers or profiles run tabwire. Leave it empty for the default."));
  }
}

// The kill switch: Stop all while any client is connected, and the banner
// with Resume while the user has stopped browser control.
function renderStop(state) {
  const box = $("stop");
  box.replaceChildren();
  const all = state.stoppedAll;
  box.hidden = !all && state.clients.length === 0;
  if (all) {
    const how = all.cause === "canceled_by_user"
      ? "You clicked Cancel on the browser's “started debugging” bar."
      : "You pressed Stop all.";
    box.className = "card stopped";
    box.append(
      el("div", { class: "state bad" }, "Browser control stopped"),
      el("p", { class: "hint" }, `${how} No MCP client can use this browser until you resume.`),
      el("div", { class: "row" }, el("button", {
        class: "primary",
        data: { action: "resume-all" },
        onclick: () => act({ type: "tabwire.resumeAll" }),
      }, "Resume")));
  } else {
    box.className = "card";
    box.append(el("div", { class: "row" },
      el("button", {
        class: "danger",
        data: { action: "stop-all" },
        title: "Stop every MCP client now and detach from all tabs",
        onclick: () => act({ type: "tabwire.stopAll" }),
      }, "Stop all"),
      el("span", { class: "muted" }, "Stops every MCP client at once, until you resume.")));
  }
}

function tabLabel(tab) {
  return tab ? (tab.title || tab.url || `tab ${tab.id}`) : "a closed tab";
}

// Controls for one tab: who has it, and share / stop sharing.
function tabControls(tab, state) {
  const owner = state.owners[tab.id];
  if (owner?.shared) {
    return el("div", { class: "row" },
      el("span", {}, "Shared with ", el("span", { class: "client-name" }, owner.name)),
      el("button", { data: { action: "unshare", tabId: String(tab.id) }, onclick: () => act({ type: "tabwire.unshare", tabId: tab.id }) }, "Stop sharing"));
  }
  if (owner) {
    return el("div", { class: "row muted" }, `Opened by ${owner.name}.`);
  }
  if (!/^(https?|file):/i.test(tab.url ?? "") && tab.url !== "about:blank") {
    return el("div", { class: "row muted" }, "Browser and extension pages cannot be shared.");
  }
  if (state.clients.length === 0) {
    return el("div", { class: "row muted" }, "Not shared. Connect an MCP client to share it.");
  }
  const select = el("select", { name: "client", title: "MCP client" },
    state.clients.map((c) => el("option", { value: c.id }, c.name)));
  return el("div", { class: "row" },
    el("span", { class: "muted" }, "Not shared."),
    select,
    el("button", {
      class: "primary",
      data: { action: "share", tabId: String(tab.id) },
      onclick: () => act({ type: "tabwire.share", tabId: tab.id, client: select.value }),
    }, "Share"));
}

async function targetTab() {
  const forced = Number(query.get("tab"));
  if (forced) return chrome.tabs.get(forced).catch(() => null);
  const [tab] = await chrome.tabs.query({ active: true, lastFocusedWindow: true });
  return tab ?? null;
}

async function renderThisTab(state) {
  const box = $("this-tab");
  if (!box) return;
  const tab = await targetTab();
  box.replaceChildren(el("h2", {}, "This tab"));
  if (!tab) {
    box.append(el("div", { class: "muted" }, "No tab."));
    return;
  }
  box.append(el("div", { class: "tab-title", title: tab.url ?? "" }, tabLabel(tab)), tabControls(tab, state));
}

// Clients the user stopped that are not connected now: Resume stays at hand.
function renderStoppedAway(state, box) {
  if (!state.stoppedAway?.length) return;
  box.append(el("div", { class: "muted" }, "Stopped by you, not connected now:"),
    el("ul", {}, state.stoppedAway.map((c) => el("li", { data: { client: c.id, away: "true" } },
      el("span", { class: "client-name" }, c.name),
      el("span", { class: "client-actions" },
        el("button", { data: { action: "resume-client", client: c.id }, onclick: () => act({ type: "tabwire.resumeClient", client: c.id }) }, "Resume"))))));
}

async function renderClients(state) {
  const box = $("clients");
  box.replaceChildren(el("h2", {}, "MCP clients"));
  if (state.clients.length === 0) {
    box.append(el("div", { class: "muted" }, "None connected."));
    renderStoppedAway(state, box);
    return;
  }
  const list = el("ul");
  for (const c of state.clients) {
    const tabs = await Promise.all(c.tabs.map((t) => chrome.tabs.get(t.tabId).then((tab) => ({ ...t, tab }), () => ({ ...t, tab: null }))));
    const item = el("li", { data: { client: c.id } },
      el("span", { class: "client-name" }, c.name),
      el("span", { class: "tag" }, `tab group “${c.name}”`),
      el("span", { class: "muted" }, ` — ${tabs.length} tab${tabs.length === 1 ? "" : "s"}`));
    item.append(c.stopped
      ? el("span", { class: "client-actions" },
        el("span", { class: "tag stopped" }, "stopped by you"),
        el("button", { data: { action: "resume-client", client: c.id }, onclick: () => act({ type: "tabwire.resumeClient", client: c.id }) }, "Resume"))
      : el("span", { class: "client-actions" },
        el("button", { data: { action: "stop-client", client: c.id }, title: `Stop ${c.name} and detach from its tabs`, onclick: () => act({ type: "tabwire.stopClient", client: c.id }) }, "Stop")));
    if (tabs.length) {
      item.append(el("ul", {}, tabs.map((t) => el("li", { class: "tab-title" },
        tabLabel(t.tab), t.shared ? el("span", { class: "tag" }, "shared by you") : null))));
    }
    if (c.recent?.length) {
      item.append(el("div", { class: "muted recent" }, "Recent: " +
        c.recent.slice().reverse().map((a) => a.tool.replace(/^browser_/, "") + (a.ok ? "" : " (failed)")).join(", ")));
    }
    list.append(item);
  }
  box.append(list);
  renderStoppedAway(state, box);
}

async function renderAllTabs(state) {
  const box = $("all-tabs");
  if (!box) return;
  const tabs = await chrome.tabs.query({});
  const me = await chrome.tabs.getCurrent().catch(() => null);
  box.replaceChildren(el("h2", {}, "Your tabs"));
  const table = el("table");
  for (const tab of tabs) {
    if (me && tab.id === me.id) continue;
    table.append(el("tr", { data: { tabId: String(tab.id), url: tab.url ?? "" } },
      el("td", { class: "tab-title", title: tab.url ?? "" }, tabLabel(tab)),
      el("td", {}, tabControls(tab, state))));
  }
  box.append(table);
}

// Sites the user allowed "always" per client (serve --confirm-sites),
// each revocable.
function renderSites(state) {
  const box = $("sites");
  if (!box) return;
  box.replaceChildren(el("h2", {}, "Sites you allowed"));
  const rows = Object.entries(state.sites ?? {}).flatMap(([client, sites]) =>
    Object.keys(sites).sort().map((site) => ({ client, site })));
  if (!rows.length) {
    box.append(el("div", { class: "muted" }, withCode("None. Clients started with `--confirm-sites` ask before they use a site.")));
    return;
  }
  box.append(el("table", {}, rows.map(({ client, site }) => el("tr", { data: { client, site } },
    el("td", { class: "client-name" }, client),
    el("td", {}, site),
    el("td", {}, el("button", {
      data: { action: "revoke" },
      onclick: () => act({ type: "tabwire.revokeSite", client, site }),
    }, "Revoke"))))));
}

// Redraws when something changed (`force`: tabs changed or the user acted),
// so a menu the user is choosing from is not replaced under them.
async function render(force = true) {
  if (busy) return;
  busy = true;
  try {
    const state = await ask({ type: "tabwire.state" });
    const json = JSON.stringify(state);
    if (!force && json === lastState) return;
    lastState = json;
    $("version").textContent = `extension ${state.version}`;
    renderStop(state);
    renderHost(state);
    renderBrowser(state);
    await renderThisTab(state);
    await renderClients(state);
    await renderAllTabs(state);
    renderSites(state);
    if (lastError) $("clients").append(el("div", { class: "error", role: "alert" }, lastError));
    document.body.dataset.ready = "true";
  } catch (e) {
    $("host").replaceChildren(el("div", { class: "state bad" }, `tabwire is not running: ${e.message}`));
  } finally {
    busy = false;
  }
}

async function act(msg) {
  try {
    await ask(msg);
    lastError = null;
  } catch (e) {
    lastError = e.message;
  }
  await render();
}

render();
setInterval(() => render(false), 1000);
chrome.tabs.onUpdated.addListener(() => render());
chrome.tabs.onRemoved.addListener(() => render());
if (view === "popup") {
  $("open-options")?.addEventListener("click", (e) => {
    e.preventDefault();
    chrome.runtime.openOptionsPage();
  });
}
