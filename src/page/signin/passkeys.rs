//! Passkeys in tabwire's own browser: a virtual authenticator (CDP's
//! WebAuthn domain) in every tab, so a site's passkey sign-up and sign-in
//! work without a person touching a security key, and the passkeys made
//! are saved with the storage state and loaded into another browser.
//!
//! A virtual authenticator belongs to one tab's debugger session, so the
//! client keeps the passkeys itself: each tab set up gets an authenticator
//! holding all of them, and a passkey one tab makes (or uses: its
//! signature counter moves) is copied into the others. Never in the
//! user's browser: its passkeys live in their own authenticators, which a
//! virtual one would shadow, and their keys cannot leave them.

use std::collections::HashMap;

use serde_json::{json, Value};

use crate::backend::TabId;
use crate::error::ToolError;
use crate::page::tab::client::Client;
use crate::page::tab::current::Tab;

/// The client's passkeys and the authenticator of each armed tab.
#[derive(Default)]
pub struct Passkeys {
    /// Whether tabs get a virtual authenticator (`serve
    /// --virtual-authenticator`, or a storage state holding passkeys).
    pub on: bool,
    /// Credentials as CDP's `WebAuthn.getCredentials` gives them.
    credentials: Vec<Value>,
    /// Tab → its authenticator's id.
    armed: HashMap<TabId, String>,
}

/// An authenticator that answers as a phone's or laptop's built-in one
/// would once its person said yes: discoverable credentials, user
/// verification done, presence given at once.
fn authenticator_options() -> Value {
    json!({"options": {
        "protocol": "ctap2",
        "ctap2Version": "ctap2_1",
        "transport": "internal",
        "hasResidentKey": true,
        "hasUserVerification": true,
        "isUserVerified": true,
        "automaticPresenceSimulation": true,
    }})
}

/// `WebAuthn.addCredential`'s parameters: `c` into `authenticator` (a
/// credential id it holds already is replaced).
fn add_credential(authenticator: &str, c: &Value) -> Value {
    json!({"authenticatorId": authenticator, "credential": c})
}

/// Whether `c` has what `WebAuthn.addCredential` needs.
pub fn is_credential(c: &Value) -> bool {
    ["credentialId", "rpId", "privateKey"]
        .iter()
        .all(|k| c[k].as_str().is_some_and(|s| !s.is_empty()))
}

fn id_of(c: &Value) -> &str {
    c["credentialId"].as_str().unwrap_or_default()
}

impl Passkeys {
    /// Keeps `c` (a new passkey, or a newer copy of one: its counter).
    fn keep(&mut self, c: Value) {
        match self.credentials.iter_mut().find(|k| id_of(k) == id_of(&c)) {
            Some(old) => *old = c,
            None => self.credentials.push(c),
        }
    }
}

/// Arms each tab of tabwire's own browser as it is set up, keeps the
/// passkeys made or used there, and forgets a tab's authenticator when the
/// tab goes.
pub struct Feature;

impl crate::page::tab::feature::TabFeature for Feature {
    fn after_set_up<'a>(&'a self, tab: &'a Tab) -> crate::page::tab::feature::Hook<'a, ()> {
        Box::pin(async move {
            // Passkeys are one feature: a tab whose authenticator could
            // not be made still serves every other tool.
            if let Err(e) = tab.arm_authenticator().await {
                tracing::warn!(tab = tab.id(), "no virtual authenticator in this tab: {e}");
            }
        })
    }

    fn intercept(&self, tab: &Tab, method: &str, params: &Value) -> bool {
        if !method.starts_with("WebAuthn.") {
            return false;
        }
        tab.on_webauthn_event(method, params);
        true
    }

    fn gone(&self, tab: &Tab) {
        tab.disarm();
    }
}

impl Client {
    /// The client's passkeys (its slot).
    fn passkeys(&self) -> crate::page::tab::slots::SlotGuard<'_, Passkeys> {
        self.slot()
    }

    /// Gives every tab of tabwire's own browser a virtual authenticator.
    pub fn use_virtual_authenticator(&self) {
        self.passkeys().on = true;
    }

    /// Every passkey kept, newest counters first read from the armed tabs.
    pub async fn passkeys_now(&self) -> Vec<Value> {
        let armed: Vec<(TabId, String)> = self
            .passkeys()
            .armed
            .iter()
            .map(|(t, a)| (*t, a.clone()))
            .collect();
        for (tab, authenticator) in armed {
            let r = self
                .on(tab)
                .cdp(
                    "WebAuthn.getCredentials",
                    json!({"authenticatorId": authenticator}),
                )
                .await;
            if let Ok(r) = r {
                let mut p = self.passkeys();
                for c in r["credentials"].as_array().cloned().unwrap_or_default() {
                    p.keep(c);
                }
            }
        }
        self.passkeys().credentials.clone()
    }

    /// Adds `credentials` (from a storage state) to the passkeys kept and
    /// to every armed tab; turns passkeys on, arming the tabs already set
    /// up (the others are armed as they are set up).
    pub async fn add_passkeys(&self, credentials: &[Value]) -> Result<(), ToolError> {
        {
            let mut p = self.passkeys();
            p.on = true;
            for c in credentials {
                p.keep(c.clone());
            }
        }
        for t in self.tabs().await? {
            if !self.backend().is_own_browser(t.tab_id) {
                continue;
            }
            let armed = self.passkeys().armed.get(&t.tab_id).cloned();
            let tab = self.on(t.tab_id);
            match armed {
                Some(authenticator) => {
                    for c in credentials {
                        tab.cdp("WebAuthn.addCredential", add_credential(&authenticator, c))
                            .await?;
                    }
                }
                None if tab.is_set_up() => tab.arm_authenticator().await?,
                None => {}
            }
        }
        Ok(())
    }
}

impl Tab {
    /// Arms `tab` (just set up) if passkeys are on and the browser is
    /// tabwire's own: an authenticator holding every passkey kept.
    async fn arm_authenticator(&self) -> Result<(), ToolError> {
        let tab = self.id();
        if !self.client().passkeys().on || !self.client().backend().is_own_browser(tab) {
            return Ok(());
        }
        self.plain_cdp("WebAuthn.enable", json!({"enableUI": false}))
            .await?;
        let r = self
            .plain_cdp("WebAuthn.addVirtualAuthenticator", authenticator_options())
            .await?;
        let id = r["authenticatorId"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let kept = {
            let mut p = self.client().passkeys();
            p.armed.insert(tab, id.clone());
            p.credentials.clone()
        };
        for c in kept {
            self.plain_cdp("WebAuthn.addCredential", add_credential(&id, &c))
                .await?;
        }
        Ok(())
    }

    /// A command to a tab already set up (arming runs inside the setup
    /// that `cdp` would wait for).
    async fn plain_cdp(&self, method: &str, params: Value) -> Result<Value, ToolError> {
        let tab = self.id();
        self.client()
            .backend()
            .cdp(tab, method, params)
            .await
            .map_err(|e| self.tab_error(e))
    }

    /// Forgets `tab`'s authenticator (the tab closed or its session ended,
    /// taking the authenticator with it).
    fn disarm(&self) {
        let tab = self.id();
        self.client().passkeys().armed.remove(&tab);
    }
}

impl Tab {
    /// A WebAuthn event of `tab`: a passkey made or used there is kept and
    /// copied into the other armed tabs.
    fn on_webauthn_event(&self, method: &str, params: &Value) {
        let s = self.client();
        let tab = self.id();
        if !matches!(
            method,
            "WebAuthn.credentialAdded"
                | "WebAuthn.credentialAsserted"
                | "WebAuthn.credentialUpdated"
        ) {
            return;
        }
        let c = params["credential"].clone();
        if !is_credential(&c) {
            return;
        }
        let others: Vec<(TabId, String)> = {
            let mut p = s.passkeys();
            p.keep(c.clone());
            p.armed
                .iter()
                .filter(|(t, _)| **t != tab)
                .map(|(t, a)| (*t, a.clone()))
                .collect()
        };
        if others.is_empty() {
            return;
        }
        let s = s.clone();
        tokio::spawn(async move {
            for (other, authenticator) in others {
                // Adding a credential id that is there replaces it.
                let r = s
                    .backend()
                    .cdp(
                        other,
                        "WebAuthn.addCredential",
                        add_credential(&authenticator, &c),
                    )
                    .await;
                if let Err(e) = r {
                    tracing::debug!(target: "tabwire::passkeys", "could not copy a passkey: {e}");
                }
            }
        });
    }
}
