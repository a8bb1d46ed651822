// The question the extension asks when a client (serve --confirm-sites)
// first wants a site the user has not approved for it. The service worker
// holds the call until this page answers, the question times out, or the
// window is closed (which counts as Deny).

const id = Number(new URLSearchParams(location.search).get("id"));
const box = document.getElementById("question");

function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === "class") node.className = v;
    else if (k === "data") Object.assign(node.dataset, v);
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node[k] = v;
  }
  node.append(...children);
  return node;
}

async function ask(msg) {
  const r = await chrome.runtime.sendMessage(msg);
  if (r?.error) throw new Error(r.error);
  return r;
}

async function answer(a) {
  try {
    await ask({ type: "tabwire.answer", id, answer: a });
    box.replaceChildren(el("div", {}, "Answered. You can close this window."));
    window.close();
  } catch (e) {
    box.replaceChildren(el("div", { class: "error" }, e.message));
  }
}

(async () => {
  try {
    const q = await ask({ type: "tabwire.prompt", id });
    box.replaceChildren(
      el("p", {}, el("span", { class: "client-name" }, q.client), " wants to open or act on ",
        el("strong", { class: "site" }, q.site), " in this browser."),
      el("div", { class: "row" },
        el("button", { class: "primary", data: { answer: "once" }, onclick: () => answer("once") }, "Allow once"),
        el("button", { data: { answer: "always" }, onclick: () => answer("always") }, "Always for this site"),
        el("button", { class: "danger", data: { answer: "deny" }, onclick: () => answer("deny") }, "Deny")),
      el("p", { class: "hint muted" },
        "Allow once: while this client runs. Always: until you revoke it on tabwire's options page."));
    box.querySelector("button").focus();
  } catch (e) {
    box.replaceChildren(el("div", { class: "error" }, e.message));
  }
  document.body.dataset.ready = "true";
})();
