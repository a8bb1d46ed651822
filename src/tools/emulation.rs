//! The `emulation` group (`serve --caps emulation`): make the current tab
//! look like another device, place, language or user preference. What is
//! set stays on the tab across navigations until reset, and every page
//! answer names it ("Emulating: …").

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer};

use super::def::{done, Cap, Kind, Response, ToolDef, ToolError};
use crate::page::devtools::emulation::{device, Emulation, Position};
use crate::page::Tab;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Size {
    pub width: u32,
    pub height: u32,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Geo {
    pub latitude: f64,
    pub longitude: f64,
    /// Meters (default 10).
    pub accuracy: Option<f64>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct EmulateArgs {
    /// iPhone 13, Pixel 7, iPad Mini (touch, mobile, their user agent), Laptop, Desktop; "" takes it off.
    pub device: Option<String>,
    /// CSS pixels; wins over the device's size (a device given without it drops it).
    pub viewport: Option<Size>,
    /// {latitude, longitude, accuracy?}: what navigator.geolocation reports.
    pub geolocation: Option<Geo>,
    /// IANA name, e.g. Europe/Berlin; "" takes it off.
    pub timezone: Option<String>,
    /// BCP 47, e.g. de-DE: Intl dates and numbers, navigator.language, Accept-Language; "" takes it off.
    pub locale: Option<String>,
    /// CPU slowdown factor, 1-20 (1 takes it off; 4 is a mid-range phone).
    #[serde(rename = "cpuThrottling")]
    pub cpu_throttling: Option<f64>,
    /// Take all emulation of this tab off first (media features too).
    #[serde(default)]
    pub reset: bool,
}

/// `null` for a field: take that override off (a missing field keeps it).
fn nullable<'de, D, T>(d: D) -> Result<Option<Option<T>>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(d).map(Some)
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct EmulateMediaArgs {
    /// prefers-color-scheme.
    #[serde(default, rename = "colorScheme", deserialize_with = "nullable")]
    pub color_scheme: Option<Option<ColorScheme>>,
    /// prefers-reduced-motion.
    #[serde(default, rename = "reducedMotion", deserialize_with = "nullable")]
    pub reduced_motion: Option<Option<ReducedMotion>>,
    /// forced-colors.
    #[serde(default, rename = "forcedColors", deserialize_with = "nullable")]
    pub forced_colors: Option<Option<ForcedColors>>,
    /// prefers-contrast.
    #[serde(default, deserialize_with = "nullable")]
    pub contrast: Option<Option<Contrast>>,
    /// The CSS media type.
    #[serde(default, deserialize_with = "nullable")]
    pub media: Option<Option<MediaType>>,
}

macro_rules! css_values {
    ($name:ident { $($variant:ident = $text:literal),* $(,)? }) => {
        #[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
        pub enum $name {
            $(#[serde(rename = $text)] $variant,)*
        }
        impl $name {
            fn css(self) -> String {
                match self { $(Self::$variant => $text,)* }.to_string()
            }
        }
    };
}

css_values!(ColorScheme { Light = "light", Dark = "dark", NoPreference = "no-preference" });
css_values!(ReducedMotion { Reduce = "reduce", NoPreference = "no-preference" });
css_values!(ForcedColors { Active = "active", None = "none" });
css_values!(Contrast { More = "more", Less = "less", NoPreference = "no-preference" });
css_values!(MediaType { Screen = "screen", Print = "print" });

/// The field's new value, if the call gave one (`null`: taken off).
fn set<T: Copy>(field: &mut Option<String>, given: Option<Option<T>>, css: impl Fn(T) -> String) {
    if let Some(v) = given {
        *field = v.map(css);
    }
}

/// A string setting: "" takes it off.
fn text_setting(v: String) -> Option<String> {
    let v = v.trim();
    (!v.is_empty()).then(|| v.to_string())
}

pub fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::on_tab(
            "browser_emulate",
            "Emulate a device, place or language",
            Kind::Action,
            "Make the current tab look like another device, place or language: a device preset or \
             viewport, geolocation (pages may read it; through the extension only sites the user \
             allowed location), time zone, locale, CPU throttling. Given fields change, others stay; `reset` \
             takes all off. It stays on this tab across navigations until reset, and every page \
             answer says what is on (\"Emulating: …\"). Pages read the user agent, locale and \
             device when they load: browser_reload after setting them. Returns what changed on \
             the page. For dark mode and other CSS media features use browser_emulate_media.",
            emulate,
        )
        .in_group(Cap::Emulation),
        ToolDef::on_tab(
            "browser_emulate_media",
            "Emulate media features",
            Kind::Action,
            "Emulate CSS media features in the current tab, e.g. the dark color scheme or reduced \
             motion. Omitted fields stay as they are; null takes one off. Stays across navigations \
             until browser_emulate `reset`. Returns what changed on the page.",
            emulate_media,
        )
        .in_group(Cap::Emulation),
    ]
}

/// browser_emulate_media.
async fn emulate_media(tab: Tab, a: EmulateMediaArgs) -> Result<Response, ToolError> {
    let mut now = tab.emulation();
    let given = a.color_scheme.is_some()
        || a.reduced_motion.is_some()
        || a.forced_colors.is_some()
        || a.contrast.is_some()
        || a.media.is_some();
    if !given {
        return Err(ToolError::other(
            "give at least one of colorScheme, reducedMotion, forcedColors, contrast, \
             media"
                .into(),
        ));
    }
    let m = &mut now.media;
    set(&mut m.color_scheme, a.color_scheme, ColorScheme::css);
    set(&mut m.reduced_motion, a.reduced_motion, ReducedMotion::css);
    set(&mut m.forced_colors, a.forced_colors, ForcedColors::css);
    set(&mut m.contrast, a.contrast, Contrast::css);
    set(&mut m.media, a.media, MediaType::css);
    let command = now.media_command();
    let mut outcome = tab.settle(|| tab.emulate(now, vec![command])).await?;
    // Media queries change what CSS alone shows.
    outcome.css_may_change = true;
    done(&tab, "Set the media features".into(), &outcome).await
}

/// browser_emulate.
async fn emulate(tab: Tab, a: EmulateArgs) -> Result<Response, ToolError> {
    let before = tab.emulation();
    // The browser's own user agent, while no override hides it (a locale
    // without a device needs it to send Accept-Language).
    if before.own_user_agent.is_none() && !before.is_on() {
        tab.own_user_agent().await?;
    }
    let kept = tab.emulation();
    let mut now = if a.reset {
        Emulation {
            own_user_agent: kept.own_user_agent.clone(),
            ..Emulation::default()
        }
    } else {
        kept
    };
    let mut commands = if a.reset {
        Emulation::reset_commands()
    } else {
        Vec::new()
    };
    if a.reset && before.position.is_some() {
        tab.forbid_geolocation().await;
    }
    let (mut metrics, mut agent) = (false, false);
    let mut note = None;
    if let Some(d) = a.device {
        now.device = match text_setting(d) {
            Some(name) if name.eq_ignore_ascii_case("none") => None,
            Some(name) => Some(device(&name)?),
            None => None,
        };
        now.viewport = None;
        (metrics, agent) = (true, true);
    }
    if let Some(v) = a.viewport {
        for (what, n) in [("width", v.width), ("height", v.height)] {
            if !(100..=4000).contains(&n) {
                return Err(ToolError::other(format!(
                    "viewport {what} {n} is out of range (100-4000)"
                )));
            }
        }
        now.viewport = Some((v.width, v.height));
        metrics = true;
    }
    if let Some(g) = a.geolocation {
        let accuracy = g.accuracy.unwrap_or(10.0);
        if !(-90.0..=90.0).contains(&g.latitude)
            || !(-180.0..=180.0).contains(&g.longitude)
            || accuracy < 0.0
        {
            return Err(ToolError::other(
                "geolocation needs latitude -90..90, longitude -180..180 and accuracy >= 0 \
                 (meters)"
                    .into(),
            ));
        }
        now.position = Some(Position {
            latitude: g.latitude,
            longitude: g.longitude,
            accuracy,
        });
        commands.push(now.position_command());
        if let Err(why) = tab.allow_geolocation().await {
            tracing::debug!("geolocation permission not granted: {why}");
            note = Some(
                ". This browser does not let tabwire grant pages the permission to read it (the \
                 extension cannot): a page gets the position only where the user allowed location \
                 for its site (a person answers its prompt)"
                    .to_string(),
            );
        }
    }
    if let Some(tz) = a.timezone {
        now.timezone = text_setting(tz);
        commands.push(now.timezone_command());
    }
    if let Some(l) = a.locale {
        now.locale = text_setting(l);
        commands.push(now.locale_command());
        agent = true;
    }
    if let Some(rate) = a.cpu_throttling {
        if !(1.0..=20.0).contains(&rate) {
            return Err(ToolError::other(format!(
                "cpuThrottling {rate} is out of range: 1 (off) to 20 times slower"
            )));
        }
        now.cpu = (rate > 1.0).then_some(rate);
        commands.push(now.cpu_command());
    }
    if metrics {
        commands.extend(now.metrics_commands());
    }
    if agent {
        commands.push(now.user_agent_command());
    }
    if commands.is_empty() {
        return Err(ToolError::other(
            "nothing to emulate: give device, viewport, geolocation, timezone, locale, \
             cpuThrottling, or reset"
                .into(),
        ));
    }
    let what = if now.is_on() {
        "Set the emulation of this tab (named on the page line below)"
    } else {
        "Took all emulation off this tab"
    };
    let mut outcome = tab.settle(|| tab.emulate(now, commands)).await?;
    outcome.css_may_change = true;
    let mut what = what.to_string();
    if let Some(n) = note {
        what.push_str(&n);
    }
    done(&tab, what, &outcome).await
}
