// The domain policy again, inside the extension (defense in depth): a
// server's hello carries its policy, and the relay refuses page access the
// policy forbids even if the server asked for it. Mirror of src/policy.rs.

// `*` matches any run of characters; "*.example.com" also matches the apex.
export function globMatches(glob, host) {
  const g = glob.trim().toLowerCase();
  if (g.startsWith("*.") && host === g.slice(2)) return true;
  const re = new RegExp("^" + g.split("*").map((p) => p.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*") + "$");
  return re.test(host);
}

function hostOf(url) {
  try {
    return new URL(url).hostname.replace(/^\[|\]$/g, "").replace(/\.$/, "").toLowerCase();
  } catch {
    return "";
  }
}

// Why `url` is off limits under `policy`, or null when it is allowed.
export function blockedBy(policy, url) {
  if (!policy || !url) return null;
  const scheme = url.split(":", 1)[0].toLowerCase();
  if (url === "about:blank" || url === "about:srcdoc") return null;
  if (scheme === "file") return policy.allowFileUrls ? null : "file:// URLs are not allowed";
  if (scheme !== "http" && scheme !== "https") return `only http(s) pages may be used (${scheme}:)`;
  const host = hostOf(url);
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
