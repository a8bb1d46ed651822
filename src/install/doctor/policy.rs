//! Browser policies: whether a managed policy stops per-user native hosts
//! like tabwire's (read from the policy files on Linux, the registry on
//! Windows; macOS is left to chrome://policy).

use std::path::Path;

use serde_json::Value;

use super::manifests::Target;
use super::report::{Check, Status};
use crate::install::{browsers, registry, Env, Os};
use crate::protocol::HOST_NAME;

/// Why a set of managed policy documents stops per-user native hosts, if it does.
pub fn policy_blocks(policies: &[Value]) -> Option<String> {
    for p in policies {
        if p.get("NativeMessagingUserLevelHosts") == Some(&Value::Bool(false)) {
            return Some(
                "the NativeMessagingUserLevelHosts policy is false: the browser ignores per-user \
                 native hosts like tabwire's"
                    .into(),
            );
        }
    }
    let listed = |key: &str, what: &str| {
        policies.iter().any(|p| {
            p.get(key)
                .and_then(Value::as_array)
                .is_some_and(|a| a.iter().any(|v| v.as_str() == Some(what)))
        })
    };
    let allowed = listed("NativeMessagingAllowlist", HOST_NAME)
        || listed("NativeMessagingWhitelist", HOST_NAME);
    for key in ["NativeMessagingBlocklist", "NativeMessagingBlacklist"] {
        if !allowed && (listed(key, "*") || listed(key, HOST_NAME)) {
            return Some(format!(
                "the {key} policy blocks {HOST_NAME} (and NativeMessagingAllowlist does not list it)"
            ));
        }
    }
    None
}

fn read_policy_dir(dir: &Path) -> Vec<Value> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
        .filter_map(|e| std::fs::read_to_string(e.path()).ok())
        .filter_map(|t| serde_json::from_str(&t).ok())
        .collect()
}

pub(super) fn policy_checks(targets: &[Target], env: &Env) -> Vec<Check> {
    let mut blocked = Vec::new();
    let mut seen = Vec::new();
    for t in targets.iter().filter(|t| t.expected) {
        let Some(b) = browsers::by_name(&t.id) else {
            continue;
        };
        match env.os {
            Os::Linux => {
                for dir in browsers::linux_policy_dirs(b) {
                    if seen.contains(&dir) {
                        continue;
                    }
                    seen.push(dir.clone());
                    if let Some(why) = policy_blocks(&read_policy_dir(&dir)) {
                        blocked.push(format!("{} ({}): {why}", b.name, dir.display()));
                    }
                }
            }
            Os::Windows => {
                let Some(key) = browsers::windows_policy_key(b) else {
                    continue;
                };
                for root in ["HKLM", "HKCU"] {
                    let args =
                        registry::query_value_args(root, key, "NativeMessagingUserLevelHosts");
                    let value = registry::run(&args)
                        .ok()
                        .and_then(|o| registry::parse_dword(&o));
                    if value == Some(0) {
                        blocked.push(format!(
                            r"{}: {root}\{key}\NativeMessagingUserLevelHosts is 0: the browser ignores per-user native hosts",
                            b.name
                        ));
                    }
                }
            }
            Os::MacOs => {}
        }
    }
    if env.os == Os::MacOs {
        return vec![Check::new(
            "policy",
            Status::Info,
            "browser policy",
            "not checked on macOS; open chrome://policy and look for NativeMessagingUserLevelHosts \
             or NativeMessagingBlocklist",
        )];
    }
    if blocked.is_empty() {
        vec![Check::new(
            "policy",
            Status::Ok,
            "browser policy",
            "no policy blocks per-user native messaging hosts",
        )]
    } else {
        vec![Check::new("policy", Status::Fail, "browser policy", blocked.join("; ")).fix(
            "ask whoever manages this computer to allow per-user native hosts \
             (NativeMessagingUserLevelHosts) or to add com.tabwire.host to NativeMessagingAllowlist",
        )]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn policy_verdicts() {
        assert_eq!(policy_blocks(&[]), None);
        assert!(
            policy_blocks(&[json!({"NativeMessagingUserLevelHosts": false})])
                .unwrap()
                .contains("NativeMessagingUserLevelHosts")
        );
        assert_eq!(
            policy_blocks(&[json!({"NativeMessagingUserLevelHosts": true})]),
            None
        );
        assert!(policy_blocks(&[json!({"NativeMessagingBlocklist": ["*"]})]).is_some());
        assert!(
            policy_blocks(&[json!({"NativeMessagingBlocklist": ["com.tabwire.host"]})]).is_some()
        );
        assert_eq!(
            policy_blocks(&[
                json!({"NativeMessagingBlocklist": ["*"]}),
                json!({"NativeMessagingAllowlist": ["com.tabwire.host"]})
            ]),
            None
        );
        assert_eq!(
            policy_blocks(&[json!({"NativeMessagingBlocklist": ["com.other"]})]),
            None
        );
    }
}
