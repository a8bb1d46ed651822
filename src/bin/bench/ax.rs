//! (Kept for the micro bench that compares the engine with the browser's own
//! accessibility tree; tabwire itself does not read that tree.)
//!
//! Accessibility-tree nodes as `Accessibility.getFullAXTree` sends them,
//! read straight from the browser's JSON text into only the fields the
//! snapshot uses. Strings borrow from that text where they can.
//!
//! Why not `serde_json::Value`: a 0.5 MB tree (200 links) became ~14 MB
//! of maps and strings at once, and a real site's multi-megabyte tree
//! proportionally more; most of it (name sources, internal roles, ignored
//! reasons) is never read.
//!
//! The micro bench parses whole trees into these types, as the snapshot
//! did before the engine, so its timing stays comparable with the old
//! numbers; it then reads only the node count. The fields and accessors
//! the snapshot read are kept with the parser's tests, hence no dead-code
//! warnings for them.
#![allow(dead_code)]

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;

/// The nodes of one `getFullAXTree` answer.
#[derive(Debug, Deserialize)]
pub struct AxTree<'a> {
    #[serde(borrow, default)]
    pub nodes: Vec<AxNode<'a>>,
}

impl<'a> AxTree<'a> {
    /// Parses a `getFullAXTree` result.
    pub fn parse(raw: &'a RawValue) -> Result<Self, serde_json::Error> {
        serde_json::from_str(raw.get())
    }
}

#[derive(Debug, Clone, Deserialize)]
pub struct AxNode<'a> {
    #[serde(rename = "nodeId", borrow)]
    pub node_id: Cow<'a, str>,
    #[serde(default)]
    pub ignored: bool,
    #[serde(borrow, default)]
    pub role: Option<AxValue<'a>>,
    #[serde(borrow, default)]
    pub name: Option<AxValue<'a>>,
    #[serde(borrow, default)]
    pub value: Option<AxValue<'a>>,
    #[serde(borrow, default)]
    pub properties: Vec<AxProperty<'a>>,
    #[serde(rename = "parentId", borrow, default)]
    pub parent_id: Option<Cow<'a, str>>,
    #[serde(rename = "childIds", borrow, default)]
    pub child_ids: Vec<Cow<'a, str>>,
    #[serde(rename = "backendDOMNodeId", default)]
    pub backend_dom_node_id: Option<i64>,
}

/// An AXValue: only its `value` is read (not its type or sources).
#[derive(Debug, Clone, Deserialize)]
pub struct AxValue<'a> {
    #[serde(borrow, default)]
    pub value: Scalar<'a>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct AxProperty<'a> {
    #[serde(borrow)]
    pub name: Cow<'a, str>,
    #[serde(borrow)]
    pub value: AxValue<'a>,
}

/// The JSON value inside an AXValue; lists and objects (related nodes)
/// are skipped.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum Scalar<'a> {
    Str(Cow<'a, str>),
    Bool(bool),
    Int(i64),
    Num(f64),
    #[default]
    Other,
}

impl Scalar<'_> {
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Scalar::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Scalar::Int(i) => Some(*i),
            Scalar::Num(f) if f.fract() == 0.0 => Some(*f as i64),
            _ => None,
        }
    }

    /// `true` or `"true"` (CDP uses both for flags).
    pub fn is_true(&self) -> bool {
        matches!(self, Scalar::Bool(true)) || self.as_str() == Some("true")
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Scalar<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Scalar<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an AXValue value")
            }
            fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<Self::Value, E> {
                Ok(Scalar::Str(Cow::Borrowed(s)))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Self::Value, E> {
                Ok(Scalar::Str(Cow::Owned(s.to_string())))
            }
            fn visit_string<E: de::Error>(self, s: String) -> Result<Self::Value, E> {
                Ok(Scalar::Str(Cow::Owned(s)))
            }
            fn visit_bool<E: de::Error>(self, b: bool) -> Result<Self::Value, E> {
                Ok(Scalar::Bool(b))
            }
            fn visit_i64<E: de::Error>(self, i: i64) -> Result<Self::Value, E> {
                Ok(Scalar::Int(i))
            }
            fn visit_u64<E: de::Error>(self, u: u64) -> Result<Self::Value, E> {
                Ok(i64::try_from(u).map_or(Scalar::Num(u as f64), Scalar::Int))
            }
            fn visit_f64<E: de::Error>(self, f: f64) -> Result<Self::Value, E> {
                Ok(Scalar::Num(f))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Scalar::Other)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Scalar::Other)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Scalar::Other)
            }
        }
        d.deserialize_any(V)
    }
}

impl AxNode<'_> {
    /// The `value` of an AXValue field such as `role` or `name`, "" if absent.
    fn text<'s>(field: &'s Option<AxValue<'_>>) -> &'s str {
        field.as_ref().and_then(|v| v.value.as_str()).unwrap_or("")
    }

    pub fn role(&self) -> &str {
        Self::text(&self.role)
    }

    pub fn name(&self) -> &str {
        Self::text(&self.name)
    }

    pub fn value_text(&self) -> &str {
        Self::text(&self.value)
    }

    /// A property's value by name.
    pub fn property(&self, name: &str) -> Option<&Scalar<'_>> {
        self.properties
            .iter()
            .find(|p| p.name == name)
            .map(|p| &p.value.value)
    }

    /// The same node owning all its text, to outlive the answer it came from.
    pub fn into_owned(self) -> AxNode<'static> {
        fn own(c: Cow<'_, str>) -> Cow<'static, str> {
            Cow::Owned(c.into_owned())
        }
        fn own_scalar(s: Scalar<'_>) -> Scalar<'static> {
            match s {
                Scalar::Str(c) => Scalar::Str(own(c)),
                Scalar::Bool(b) => Scalar::Bool(b),
                Scalar::Int(i) => Scalar::Int(i),
                Scalar::Num(f) => Scalar::Num(f),
                Scalar::Other => Scalar::Other,
            }
        }
        let own_value = |v: Option<AxValue<'_>>| {
            v.map(|v| AxValue {
                value: own_scalar(v.value),
            })
        };
        AxNode {
            node_id: own(self.node_id),
            ignored: self.ignored,
            role: own_value(self.role),
            name: own_value(self.name),
            value: own_value(self.value),
            properties: self
                .properties
                .into_iter()
                .map(|p| AxProperty {
                    name: own(p.name),
                    value: AxValue {
                        value: own_scalar(p.value.value),
                    },
                })
                .collect(),
            parent_id: self.parent_id.map(own),
            child_ids: self.child_ids.into_iter().map(own).collect(),
            backend_dom_node_id: self.backend_dom_node_id,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_fields_the_snapshot_needs_and_borrows_plain_strings() {
        let raw = RawValue::from_string(
            r#"{"nodes":[{"nodeId":"7","ignored":false,
                "role":{"type":"role","value":"checkbox"},
                "chromeRole":{"type":"internalRole","value":9},
                "name":{"type":"computedString","value":"Say \"hi\"","sources":[{"type":"attribute","attribute":"aria-label"}]},
                "properties":[{"name":"checked","value":{"type":"tristate","value":"true"}},
                              {"name":"level","value":{"type":"integer","value":2}},
                              {"name":"focusable","value":{"type":"booleanOrUndefined","value":true}},
                              {"name":"labelledby","value":{"type":"nodeList","relatedNodes":[{"backendDOMNodeId":3}]}}],
                "parentId":"1","childIds":["8","9"],"backendDOMNodeId":42}]}"#
                .into(),
        )
        .unwrap();
        let tree = AxTree::parse(&raw).unwrap();
        let n = &tree.nodes[0];
        assert_eq!(n.role(), "checkbox");
        assert_eq!(n.name(), "Say \"hi\"");
        assert!(matches!(
            n.role.as_ref().unwrap().value,
            Scalar::Str(Cow::Borrowed(_))
        ));
        assert!(n.property("checked").unwrap().is_true());
        assert_eq!(n.property("level").unwrap().as_i64(), Some(2));
        assert!(n.property("focusable").unwrap().is_true());
        assert_eq!(n.property("labelledby"), Some(&Scalar::Other));
        assert_eq!(n.child_ids, ["8", "9"]);
        assert_eq!(n.backend_dom_node_id, Some(42));
        assert_eq!(n.value_text(), "");
        let owned: AxNode<'static> = n.clone().into_owned();
        assert_eq!(owned.name(), "Say \"hi\"");
    }

    #[test]
    fn a_bare_node_has_defaults() {
        let raw =
            RawValue::from_string(r#"{"nodes":[{"nodeId":"1","ignored":true}]}"#.into()).unwrap();
        let tree = AxTree::parse(&raw).unwrap();
        assert_eq!(tree.nodes[0].role(), "");
        assert!(tree.nodes[0].ignored);
        assert!(tree.nodes[0].parent_id.is_none());
    }
}
