// What a "site" is for the user's yes (serve --confirm-sites): the
// registrable domain of a page's host, so one answer covers
// www.example.com and mail.example.com. Without the Public Suffix List this
// is an approximation: the last two labels, or three under a two-letter
// country code whose second level is a common public one (example.co.uk).
// IP addresses and single-label hosts (localhost) are their own site.

const PUBLIC_SECOND_LEVEL = new Set(["co", "com", "net", "org", "gov", "ac", "edu", "ne", "or", "go"]);

export function siteOf(url) {
  let u;
  try { u = new URL(url); } catch { return null; }
  if (u.protocol !== "http:" && u.protocol !== "https:") return null;
  const host = u.hostname.replace(/^\[|\]$/g, "").replace(/\.$/, "").toLowerCase();
  if (!host) return null;
  if (/^[\d.]+$/.test(host) || host.includes(":")) return host; // IPv4, IPv6
  const labels = host.split(".");
  if (labels.length <= 2) return host;
  const [second, top] = labels.slice(-2);
  const keep = top.length === 2 && PUBLIC_SECOND_LEVEL.has(second) ? 3 : 2;
  return labels.slice(-keep).join(".");
}
