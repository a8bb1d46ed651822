// The browser keeps no copy of a download a client's tab starts.
//
// tabwire serve saves such a download into its own download directory
// (src/tools/files.rs); the user's browser must not also write it into the
// user's Downloads folder. chrome.debugger cannot reach
// Browser.setDownloadBehavior (the CDP fallback's way), and a download item
// names no tab, so the two are joined by URL: the driven tab's debugger
// session announces the download (Page.downloadWillBegin), which claims its
// URL for a few seconds; the browser's download of a claimed URL is
// cancelled while its file name is still being decided (before any file
// has its name, and before the download can complete) and erased from the
// browser's list. Each claim takes one download. Every other download — the
// user's own, in tabs no client drives — is left as it is; while a client
// drives a tab it may wait up to HOLD_MS for a claim that is late.

const CLAIM_MS = 10_000;
const HOLD_MS = 1_000;

const claims = [];          // {url, until}
const waiting = new Set();  // downloads held for a claim: {item, settle(claimed)}

function takeClaim(item) {
  const now = Date.now();
  while (claims.length && claims[0].until < now) claims.shift();
  const i = claims.findIndex((c) => c.url === item.url || c.url === item.finalUrl);
  if (i < 0) return false;
  claims.splice(i, 1);
  return true;
}

// A driven tab announced a download of `url`.
export function claimDownload(url) {
  if (typeof url !== "string" || !url) return;
  // (Claims no download took expire: dropped here too, not only when a
  // download looks for one.)
  const now = Date.now();
  while (claims.length && claims[0].until < now) claims.shift();
  claims.push({ url, until: now + CLAIM_MS });
  for (const w of waiting) {
    if (takeClaim(w.item)) {
      w.settle(true);
      return;
    }
  }
}

async function drop(id) {
  try {
    await chrome.downloads.cancel(id);
  } catch (e) {
    console.warn("tabwire: could not cancel the browser's copy of a download", e);
  }
  // A download that finished anyway (it cannot while its name is being
  // decided, but should one) loses its file too.
  try {
    const [item] = await chrome.downloads.search({ id });
    if (item?.state === "complete" && item.exists) await chrome.downloads.removeFile(id);
  } catch {
    // Gone already.
  }
  try {
    await chrome.downloads.erase({ id });
  } catch {
    // Nothing left to erase.
  }
}

// Registers the listener. `driving()`: whether any client drives a tab
// now (only then can a claim still be on its way).
export function keepNoCopies(driving) {
  chrome.downloads.onDeterminingFilename.addListener((item, suggest) => {
    const decide = (claimed) => {
      if (claimed) {
        drop(item.id);
      } else {
        suggest();
      }
    };
    if (takeClaim(item)) {
      // Held (suggest is never called) until the cancel ends it.
      decide(true);
      return true;
    }
    if (!driving()) {
      suggest();
      return false;
    }
    const w = { item };
    const timer = setTimeout(() => w.settle(false), HOLD_MS);
    w.settle = (claimed) => {
      clearTimeout(timer);
      waiting.delete(w);
      decide(claimed);
    };
    waiting.add(w);
    return true; // suggest() is called later
  });
}
