// A client's tab's downloads are made by the browser and handed to the
// client's server.
//
// When a driven tab starts a download, the browser downloads it as usual
// (so a form POST's attachment, a one-time link or a blob: URL the page
// revokes at once lose nothing), but into a folder of tabwire's own,
// `tabwire-incoming/<guid>` under the browser's download folder, and the
// download is reported to the tab's server as `Browser.downloadProgress`
// events (the CDP fallback's own, which chrome.debugger cannot reach),
// with the file's path once complete. The server moves the file into its
// download directory under its own name (src/page/downloads/download.rs), or stops
// the download with `Browser.cancelDownload` (answered here) when it is
// over its size limit. The browser's list keeps no entry of it.
//
// A download item names no tab, so the two are joined by URL: the driven
// tab's debugger session announces the download (Page.downloadWillBegin),
// which claims its URL for a few seconds; the browser's download of a
// claimed URL is renamed while its file name is being decided. Each claim
// takes one download. Every other download — the user's own, in tabs no
// client drives — is left as it is; while a client drives a tab it may
// wait up to HOLD_MS for a claim that is late.

const CLAIM_MS = 10_000;
const HOLD_MS = 1_000;
const PROGRESS_MS = 500;

const claims = [];          // {url, until, tabId, guid}
const waiting = new Set();  // downloads held for a claim: {item, settle(claim)}
const taken = new Map();    // download id -> {tabId, guid, timer}

let report = () => {};

function takeClaim(item) {
  const now = Date.now();
  while (claims.length && claims[0].until < now) claims.shift();
  const i = claims.findIndex((c) => c.url === item.url || c.url === item.finalUrl);
  if (i < 0) return null;
  return claims.splice(i, 1)[0];
}

// Tab `tabId` announced a download of `url` (the CDP guid names it to the server).
export function claimDownload(url, tabId, guid) {
  if (typeof url !== "string" || !url || typeof guid !== "string") return;
  // (Claims no download took expire: dropped here too, not only when a
  // download looks for one.)
  const now = Date.now();
  while (claims.length && claims[0].until < now) claims.shift();
  claims.push({ url, until: now + CLAIM_MS, tabId, guid });
  for (const w of waiting) {
    const claim = takeClaim(w.item);
    if (claim) {
      w.settle(claim);
      return;
    }
  }
}

function progressOf(t, item, state) {
  report(t.tabId, "Browser.downloadProgress", {
    guid: t.guid,
    state,
    receivedBytes: item?.bytesReceived ?? 0,
    totalBytes: Math.max(item?.totalBytes ?? 0, 0),
    filePath: state === "completed" ? item?.filename : undefined,
    mimeType: item?.mime,
  });
}

async function itemOf(id) {
  try {
    const [item] = await chrome.downloads.search({ id });
    return item;
  } catch {
    return undefined;
  }
}

// Reports a taken download's bytes until it ends (chrome.downloads
// tells of no bytes as they come).
function watch(id, t) {
  taken.set(id, t);
  const tick = async () => {
    if (!taken.has(id)) return;
    const item = await itemOf(id);
    if (item?.state === "in_progress") {
      progressOf(t, item, "inProgress");
      t.timer = setTimeout(tick, PROGRESS_MS);
    }
  };
  // (At once too: a size the server announced can stop it right away.)
  t.timer = setTimeout(tick, 0);
}

async function ended(id, state) {
  const t = taken.get(id);
  if (!t) return;
  taken.delete(id);
  clearTimeout(t.timer);
  const item = await itemOf(id);
  if (state === "complete") {
    progressOf(t, item, "completed");
  } else {
    progressOf(t, item, "canceled");
    if (item?.exists) await chrome.downloads.removeFile(id).catch(() => {});
  }
  // Only the list entry: the file is the server's now.
  await chrome.downloads.erase({ id }).catch(() => {});
}

// `Browser.cancelDownload` from a server: the browser removes the
// partial file of a canceled download.
export async function cancelDownload(guid) {
  for (const [id, t] of taken) {
    if (t.guid !== guid) continue;
    await chrome.downloads.cancel(id).catch(() => {});
    await ended(id, "interrupted");
  }
  return {};
}

// Registers the listeners. `driving()`: whether any client drives a tab
// now (only then can a claim still be on its way). `send(tabId, method,
// params)`: an event to the servers of tab `tabId`.
export function handDownloadsToServers(driving, send) {
  report = send;
  chrome.downloads.onDeterminingFilename.addListener((item, suggest) => {
    const decide = (claim) => {
      if (!claim) return suggest();
      watch(item.id, { tabId: claim.tabId, guid: claim.guid });
      suggest({ filename: `tabwire-incoming/${claim.guid}`, conflictAction: "uniquify" });
    };
    const claim = takeClaim(item);
    if (claim) {
      decide(claim);
      return false;
    }
    if (!driving()) {
      suggest();
      return false;
    }
    const w = { item };
    const timer = setTimeout(() => w.settle(null), HOLD_MS);
    w.settle = (c) => {
      clearTimeout(timer);
      waiting.delete(w);
      decide(c);
    };
    waiting.add(w);
    return true; // suggest() is called later
  });
  chrome.downloads.onChanged.addListener((delta) => {
    const state = delta.state?.current;
    if (taken.has(delta.id) && (state === "complete" || state === "interrupted")) {
      ended(delta.id, state);
    }
  });
}
