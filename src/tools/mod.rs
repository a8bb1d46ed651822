//! MCP tools: each one is a declarative [`ToolDef`] (name, model-facing
//! description, argument schema, kind, handler), grouped one file per area
//! and joined in [`all_tools`].
//!
//! Handlers take the per-client [`Client`] and typed arguments and return a
//! [`Response`]; failures are [`ToolError`]s, rendered as in-band `isError`
//! results so the model can read them and recover.

mod batch;
mod def;
mod devtools;
mod dialog;
mod emulation;
mod evaluate;
mod files;
mod input;
mod markdown;
mod navigate;
mod network;
mod network_control;
mod read;
mod screenshot;
pub mod snapshot;
mod status;
mod storage;
mod storage_state;
mod tabs;
mod testing;
mod viewport;
mod vision;
mod wait;
mod webmcp;

pub use crate::page::Client;
pub use batch::{Runner, RunnerSlot};
pub use def::{Cap, Kind, Response, ToolDef, ToolError};
pub use webmcp::{as_mcp_tools as page_tools_as_mcp, MCP_PREFIX as PAGE_TOOL_PREFIX};

/// Every tool, in the order `tools/list` shows them (browser_batch runs
/// nothing: no runner is lent to it).
pub fn all_tools() -> Vec<ToolDef> {
    all_tools_with(&RunnerSlot::default())
}

/// Every tool; browser_batch runs its steps with the runner the server
/// puts in `runner`.
pub fn all_tools_with(runner: &RunnerSlot) -> Vec<ToolDef> {
    let mut tools = Vec::new();
    tools.extend(tabs::tools());
    tools.extend(navigate::tools());
    tools.extend(wait::tools());
    tools.extend(snapshot::tools());
    tools.extend(read::tools());
    tools.extend(markdown::tools());
    tools.extend(network::tools());
    tools.extend(input::tools());
    tools.extend(dialog::tools());
    tools.extend(screenshot::tools());
    tools.extend(files::tools());
    tools.extend(storage::tools());
    tools.extend(storage_state::tools());
    tools.extend(webmcp::tools());
    tools.extend(viewport::tools());
    tools.extend(evaluate::tools());
    tools.extend(batch::tools(runner));
    tools.extend(status::tools());
    tools.extend(vision::tools());
    tools.extend(network_control::tools());
    tools.extend(devtools::tools());
    tools.extend(testing::tools());
    tools.extend(emulation::tools());
    tools
}

#[cfg(test)]
mod tests {
    use super::def::annotations;
    use super::*;
    use serde_json::Value;

    #[test]
    fn tool_set_is_pinned() {
        let names: Vec<_> = all_tools()
            .iter()
            .filter(|t| t.cap.is_none())
            .map(|t| t.name)
            .collect();
        assert_eq!(
            names,
            [
                "browser_tabs",
                "browser_close",
                "browser_navigate",
                "browser_navigate_back",
                "browser_navigate_forward",
                "browser_reload",
                "browser_wait_for",
                "browser_snapshot",
                "browser_find",
                "browser_get_text",
                "browser_get_html",
                "browser_extract_links",
                "browser_console_messages",
                "browser_read_markdown",
                "browser_network_requests",
                "browser_network_request",
                "browser_click",
                "browser_drag",
                "browser_hover",
                "browser_type",
                "browser_press_key",
                "browser_select_option",
                "browser_fill_form",
                "browser_scroll",
                "browser_file_upload",
                "browser_handle_dialog",
                "browser_take_screenshot",
                "browser_download",
                "browser_capture_media",
                "browser_pdf_save",
                "browser_page_tools",
                "browser_page_tool_call",
                "browser_resize",
                "browser_evaluate",
                "browser_batch",
                "browser_status",
            ]
        );
        let grouped: Vec<_> = all_tools()
            .iter()
            .filter_map(|t| t.cap.map(|c| format!("{}:{}", c.name(), t.name)))
            .collect();
        assert_eq!(
            grouped,
            [
                "storage:browser_cookies",
                "storage:browser_storage",
                "storage:browser_storage_state",
                "storage:browser_set_storage_state",
                "vision:browser_mouse_click_xy",
                "vision:browser_mouse_move_xy",
                "vision:browser_mouse_drag_xy",
                "vision:browser_mouse_down",
                "vision:browser_mouse_up",
                "vision:browser_keydown",
                "vision:browser_keyup",
                "vision:browser_mouse_wheel",
                "vision:browser_type_xy",
                "network:browser_route",
                "network:browser_route_list",
                "network:browser_unroute",
                "network:browser_network_state_set",
                "network:browser_set_extra_headers",
                "network:browser_network_har",
                "devtools:browser_start_tracing",
                "devtools:browser_stop_tracing",
                "devtools:browser_start_video",
                "devtools:browser_stop_video",
                "testing:browser_verify_text_visible",
                "testing:browser_verify_element_visible",
                "testing:browser_verify_value",
                "testing:browser_generate_locator",
                "testing:browser_export_test",
                "emulation:browser_emulate",
                "emulation:browser_emulate_media",
            ]
        );
    }

    /// Argument names whose meaning the name, type, enum and the tool's
    /// description already give (`target` is explained once, in
    /// browser_snapshot's description); every other one needs its own
    /// description. Kept short: tools/list must stay within 10 KiB.
    const SAYS_IT_ALL: &[&str] = &[
        "accept",
        // browser_batch: its description says what a step is.
        "actions",
        "tool",
        "domain",
        "expires",
        "modifiers",
        // browser_click's description says what it is (ms to hold).
        "holdMs",
        "slowly",
        "time",
        "action",
        "area",
        "arguments",
        "body",
        // browser_tabs: the list names the browsers and says what it is for.
        "browser",
        "button",
        "deltaX",
        "deltaY",
        "doubleClick",
        "endTarget",
        "fields",
        "filename",
        // browser_snapshot: its description says what `full` does.
        "full",
        // Explained in their tools' descriptions.
        "include",
        "exclude",
        "filter",
        "timeout",
        "paths",
        // browser_get_html: its description says what `outer` false does.
        "outer",
        "fullPage",
        "function",
        "height",
        "httpOnly",
        "id",
        "key",
        "name",
        "path",
        "promptText",
        "sameOrigin",
        "secure",
        "selector",
        "startTarget",
        "submit",
        "target",
        "text",
        "textGone",
        "type",
        "url",
        "value",
        "values",
        "width",
        "role",
        // The vision group: its descriptions say what the coordinates are.
        "x",
        "y",
        "startX",
        "startY",
        "endX",
        "endY",
        // browser_start_tracing: described with the field.
        "reload",
        // browser_page_tools: its description says what a `page` is.
        "page",
    ];

    #[test]
    fn every_tool_has_a_described_object_schema() {
        for t in all_tools() {
            let mcp = t.to_mcp();
            assert_eq!(mcp.input_schema.get("type"), Some(&Value::from("object")));
            assert!(
                t.description.len() > 25,
                "{} needs a real description",
                t.name
            );
            let props = mcp.input_schema["properties"].as_object().unwrap();
            for (field, schema) in props {
                assert!(
                    schema.get("description").is_some() || SAYS_IT_ALL.contains(&field.as_str()),
                    "{}.{field} has no description for the model",
                    t.name
                );
            }
        }
    }

    #[test]
    fn kinds_map_to_hints() {
        assert_eq!(
            annotations(Kind::ReadOnly).unwrap().read_only_hint,
            Some(true)
        );
        // An action relies on MCP's defaults: not read-only, destructive.
        assert!(annotations(Kind::Action).is_none());
    }

    #[test]
    fn schemas_are_compacted() {
        for t in all_tools() {
            let text = serde_json::to_string(&*t.to_mcp().input_schema).unwrap();
            for gone in ["$ref", "$defs", "\"null\"", "format"] {
                assert!(
                    !text.contains(gone),
                    "{} schema still has {gone}: {text}",
                    t.name
                );
            }
        }
    }
}
