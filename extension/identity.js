// What this extension and this browser are called: the extension's
// version, the browser's name for doctor, and the name agents see for
// this browser (its stable id, label and "Agents open new tabs here" mark,
// kept in chrome.storage.local).

import { serverOfConn, post } from "./host.js";

export const VERSION = chrome.runtime.getManifest().version;

// "Chromium 156.0.7000.1", "Google Chrome 131.0…", for doctor.
export function browserName() {
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
export const identity = { id: null, label: null, newTabsHere: null };
const MAX_LABEL = 60;

export const identityLoaded = chrome.storage.local.get(IDENTITY_KEY).then(async (saved) => {
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

export function defaultLabel() {
  const brand = browserName().replace(/\s+[\d.]+$/, "") || "Browser";
  return `${brand} (${String(identity.id ?? "").replace(/-/g, "").slice(0, 4)})`;
}

export function browserLabel() {
  return identity.label ?? defaultLabel();
}

function announceBrowser() {
  const params = { browserLabel: browserLabel(), newTabsHere: identity.newTabsHere };
  for (const c of serverOfConn.keys()) post(c, { event: "browser", params });
}

export async function renameBrowser(name) {
  await identityLoaded;
  const label = String(name ?? "").trim().slice(0, MAX_LABEL);
  identity.label = label || null;
  await saveIdentity();
  announceBrowser();
}

export async function markNewTabsHere(on) {
  await identityLoaded;
  identity.newTabsHere = on ? Date.now() : null;
  await saveIdentity();
  announceBrowser();
}
