//! A tab's emulation (the `emulation` group): device, viewport, position,
//! time zone, locale, CSS media features and CPU speed, as CDP's
//! `Emulation` domain sets them. What is set is kept in the tab's
//! [`TabState`](crate::page::tab::calls::TabState), sent again whenever the tab is set
//! up again (a debugger detach voids every override), and named on the
//! page line of every answer while anything is on.

use serde_json::{json, Value};

use crate::error::ToolError;
use crate::page::tab::current::Tab;

/// Sends what the tab emulates again when it is set up again.
pub struct Feature;

impl crate::page::tab::feature::TabFeature for Feature {
    fn setup(&self, state: &mut crate::page::tab::calls::TabState) -> Vec<(&'static str, Value)> {
        state.slot::<Emulation>().commands()
    }

    fn head_note(&self, state: &mut crate::page::tab::calls::TabState) -> Option<String> {
        state.slot::<Emulation>().summary()
    }
}

/// A device preset: what a page sees of the device.
#[derive(Debug, PartialEq)]
pub struct Device {
    pub name: &'static str,
    pub width: u32,
    pub height: u32,
    pub scale: f64,
    /// A phone or tablet: mobile layout (the page's meta viewport counts)
    /// and touch.
    pub mobile: bool,
    /// None: the browser's own user agent.
    pub user_agent: Option<&'static str>,
}

/// The presets, in one place (names as Playwright's device list has them).
pub const DEVICES: &[Device] = &[
    Device {
        name: "iPhone 13",
        width: 390,
        height: 844,
        scale: 3.0,
        mobile: true,
        user_agent: Some(
            "Mozilla/5.0 (iPhone; CPU iPhone OS 15_0 like Mac OS X) AppleWebKit/605.1.15 \
             (KHTML, like Gecko) Version/15.0 Mobile/15E148 Safari/604.1",
        ),
    },
    Device {
        name: "Pixel 7",
        width: 412,
        height: 915,
        scale: 2.625,
        mobile: true,
        user_agent: Some(
            "Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) \
             Chrome/124.0.0.0 Mobile Safari/537.36",
        ),
    },
    Device {
        name: "iPad Mini",
        width: 768,
        height: 1024,
        scale: 2.0,
        mobile: true,
        user_agent: Some(
            "Mozilla/5.0 (iPad; CPU OS 15_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like \
             Gecko) Version/15.0 Mobile/15E148 Safari/604.1",
        ),
    },
    Device {
        name: "Laptop",
        width: 1366,
        height: 768,
        scale: 1.0,
        mobile: false,
        user_agent: None,
    },
    Device {
        name: "Desktop",
        width: 1920,
        height: 1080,
        scale: 1.0,
        mobile: false,
        user_agent: None,
    },
];

/// The preset named `name` (any case, spaces optional).
pub fn device(name: &str) -> Result<&'static Device, ToolError> {
    let key = |s: &str| s.to_lowercase().replace([' ', '-', '_'], "");
    DEVICES
        .iter()
        .find(|d| key(d.name) == key(name))
        .ok_or_else(|| {
            ToolError::other(format!(
                "no device preset {name:?}; the presets are {}. For another size give `viewport`",
                device_names()
            ))
        })
}

/// "iPhone 13, Pixel 7, …", for descriptions and errors.
pub fn device_names() -> String {
    DEVICES
        .iter()
        .map(|d| d.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// CSS media features (`Emulation.setEmulatedMedia`); None: the browser's.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Media {
    /// `screen` or `print`.
    pub media: Option<String>,
    pub color_scheme: Option<String>,
    pub reduced_motion: Option<String>,
    pub forced_colors: Option<String>,
    pub contrast: Option<String>,
}

impl Media {
    fn features(&self) -> Vec<(&'static str, &str)> {
        [
            ("prefers-color-scheme", &self.color_scheme),
            ("prefers-reduced-motion", &self.reduced_motion),
            ("forced-colors", &self.forced_colors),
            ("prefers-contrast", &self.contrast),
        ]
        .into_iter()
        .filter_map(|(name, v)| v.as_deref().map(|v| (name, v)))
        .collect()
    }

    fn command(&self) -> (&'static str, Value) {
        let features: Vec<Value> = self
            .features()
            .into_iter()
            .map(|(name, value)| json!({"name": name, "value": value}))
            .collect();
        (
            "Emulation.setEmulatedMedia",
            json!({"media": self.media.as_deref().unwrap_or(""), "features": features}),
        )
    }

    fn is_set(&self) -> bool {
        *self != Media::default()
    }
}

/// A position for `navigator.geolocation`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Position {
    pub latitude: f64,
    pub longitude: f64,
    pub accuracy: f64,
}

/// What one tab emulates. Every field None/default: nothing.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Emulation {
    pub device: Option<&'static Device>,
    /// CSS pixels; wins over the device's size.
    pub viewport: Option<(u32, u32)>,
    pub position: Option<Position>,
    /// An IANA time zone, e.g. Europe/Berlin.
    pub timezone: Option<String>,
    /// A BCP 47 locale, e.g. de-DE.
    pub locale: Option<String>,
    pub media: Media,
    /// How many times slower the CPU runs (1: not throttled).
    pub cpu: Option<f64>,
    /// The browser's own user agent, read before the first override (a
    /// locale alone changes Accept-Language, which needs one).
    pub own_user_agent: Option<String>,
}

impl Emulation {
    pub fn is_on(&self) -> bool {
        self.device.is_some()
            || self.viewport.is_some()
            || self.position.is_some()
            || self.timezone.is_some()
            || self.locale.is_some()
            || self.media.is_set()
            || self.cpu.is_some()
    }

    /// The commands that make a freshly set-up tab emulate all of this
    /// (only what is on; a new tab emulates nothing).
    pub fn commands(&self) -> Vec<(&'static str, Value)> {
        let mut out = Vec::new();
        if self.device.is_some() || self.viewport.is_some() {
            out.extend(self.metrics_commands());
        }
        if self.device.is_some_and(|d| d.user_agent.is_some()) || self.locale.is_some() {
            out.push(self.user_agent_command());
        }
        if self.position.is_some() {
            out.push(self.position_command());
        }
        if self.timezone.is_some() {
            out.push(self.timezone_command());
        }
        if self.locale.is_some() {
            out.push(self.locale_command());
        }
        if self.media.is_set() {
            out.push(self.media.command());
        }
        if self.cpu.is_some() {
            out.push(self.cpu_command());
        }
        out
    }

    /// Device metrics and touch as they are now set (cleared when neither
    /// a device nor a viewport is).
    pub fn metrics_commands(&self) -> Vec<(&'static str, Value)> {
        let mobile = self.device.is_some_and(|d| d.mobile);
        let size = self.viewport.or(self.device.map(|d| (d.width, d.height)));
        let metrics = match size {
            None => ("Emulation.clearDeviceMetricsOverride", json!({})),
            Some((w, h)) => (
                "Emulation.setDeviceMetricsOverride",
                json!({
                    "width": w,
                    "height": h,
                    "deviceScaleFactor": self.device.map_or(0.0, |d| d.scale),
                    "mobile": mobile,
                    "screenWidth": w,
                    "screenHeight": h,
                }),
            ),
        };
        let touch = if mobile {
            json!({"enabled": true, "maxTouchPoints": 5})
        } else {
            json!({"enabled": false})
        };
        vec![metrics, ("Emulation.setTouchEmulationEnabled", touch)]
    }

    /// The user agent and Accept-Language as now set (an empty user agent
    /// takes the override off).
    pub fn user_agent_command(&self) -> (&'static str, Value) {
        let device_ua = self.device.and_then(|d| d.user_agent);
        let mut params = json!({});
        match (device_ua, &self.locale, &self.own_user_agent) {
            (Some(ua), _, _) => params["userAgent"] = json!(ua),
            (None, Some(_), Some(own)) => params["userAgent"] = json!(own),
            _ => params["userAgent"] = json!(""),
        }
        if let (Some(locale), false) = (&self.locale, params["userAgent"] == "") {
            params["acceptLanguage"] = json!(accept_language(locale));
        }
        ("Emulation.setUserAgentOverride", params)
    }

    pub fn position_command(&self) -> (&'static str, Value) {
        match self.position {
            Some(p) => (
                "Emulation.setGeolocationOverride",
                json!({"latitude": p.latitude, "longitude": p.longitude, "accuracy": p.accuracy}),
            ),
            None => ("Emulation.clearGeolocationOverride", json!({})),
        }
    }

    pub fn timezone_command(&self) -> (&'static str, Value) {
        (
            "Emulation.setTimezoneOverride",
            json!({"timezoneId": self.timezone.as_deref().unwrap_or("")}),
        )
    }

    pub fn locale_command(&self) -> (&'static str, Value) {
        match &self.locale {
            Some(l) => ("Emulation.setLocaleOverride", json!({"locale": l})),
            None => ("Emulation.setLocaleOverride", json!({})),
        }
    }

    pub fn media_command(&self) -> (&'static str, Value) {
        self.media.command()
    }

    pub fn cpu_command(&self) -> (&'static str, Value) {
        (
            "Emulation.setCPUThrottlingRate",
            json!({"rate": self.cpu.unwrap_or(1.0)}),
        )
    }

    /// Every override taken off.
    pub fn reset_commands() -> Vec<(&'static str, Value)> {
        let none = Emulation::default();
        let mut out = none.metrics_commands();
        out.push(none.user_agent_command());
        out.push(none.position_command());
        out.push(none.timezone_command());
        out.push(none.locale_command());
        out.push(none.media_command());
        out.push(none.cpu_command());
        out
    }

    /// "Emulating: iPhone 13 (390x844, touch), dark, Europe/Berlin", or
    /// None when nothing is emulated.
    pub fn summary(&self) -> Option<String> {
        if !self.is_on() {
            return None;
        }
        let mut parts = Vec::new();
        match (self.device, self.viewport) {
            (Some(d), v) => {
                let (w, h) = v.unwrap_or((d.width, d.height));
                let touch = if d.mobile { ", touch" } else { "" };
                parts.push(format!("{} ({w}x{h}{touch})", d.name));
            }
            (None, Some((w, h))) => parts.push(format!("viewport {w}x{h}")),
            (None, None) => {}
        }
        if let Some(m) = &self.media.media {
            parts.push(format!("{m} media"));
        }
        for (name, value) in self.media.features() {
            parts.push(match (name, value) {
                ("prefers-color-scheme", v) => v.to_string(),
                (n, v) => format!("{n}: {v}"),
            });
        }
        if let Some(tz) = &self.timezone {
            parts.push(tz.clone());
        }
        if let Some(l) = &self.locale {
            parts.push(format!("locale {l}"));
        }
        if let Some(p) = self.position {
            parts.push(format!("at {}, {}", p.latitude, p.longitude));
        }
        if let Some(r) = self.cpu {
            parts.push(format!("CPU {r}x slower"));
        }
        Some(format!("Emulating: {}", parts.join(", ")))
    }
}

/// Accept-Language for a locale: "de-DE" -> "de-DE,de;q=0.9".
fn accept_language(locale: &str) -> String {
    match locale.split_once('-') {
        Some((lang, _)) => format!("{locale},{lang};q=0.9"),
        None => locale.to_string(),
    }
}

impl Tab {
    /// What `tab` emulates.
    pub fn emulation(&self) -> Emulation {
        self.tab_state().slot::<Emulation>().clone()
    }

    /// Sends `commands` to `tab` and keeps `now` as what it emulates. On a
    /// failure nothing is kept, and the error names the command.
    pub async fn emulate(
        &self,
        now: Emulation,
        commands: Vec<(&'static str, Value)>,
    ) -> Result<(), ToolError> {
        for (method, params) in commands {
            self.cdp(method, params)
                .await
                .map_err(|e| ToolError::other(format!("the browser refused {method}: {e}")))?;
        }
        *self.tab_state().slot::<Emulation>() = now;
        Ok(())
    }

    /// The browser's own user agent (read once per tab, before any
    /// override of it).
    pub async fn own_user_agent(&self) -> Result<String, ToolError> {
        if let Some(ua) = self.tab_state().slot::<Emulation>().own_user_agent.clone() {
            return Ok(ua);
        }
        let ua = self
            .eval("navigator.userAgent")
            .await?
            .as_str()
            .unwrap_or_default()
            .to_string();
        self.tab_state().slot::<Emulation>().own_user_agent = Some(ua.clone());
        Ok(ua)
    }

    /// Lets pages read the emulated position (geolocation permission for
    /// every origin); Err says why the browser would not.
    pub async fn allow_geolocation(&self) -> Result<(), String> {
        self.cdp(
            "Browser.grantPermissions",
            json!({"permissions": ["geolocation"]}),
        )
        .await
        .map(|_| ())
        .map_err(|e| e.text().to_string())
    }

    /// Takes back what [`Self::allow_geolocation`] granted (nothing to
    /// take back where it could not grant).
    pub async fn forbid_geolocation(&self) {
        let _ = self.cdp("Browser.resetPermissions", json!({})).await;
    }

    /// Sets the tab's viewport to `width` x `height` CSS pixels (the
    /// display's pixel ratio, not a phone).
    pub async fn set_viewport(&self, width: u32, height: u32) -> Result<(), ToolError> {
        self.cdp(
            "Emulation.setDeviceMetricsOverride",
            json!({"width": width, "height": height, "deviceScaleFactor": 0, "mobile": false}),
        )
        .await
        .map(|_| ())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_are_found_by_loose_names() {
        assert_eq!(device("iphone13").unwrap().name, "iPhone 13");
        assert_eq!(device("Pixel-7").unwrap().width, 412);
        let err = device("Nokia 3310").unwrap_err().text().to_string();
        assert!(err.contains("iPhone 13, Pixel 7"), "{err}");
    }

    #[test]
    fn the_summary_names_what_is_on() {
        assert_eq!(Emulation::default().summary(), None);
        let e = Emulation {
            device: Some(device("iPhone 13").unwrap()),
            timezone: Some("Europe/Berlin".into()),
            media: Media {
                color_scheme: Some("dark".into()),
                ..Media::default()
            },
            ..Emulation::default()
        };
        assert_eq!(
            e.summary().unwrap(),
            "Emulating: iPhone 13 (390x844, touch), dark, Europe/Berlin"
        );
        // Only the user agent read: nothing emulated.
        let e = Emulation {
            own_user_agent: Some("UA".into()),
            ..Emulation::default()
        };
        assert!(!e.is_on());
    }

    #[test]
    fn commands_cover_what_is_on_and_reset_takes_all_off() {
        let e = Emulation {
            viewport: Some((500, 600)),
            locale: Some("de-DE".into()),
            own_user_agent: Some("Own/1.0".into()),
            ..Emulation::default()
        };
        let cmds = e.commands();
        let names: Vec<_> = cmds.iter().map(|c| c.0).collect();
        assert_eq!(
            names,
            [
                "Emulation.setDeviceMetricsOverride",
                "Emulation.setTouchEmulationEnabled",
                "Emulation.setUserAgentOverride",
                "Emulation.setLocaleOverride",
            ]
        );
        assert_eq!(cmds[0].1["width"], 500);
        assert_eq!(cmds[2].1["userAgent"], "Own/1.0");
        assert_eq!(cmds[2].1["acceptLanguage"], "de-DE,de;q=0.9");
        let reset = Emulation::reset_commands();
        assert_eq!(reset.len(), 8);
        assert!(reset.iter().all(|c| c.0.starts_with("Emulation.")));
    }
}
