//! `browser_cookies` and `browser_storage`: the state a site keeps in the
//! browser, scoped to the current page (or a `url` the policy allows).

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

use super::def::cut_with;
use super::def::{Cap, Kind, Response, ToolDef, ToolError};
use crate::page::Tab;

/// Longest cookie or storage value shown in a listing.
const LIST_VALUE: usize = 200;
/// Longest single value returned by `get`.
const GET_VALUE: usize = 20_000;

// What to do with cookies or storage entries (the enum says enough to a
// model: no schema description, which tools/list would carry twice).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum DataAction {
    List,
    Get,
    Set,
    Delete,
    Clear,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct CookieArgs {
    pub action: DataAction,
    pub name: Option<String>,
    pub value: Option<String>,
    pub url: Option<String>,
    pub domain: Option<String>,
    pub path: Option<String>,
    pub expires: Option<f64>,
    #[serde(default, rename = "httpOnly")]
    pub http_only: bool,
    #[serde(default)]
    pub secure: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Area {
    Local,
    Session,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct StorageArgs {
    pub area: Area,
    pub action: DataAction,
    pub key: Option<String>,
    pub value: Option<String>,
}

/// Runs one storage action in the page; `null` for a missing key.
const STORAGE: &str = r#"(a) => {
  const s = a.area === 'local' ? localStorage : sessionStorage;
  switch (a.action) {
    case 'list': return Object.keys(s).sort().map(k => [k, s.getItem(k)]);
    case 'get': return s.getItem(a.key);
    case 'set': s.setItem(a.key, a.value); return true;
    case 'delete': { const had = s.getItem(a.key) !== null; s.removeItem(a.key); return had; }
    case 'clear': { const n = s.length; s.clear(); return n; }
  }
}"#;

pub fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::on_tab(
            "browser_cookies",
            "Cookies",
            Kind::Action,
            "Cookies of the page (or `url`): list, get, set, delete, clear.",
            cookies_tool,
        )
        .in_group(Cap::Storage),
        ToolDef::on_tab(
            "browser_storage",
            "Web storage",
            Kind::Action,
            "The page's localStorage/sessionStorage: list, get, set, delete, clear.",
            storage,
        )
        .in_group(Cap::Storage),
    ]
}

/// browser_cookies.
async fn cookies_tool(tab: Tab, a: CookieArgs) -> Result<Response, ToolError> {
    let s = tab.client();
    let url = match &a.url {
        Some(u) => {
            s.policy()
                .check_url(u)
                .map_err(|why| ToolError::other(format!("not touching those cookies: {why}")))?;
            u.clone()
        }
        None => tab.url().await?,
    };
    if !url.starts_with("http") {
        return Err(ToolError::other(format!(
            "{url} has no cookies; navigate to a web page or pass `url`"
        )));
    }
    cookies(&tab, &url, a).await.map(Response::text)
}

/// browser_storage.
async fn storage(tab: Tab, a: StorageArgs) -> Result<Response, ToolError> {
    let s = tab.client();
    let area = match a.area {
        Area::Local => "local",
        Area::Session => "session",
    };
    let action = match a.action {
        DataAction::List => "list",
        DataAction::Get => "get",
        DataAction::Set => "set",
        DataAction::Delete => "delete",
        DataAction::Clear => "clear",
    };
    if matches!(action, "get" | "set" | "delete") && a.key.is_none() {
        return Err(ToolError::other(format!("{action} needs `key`")));
    }
    if action == "set" && a.value.is_none() {
        return Err(ToolError::other("set needs `value`".into()));
    }
    let r = tab
        .call_page(
            STORAGE,
            json!({"area": area, "action": action, "key": a.key, "value": a.value}),
        )
        .await
        .map_err(|e| {
            ToolError::other(format!("{area}Storage is not available on this page ({e})"))
        })?;
    let key = a.key.as_deref().unwrap_or_default();
    let text = match action {
        "list" => {
            let items = r.as_array().cloned().unwrap_or_default();
            if items.is_empty() {
                format!("{area}Storage is empty.")
            } else {
                let mut list = String::new();
                for kv in &items {
                    list.push_str(&format!(
                        "  {} = {}\n",
                        kv[0].as_str().unwrap_or(""),
                        one_line(kv[1].as_str().unwrap_or(""), LIST_VALUE)
                    ));
                }
                format!(
                    "{area}Storage ({} entries; page data):\n{}",
                    items.len(),
                    s.fence().wrap(&list)
                )
            }
        }
        "get" => match r.as_str() {
            Some(v) => format!(
                "{area}Storage value (page data):\n{}",
                s.fence()
                    .wrap(&format!("{key} = {}", cut_with(v, GET_VALUE, "")))
            ),
            None => format!("{area}Storage has no key {key:?}."),
        },
        "set" => format!("Set {area}Storage {key:?}."),
        "delete" if r == Value::Bool(true) => format!("Deleted {area}Storage {key:?}."),
        "delete" => format!("{area}Storage had no key {key:?}; nothing deleted."),
        _ => format!(
            "Cleared {area}Storage ({} entries).",
            r.as_u64().unwrap_or(0)
        ),
    };
    Ok(Response::text(text))
}

async fn cookies(tab: &Tab, url: &str, a: CookieArgs) -> Result<String, ToolError> {
    let s = tab.client();
    let need_name = || {
        a.name
            .clone()
            .filter(|n| !n.is_empty())
            .ok_or_else(|| ToolError::other("this action needs `name`".into()))
    };
    let list = || tab.cookies_for(url);
    match a.action {
        DataAction::List => {
            let all = list().await?;
            if all.is_empty() {
                return Ok(format!("No cookies for {url}."));
            }
            let mut out = String::new();
            for c in &all {
                out.push_str(&format!(
                    "  {}={} ({})\n",
                    c["name"].as_str().unwrap_or(""),
                    one_line(c["value"].as_str().unwrap_or(""), LIST_VALUE),
                    flags(c)
                ));
            }
            Ok(format!(
                "{} cookies for {url} (page data):\n{}",
                all.len(),
                s.fence().wrap(&out)
            ))
        }
        DataAction::Get => {
            let name = need_name()?;
            let all = list().await?;
            match all.iter().find(|c| c["name"] == name.as_str()) {
                Some(c) => Ok(s.fence().wrap(&format!(
                    "{name}={} ({})",
                    cut_with(c["value"].as_str().unwrap_or(""), GET_VALUE, ""),
                    flags(c)
                ))),
                None => Ok(format!("No cookie named {name:?} for {url}.")),
            }
        }
        DataAction::Set => {
            let name = need_name()?;
            let value = a.value.clone().unwrap_or_default();
            let mut p = json!({"name": name, "value": value, "url": url,
                               "path": a.path.clone().unwrap_or_else(|| "/".into()),
                               "httpOnly": a.http_only, "secure": a.secure});
            if let Some(d) = &a.domain {
                p["domain"] = json!(d);
            }
            if let Some(e) = a.expires {
                p["expires"] = json!(e);
            }
            if !tab.set_cookie(p).await? {
                return Err(ToolError::other(format!(
                    "the browser refused cookie {name:?} (check domain, path and secure against {url})"
                )));
            }
            Ok(format!("Set cookie {name} for {url}."))
        }
        DataAction::Delete => {
            let name = need_name()?;
            let all = list().await?;
            let matching: Vec<_> = all.iter().filter(|c| c["name"] == name.as_str()).collect();
            for c in &matching {
                tab.delete_cookie(c).await?;
            }
            Ok(if matching.is_empty() {
                format!("No cookie named {name:?} for {url}; nothing deleted.")
            } else {
                format!("Deleted cookie {name} for {url}.")
            })
        }
        DataAction::Clear => {
            let all = list().await?;
            for c in &all {
                tab.delete_cookie(c).await?;
            }
            Ok(format!("Deleted {} cookies for {url}.", all.len()))
        }
    }
}

fn flags(c: &Value) -> String {
    let mut f = vec![format!(
        "domain {}, path {}",
        c["domain"].as_str().unwrap_or(""),
        c["path"].as_str().unwrap_or("/")
    )];
    if c["httpOnly"].as_bool() == Some(true) {
        f.push("httpOnly".into());
    }
    if c["secure"].as_bool() == Some(true) {
        f.push("secure".into());
    }
    if c["session"].as_bool() == Some(true) {
        f.push("session".into());
    } else if let Some(e) = c["expires"].as_f64() {
        f.push(format!("expires {e:.0}"));
    }
    f.join(", ")
}

/// A value on one line, cut to `max` bytes.
fn one_line(v: &str, max: usize) -> String {
    let flat = v.replace(['\n', '\r'], " ");
    let total = flat.len();
    crate::text::cut_bytes(&flat, max, |_| format!("… ({total} bytes; use get)"))
}
