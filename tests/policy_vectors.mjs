// The extension's copy of the domain policy (extension/policy.js) against
// the shared vectors in policy_vectors.json; tests/policy_vectors.rs runs
// the same vectors through src/policy.rs and then runs this script.
//
//   node tests/policy_vectors.mjs
//
// A vector: { name, policy, url, expect: "allowed" | "blocked", reason?,
// host?, known_difference? }. `policy` is what the extension receives in a
// server's hello (Policy::for_extension); `reason` is "deny", "not_allowed",
// "file", "scheme" or "invalid"; `host` is the host the refusal names (deny and
// not_allowed only). Expectations are src/policy.rs's. A vector with
// `known_difference` is one where policy.js disagrees today: it is skipped
// here with a notice (and a louder one if the two have come to agree).
//
// policy.js needs no browser globals (URL and RegExp are Node's too).

import { readFileSync } from "node:fs";

const here = new URL(".", import.meta.url);
const policyUrl = new URL("../extension/policy.js", here);

// The extension has no package.json saying "type": "module"; a Node that
// does not detect ES module syntax by itself gets the source as a data: URL.
async function loadPolicy() {
  try {
    return await import(policyUrl.href);
  } catch (e) {
    if (!(e instanceof SyntaxError)) throw e;
    const src = readFileSync(policyUrl, "utf8");
    return await import("data:text/javascript;base64," + Buffer.from(src).toString("base64"));
  }
}

const { blockedBy } = await loadPolicy();
const vectors = JSON.parse(readFileSync(new URL("policy_vectors.json", here), "utf8"));

// policy.js's answer in the vectors' terms.
function outcome(policy, url) {
  const why = blockedBy(policy, url);
  if (why === null || why === undefined) return { expect: "allowed" };
  const cut = (marker) => why.slice(0, why.indexOf(marker));
  if (why.includes("(deny-domain ")) {
    return { expect: "blocked", reason: "deny", host: cut(" is blocked by the policy") };
  }
  if (why.includes("not among the allowed domains")) {
    return { expect: "blocked", reason: "not_allowed", host: cut(" is not among the allowed domains") };
  }
  if (why.includes("file:// URLs are not allowed")) return { expect: "blocked", reason: "file" };
  if (why.includes("only http(s) pages")) return { expect: "blocked", reason: "scheme" };
  if (why.includes("is not a valid URL")) return { expect: "blocked", reason: "invalid" };
  return { expect: "blocked", reason: `unrecognised refusal: ${why}` };
}

function wanted(v) {
  const w = { expect: v.expect };
  if (v.reason !== undefined) w.reason = v.reason;
  if (v.host !== undefined) w.host = v.host;
  return w;
}

function agrees(got, want) {
  return got.expect === want.expect
    && (want.reason === undefined || got.reason === want.reason)
    && (want.host === undefined || got.host === want.host);
}

function malformed(v) {
  if (typeof v.name !== "string" || typeof v.url !== "string") return "needs a string name and url";
  if (!v.policy || typeof v.policy !== "object" || Array.isArray(v.policy)) return "needs a policy object";
  if (v.expect !== "allowed" && v.expect !== "blocked") return `expect must be "allowed" or "blocked", not ${JSON.stringify(v.expect)}`;
  if (v.expect === "blocked" && !["deny", "not_allowed", "file", "scheme", "invalid"].includes(v.reason)) return `unknown reason ${JSON.stringify(v.reason)}`;
  if (v.expect === "allowed" && (v.reason !== undefined || v.host !== undefined)) return "an allowed vector has no reason or host";
  return null;
}

if (!Array.isArray(vectors) || vectors.length === 0) {
  console.error("policy_vectors.json must be a non-empty list of vectors");
  process.exit(1);
}

const failures = [];
let passed = 0;
let skipped = 0;
const names = new Set();
for (const v of vectors) {
  const bad = malformed(v);
  if (bad) {
    failures.push(`${JSON.stringify(v.name)}: malformed vector: ${bad}`);
    continue;
  }
  if (names.has(v.name)) failures.push(`${JSON.stringify(v.name)}: name used twice`);
  names.add(v.name);
  const want = wanted(v);
  let got;
  try {
    got = outcome(v.policy, v.url);
  } catch (e) {
    got = { expect: `threw ${e}` };
  }
  const ok = agrees(got, want);
  const show = `${JSON.stringify(v.name)} url=${JSON.stringify(v.url)} policy=${JSON.stringify(v.policy)}\n` +
    `    want ${JSON.stringify(want)}\n    got  ${JSON.stringify(got)}`;
  if (v.known_difference) {
    skipped++;
    if (ok) {
      console.log(`NOTICE: known difference no longer differs, drop its known_difference: ${show}`);
    } else {
      console.log(`skipped (known difference: ${v.known_difference}): ${JSON.stringify(v.name)}`);
    }
    continue;
  }
  if (ok) passed++;
  else failures.push(show);
}

for (const f of failures) console.log(`FAIL ${f}`);
console.log(`policy vectors (extension/policy.js): ${passed} passed, ${failures.length} failed, ${skipped} skipped as known differences`);
process.exit(failures.length ? 1 : 0);
