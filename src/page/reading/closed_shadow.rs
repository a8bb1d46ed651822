//! Closed shadow roots: a component can keep its content from every
//! script, the engine's too, yet a person sees it. The browser's DOM
//! domain pierces them; this looks there only when a read came up empty,
//! so the answer can say where the text may be instead of "not found".

use serde_json::{json, Value};

use crate::page::tab::current::Tab;

impl Tab {
    /// How many closed shadow roots the page has, and whether `text` is in
    /// one of them (their text nodes, joined per root).
    pub async fn closed_roots_holding(&self, text: &str) -> (usize, bool) {
        let Ok(doc) = self
            .cdp("DOM.getDocument", json!({"depth": -1, "pierce": true}))
            .await
        else {
            return (0, false);
        };
        let mut roots = 0;
        let mut found = false;
        visit(&doc["root"], &mut |root| {
            roots += 1;
            let mut words = String::new();
            collect_text(root, &mut words);
            found |= words.contains(text);
        });
        (roots, found)
    }
}

/// Calls `on_closed` for every closed shadow root under `node`.
fn visit(node: &Value, on_closed: &mut impl FnMut(&Value)) {
    for root in node["shadowRoots"].as_array().into_iter().flatten() {
        if root["shadowRootType"] == "closed" {
            on_closed(root);
        }
        visit(root, on_closed);
    }
    for child in node["children"].as_array().into_iter().flatten() {
        visit(child, on_closed);
    }
    if let Some(doc) = node.get("contentDocument") {
        visit(doc, on_closed);
    }
}

/// The text of `node`'s subtree, its text nodes joined by spaces.
fn collect_text(node: &Value, out: &mut String) {
    if node["nodeType"] == 3 {
        if let Some(t) = node["nodeValue"].as_str() {
            out.push_str(t);
            out.push(' ');
        }
    }
    for child in node["children"].as_array().into_iter().flatten() {
        collect_text(child, out);
    }
    for root in node["shadowRoots"].as_array().into_iter().flatten() {
        collect_text(root, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_in_a_closed_root_is_found_and_open_roots_are_not_counted() {
        let doc = json!({"nodeType": 9, "children": [
            {"nodeType": 1, "shadowRoots": [
                {"shadowRootType": "closed", "children": [{"nodeType": 3, "nodeValue": "Secret  total: 42"}]}
            ]},
            {"nodeType": 1, "shadowRoots": [
                {"shadowRootType": "open", "children": [{"nodeType": 3, "nodeValue": "open text"}]}
            ]}
        ]});
        let mut roots = 0;
        let mut texts = Vec::new();
        visit(&doc, &mut |r| {
            roots += 1;
            let mut t = String::new();
            collect_text(r, &mut t);
            texts.push(t);
        });
        assert_eq!(roots, 1);
        assert!(texts[0].contains("total: 42"));
    }
}
