//! The domain policy exists twice: `src/policy/` (the reference) and the
//! extension's `extension/policy.js`. Both are checked against the same
//! vectors, `tests/policy_vectors.json`: here through `Policy::check_url`,
//! and by `tests/policy_vectors.mjs` (run from here) through `blockedBy`.
//!
//! A vector: `{ name, policy, url, expect: "allowed" | "blocked", reason?,
//! host?, known_difference? }`. `policy` is in the shape the extension
//! receives (`Policy::for_extension`); `reason` is `deny`, `not_allowed`,
//! `file`, `scheme` or `invalid` (the browser would not load it); `host` is the host a `deny` / `not_allowed` refusal
//! names. The expectations are Rust's, so a vector marked
//! `known_difference` (policy.js disagrees today) is still checked here,
//! with a notice; the node runner skips it.

use std::path::Path;
use std::process::Command;

use serde_json::{Map, Value};
use tabwire::policy::Policy;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The keys of `Policy::for_extension`, all a vector's policy may give.
const EXTENSION_KEYS: [&str; 4] = [
    "allowDomains",
    "denyDomains",
    "allowFileUrls",
    "confirmSites",
];

fn vectors() -> Vec<Value> {
    let path = Path::new(ROOT).join("tests/policy_vectors.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("could not read {}: {e}", path.display()));
    let vectors: Vec<Value> = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{} is not a JSON list: {e}", path.display()));
    assert!(!vectors.is_empty(), "no vectors in {}", path.display());
    vectors
}

fn strings(v: Option<&Value>, what: &str) -> Vec<String> {
    match v {
        None => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|i| {
                i.as_str()
                    .unwrap_or_else(|| panic!("{what} holds a non-string: {i}"))
                    .to_string()
            })
            .collect(),
        Some(other) => panic!("{what} is not a list: {other}"),
    }
}

fn flag(v: Option<&Value>, what: &str) -> bool {
    match v {
        None => false,
        Some(b) => b
            .as_bool()
            .unwrap_or_else(|| panic!("{what} is not a boolean: {b}")),
    }
}

/// The Rust policy a vector's (extension-shaped) policy stands for; Err if
/// the vector's policy is not what `for_extension` would send for it.
fn policy_of(given: &Map<String, Value>) -> Result<Policy, String> {
    if let Some(k) = given.keys().find(|k| !EXTENSION_KEYS.contains(&k.as_str())) {
        return Err(format!("policy key {k:?} is not one for_extension sends"));
    }
    let policy = Policy {
        allow_domains: strings(given.get("allowDomains"), "allowDomains"),
        deny_domains: strings(given.get("denyDomains"), "denyDomains"),
        allow_file_urls: flag(given.get("allowFileUrls"), "allowFileUrls"),
        confirm_sites: flag(given.get("confirmSites"), "confirmSites"),
        ..Default::default()
    };
    let sent = policy.for_extension();
    let sent = sent
        .as_object()
        .ok_or("for_extension did not give an object")?;
    let mut sent_keys: Vec<&str> = sent.keys().map(String::as_str).collect();
    sent_keys.sort_unstable();
    let mut expected_keys = EXTENSION_KEYS.to_vec();
    expected_keys.sort_unstable();
    if sent_keys != expected_keys {
        return Err(format!(
            "for_extension sends {sent_keys:?}; the vectors know {expected_keys:?} (update EXTENSION_KEYS and the vectors)"
        ));
    }
    for (k, v) in given {
        if sent.get(k) != Some(v) {
            return Err(format!(
                "for_extension sends {k} = {}, the vector says {v}",
                sent.get(k).map_or("nothing".to_string(), |s| s.to_string())
            ));
        }
    }
    Ok(policy)
}

/// The text of `why` before `marker` (the host a refusal begins with).
fn before<'a>(why: &'a str, marker: &str) -> Option<&'a str> {
    why.find(marker).map(|i| &why[..i])
}

/// `check_url`'s answer in the vectors' terms: (expect, reason, host).
fn outcome(policy: &Policy, url: &str) -> (String, Option<String>, Option<String>) {
    let why = match policy.check_url(url) {
        Ok(()) => return ("allowed".into(), None, None),
        Err(why) => why,
    };
    let blocked = |reason: &str, host: Option<&str>| {
        (
            "blocked".to_string(),
            Some(reason.to_string()),
            host.map(str::to_string),
        )
    };
    if why.contains("(deny-domain ") {
        blocked("deny", before(&why, " is blocked by the policy"))
    } else if why.contains("not among the allowed domains") {
        blocked(
            "not_allowed",
            before(&why, " is not among the allowed domains"),
        )
    } else if why.contains("file:// URLs are not allowed") {
        blocked("file", None)
    } else if why.contains("only http(s) pages") {
        blocked("scheme", None)
    } else if why.contains("is not a valid URL") {
        blocked("invalid", None)
    } else {
        blocked(&format!("unrecognised refusal: {why}"), None)
    }
}

#[test]
fn rust_policy_meets_the_shared_vectors() {
    let mut failures = Vec::new();
    let mut names = std::collections::HashSet::new();
    let all = vectors();
    for v in &all {
        let name = v["name"].as_str().unwrap_or("<unnamed>");
        if !names.insert(name.to_string()) {
            failures.push(format!("{name:?}: name used twice"));
        }
        let (Some(url), Some(given), Some(expect)) = (
            v["url"].as_str(),
            v["policy"].as_object(),
            v["expect"].as_str(),
        ) else {
            failures.push(format!(
                "{name:?}: malformed vector (needs url, policy, expect): {v}"
            ));
            continue;
        };
        if !matches!(expect, "allowed" | "blocked") {
            failures.push(format!(
                "{name:?}: expect must be allowed or blocked, not {expect:?}"
            ));
            continue;
        }
        let policy = match policy_of(given) {
            Ok(p) => p,
            Err(e) => {
                failures.push(format!("{name:?}: {e}"));
                continue;
            }
        };
        let want_reason = v.get("reason").and_then(Value::as_str);
        let want_host = v.get("host").and_then(Value::as_str);
        let (got, reason, host) = outcome(&policy, url);
        let ok = got == expect
            && want_reason.is_none_or(|r| reason.as_deref() == Some(r))
            && want_host.is_none_or(|h| host.as_deref() == Some(h));
        if let Some(diff) = v.get("known_difference").and_then(Value::as_str) {
            println!("notice: {name:?} is a known difference from extension/policy.js ({diff}); checked against Rust only");
        }
        if !ok {
            failures.push(format!(
                "{name:?} url={url:?} policy={}\n    want {expect} {want_reason:?} {want_host:?}\n    got  {got} {reason:?} {host:?}",
                Value::Object(given.clone())
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} policy vectors fail against src/policy.rs:\n{}",
        failures.len(),
        all.len(),
        failures.join("\n")
    );
}

#[test]
fn extension_policy_meets_the_shared_vectors() {
    let out = match Command::new("node")
        .arg("tests/policy_vectors.mjs")
        .current_dir(ROOT)
        .output()
    {
        Ok(out) => out,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            println!("notice: node is not installed; extension/policy.js was not checked against the policy vectors");
            return;
        }
        Err(e) => panic!("could not run node tests/policy_vectors.mjs: {e}"),
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    print!("{stdout}");
    assert!(
        out.status.success(),
        "node tests/policy_vectors.mjs failed ({}):\n{stdout}\n{stderr}",
        out.status
    );
}
