// The domain policy again, inside the extension (defense in depth): a
// server's hello carries its policy, and the relay refuses page access the
// policy forbids even if the server asked for it. Mirror of src/policy.rs.

// A domain glob in the form hosts are compared in: each label without a
// `*` as the browser writes it (punycode, canonical IP addresses).
function canonicalGlob(glob) {
  const g = glob.trim().toLowerCase();
  if (g.includes("*")) {
    return g.split(".").map((label) => (label.includes("*") || /^[ -~]*$/.test(label) ? label : canonicalHost(label) ?? label)).join(".");
  }
  return canonicalHost(g) ?? g;
}

// `name` (a domain or IP address) as it reads in a parsed URL, or null.
function canonicalHost(name) {
  const bracketed = name.includes(":") && !name.startsWith("[") ? `[${name}]` : name;
  try {
    return strip(new URL(`http://${bracketed}/`).hostname);
  } catch {
    return null;
  }
}

function strip(hostname) {
  return hostname.replace(/^\[|\]$/g, "").replace(/\.+$/, "").toLowerCase();
}

// `*` matches any run of characters; "*.example.com" also matches the apex.
export function globMatches(glob, host) {
  const g = canonicalGlob(glob);
  if (g.startsWith("*.") && host === g.slice(2)) return true;
  const re = new RegExp("^" + g.split("*").map((p) => p.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*") + "$");
  return re.test(host);
}

// The host of an http(s) URL as the browser reads it, or null when the
// browser would not load it.
function hostOf(url) {
  try {
    return strip(new URL(url).hostname);
  } catch {
    return null;
  }
}

// Why `url` is off limits under `policy`, or null when it is allowed. (An
// empty URL is a new tab's about:blank.)
export function blockedBy(policy, url) {
  if (!policy || !url) return null;
  const scheme = url.split(":", 1)[0].toLowerCase();
  const rest = url.slice(scheme.length + 1);
  if (scheme === "about" && (rest === "blank" || rest === "srcdoc")) return null;
  if (scheme === "file") return policy.allowFileUrls ? null : "file:// URLs are not allowed";
  if (scheme !== "http" && scheme !== "https") return `only http(s) pages may be used (${scheme}:)`;
  const host = hostOf(url);
  if (host === null || host === "") return `${url} is not a valid URL`;
  const denied = (policy.denyDomains ?? []).find((g) => globMatches(g, host));
  if (denied) return `${host} is blocked by the policy (deny-domain ${denied})`;
  const allow = policy.allowDomains ?? [];
  if (allow.length && !allow.some((g) => globMatches(g, host))) return `${host} is not among the allowed domains`;
  return null;
}

// Commands that only leave a page or read its address: allowed on a
// blocked page so the server can move away from it. Letting a paused
// request go on (or answering its sign-in challenge, which the server does
// only for allowed hosts) is neither reading nor acting on the page, and a
// page on its way to a blocked address must not hang on it.
export const LEAVING = new Set([
  "Page.enable", "Runtime.enable", "Page.getFrameTree", "Page.navigate",
  "Page.getNavigationHistory", "Page.navigateToHistoryEntry", "Page.handleJavaScriptDialog",
  "Fetch.continueRequest", "Fetch.continueWithAuth",
]);
