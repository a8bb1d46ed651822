//! The browser the CDP fallback would launch when the extension is not
//! connected.

use super::report::{Check, Status};

pub(super) fn fallback_check() -> Check {
    match crate::backend::direct::launch::find_browser(None) {
        Ok(p) => Check::new(
            "cdp-fallback",
            Status::Ok,
            "browser for the CDP fallback",
            format!("{} (used when the extension is not connected)", p.display()),
        ),
        Err(e) => Check::new("cdp-fallback", Status::Warn, "browser for the CDP fallback", e)
            .fix("only needed without the extension: install Chrome or Chromium, or pass --browser-path to `tabwire serve`"),
    }
}
