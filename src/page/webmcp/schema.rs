//! Checking a page tool's arguments against the `inputSchema` the page
//! declared, before the page sees them: the browser passes whatever it is
//! given to a script tool (a `count` of `"many"` reaches the page as a
//! string), and a model's mistake should come back to the model, not
//! become the page's problem.
//!
//! The subset of JSON Schema page tools use is checked: `type` (one or a
//! list), `properties`, `required`, `additionalProperties: false`, `enum`,
//! `const`, `minimum`/`maximum` (and the exclusive forms), `multipleOf`,
//! `minLength`/`maxLength`, `items`, `minItems`/`maxItems`,
//! `uniqueItems`, `anyOf`/`oneOf`/`allOf`. Keywords outside it (`pattern`,
//! `format`, `$ref`, …) are not checked here: the page still gets the
//! chance to refuse. A schema that is not an object checks nothing.

use serde_json::{Map, Value};

/// Why `value` breaks `schema`, naming where (`count`, `items[2].title`),
/// or None when it fits.
pub fn violation(schema: &Value, value: &Value) -> Option<String> {
    check(schema, value, "").err()
}

fn check(schema: &Value, value: &Value, at: &str) -> Result<(), String> {
    let Some(s) = schema.as_object() else {
        return Ok(());
    };
    let here = || {
        if at.is_empty() {
            "the arguments".to_string()
        } else {
            format!("`{at}`")
        }
    };
    if let Some(types) = s.get("type") {
        let names: Vec<&str> = match types {
            Value::String(t) => vec![t.as_str()],
            Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        if !names.is_empty() && !names.iter().any(|t| is_type(value, t)) {
            return Err(format!(
                "{} must be {}, not {}",
                here(),
                names.join(" or "),
                type_of(value)
            ));
        }
    }
    if let Some(Value::Array(options)) = s.get("enum") {
        if !options.contains(value) {
            return Err(format!(
                "{} must be one of {}, not {value}",
                here(),
                list(options)
            ));
        }
    }
    if let Some(c) = s.get("const") {
        if c != value {
            return Err(format!("{} must be {c}, not {value}", here()));
        }
    }
    match value {
        Value::Number(n) => check_number(s, n.as_f64().unwrap_or(f64::NAN), &here())?,
        Value::String(t) => check_length(s, t.chars().count(), "characters", &here())?,
        Value::Array(items) => check_array(s, items, at, &here())?,
        Value::Object(fields) => check_object(s, fields, at, &here())?,
        _ => {}
    }
    if let Some(Value::Array(all)) = s.get("allOf") {
        for sub in all {
            check(sub, value, at)?;
        }
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(any)) = s.get(key) {
            let fits = any
                .iter()
                .filter(|sub| check(sub, value, at).is_ok())
                .count();
            let ok = if key == "anyOf" { fits >= 1 } else { fits == 1 };
            if !ok && !any.is_empty() {
                // The first alternative's complaint says the most.
                let why = check(&any[0], value, at).err().unwrap_or_default();
                return Err(format!("{} fits none of the allowed forms ({why})", here()));
            }
        }
    }
    Ok(())
}

fn check_number(s: &Map<String, Value>, n: f64, here: &str) -> Result<(), String> {
    let num = |k: &str| s.get(k).and_then(Value::as_f64);
    if let Some(min) = num("minimum") {
        if n < min {
            return Err(format!("{here} must be at least {min}, not {n}"));
        }
    }
    if let Some(max) = num("maximum") {
        if n > max {
            return Err(format!("{here} must be at most {max}, not {n}"));
        }
    }
    if let Some(min) = num("exclusiveMinimum") {
        if n <= min {
            return Err(format!("{here} must be more than {min}, not {n}"));
        }
    }
    if let Some(max) = num("exclusiveMaximum") {
        if n >= max {
            return Err(format!("{here} must be less than {max}, not {n}"));
        }
    }
    if let Some(step) = num("multipleOf").filter(|m| *m > 0.0) {
        let q = n / step;
        if (q - q.round()).abs() > 1e-9 {
            return Err(format!("{here} must be a multiple of {step}, not {n}"));
        }
    }
    Ok(())
}

fn check_length(s: &Map<String, Value>, len: usize, unit: &str, here: &str) -> Result<(), String> {
    let (min_key, max_key) = if unit == "items" {
        ("minItems", "maxItems")
    } else {
        ("minLength", "maxLength")
    };
    if let Some(min) = s.get(min_key).and_then(Value::as_u64) {
        if (len as u64) < min {
            return Err(format!("{here} must have at least {min} {unit}, not {len}"));
        }
    }
    if let Some(max) = s.get(max_key).and_then(Value::as_u64) {
        if len as u64 > max {
            return Err(format!("{here} must have at most {max} {unit}, not {len}"));
        }
    }
    Ok(())
}

fn check_array(
    s: &Map<String, Value>,
    items: &[Value],
    at: &str,
    here: &str,
) -> Result<(), String> {
    check_length(s, items.len(), "items", here)?;
    if s.get("uniqueItems") == Some(&Value::Bool(true)) {
        for (i, a) in items.iter().enumerate() {
            if items[..i].contains(a) {
                return Err(format!("{here} must not repeat {a}"));
            }
        }
    }
    if let Some(each) = s.get("items").filter(|i| i.is_object()) {
        for (i, item) in items.iter().enumerate() {
            check(each, item, &format!("{at}[{i}]"))?;
        }
    }
    Ok(())
}

fn check_object(
    s: &Map<String, Value>,
    fields: &Map<String, Value>,
    at: &str,
    here: &str,
) -> Result<(), String> {
    let path = |k: &str| {
        if at.is_empty() {
            k.to_string()
        } else {
            format!("{at}.{k}")
        }
    };
    if let Some(Value::Array(required)) = s.get("required") {
        let missing: Vec<&str> = required
            .iter()
            .filter_map(Value::as_str)
            .filter(|k| !fields.contains_key(*k))
            .collect();
        if !missing.is_empty() {
            return Err(format!(
                "{here} lack{} {}",
                // "the arguments lack", "`item` lacks".
                if at.is_empty() { "" } else { "s" },
                missing
                    .iter()
                    .map(|k| format!("`{}`", path(k)))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    }
    let props = s.get("properties").and_then(Value::as_object);
    if s.get("additionalProperties") == Some(&Value::Bool(false)) {
        if let Some(extra) = fields
            .keys()
            .find(|k| !props.is_some_and(|p| p.contains_key(*k)))
        {
            let known: Vec<&String> = props.map(|p| p.keys().collect()).unwrap_or_default();
            return Err(format!(
                "`{}` is not an argument of this tool (it takes: {})",
                path(extra),
                if known.is_empty() {
                    "none".into()
                } else {
                    known
                        .iter()
                        .map(|k| k.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                }
            ));
        }
    }
    if let Some(props) = props {
        for (k, v) in fields {
            if let Some(sub) = props.get(k) {
                check(sub, v, &path(k))?;
            }
        }
    }
    Ok(())
}

fn is_type(v: &Value, t: &str) -> bool {
    match t {
        "object" => v.is_object(),
        "array" => v.is_array(),
        "string" => v.is_string(),
        "boolean" => v.is_boolean(),
        "null" => v.is_null(),
        "number" => v.is_number(),
        "integer" => v.as_f64().is_some_and(|n| n.fract() == 0.0),
        _ => true,
    }
}

fn type_of(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(_) => "a boolean".into(),
        Value::Number(n) if n.as_f64().is_some_and(|f| f.fract() == 0.0) => {
            format!("the integer {n}")
        }
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) => format!("the string {}", Value::from(crate::text::cut_chars(s, 40))),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "an object".into(),
    }
}

fn list(options: &[Value]) -> String {
    options
        .iter()
        .map(Value::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn add_item() -> Value {
        json!({"type": "object", "properties": {
            "title": {"type": "string", "minLength": 1},
            "count": {"type": "integer", "minimum": 1},
            "unit": {"enum": ["kg", "pcs"]},
            "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true}
        }, "required": ["title", "count"], "additionalProperties": false})
    }

    #[test]
    fn arguments_that_fit_pass() {
        assert_eq!(
            violation(&add_item(), &json!({"title": "Milk", "count": 2})),
            None
        );
        assert_eq!(
            violation(
                &add_item(),
                &json!({"title": "Milk", "count": 2.0, "unit": "kg", "tags": ["a", "b"]})
            ),
            None
        );
        // No schema, or one that is not an object, checks nothing.
        assert_eq!(violation(&Value::Null, &json!({"x": 1})), None);
    }

    #[test]
    fn a_string_where_a_number_belongs_is_refused_with_where_and_why() {
        let why = violation(&add_item(), &json!({"title": "Milk", "count": "many"})).unwrap();
        assert_eq!(why, "`count` must be integer, not the string \"many\"");
    }

    #[test]
    fn each_rule_names_what_is_wrong() {
        let s = add_item();
        let cases = [
            (json!({"count": 1}), "the arguments lack `title`"),
            (
                json!({"title": "", "count": 1}),
                "`title` must have at least 1 characters",
            ),
            (
                json!({"title": "a", "count": 0}),
                "`count` must be at least 1",
            ),
            (
                json!({"title": "a", "count": 1.5}),
                "`count` must be integer, not the number 1.5",
            ),
            (
                json!({"title": "a", "count": 1, "unit": "l"}),
                "`unit` must be one of \"kg\", \"pcs\"",
            ),
            (
                json!({"title": "a", "count": 1, "tags": ["x", "x"]}),
                "`tags` must not repeat \"x\"",
            ),
            (
                json!({"title": "a", "count": 1, "tags": [3]}),
                "`tags[0]` must be string",
            ),
            (
                json!({"title": "a", "count": 1, "colour": "red"}),
                "`colour` is not an argument",
            ),
            (json!(["a"]), "the arguments must be object, not an array"),
        ];
        for (args, want) in cases {
            let why = violation(&s, &args).unwrap_or_else(|| panic!("{args} passed"));
            assert!(why.contains(want), "{args}: {why}");
        }
    }

    #[test]
    fn alternatives_and_type_lists() {
        let s = json!({"anyOf": [{"type": "string"}, {"type": "integer"}]});
        assert_eq!(violation(&s, &json!("a")), None);
        assert_eq!(violation(&s, &json!(3)), None);
        assert!(violation(&s, &json!(true)).unwrap().contains("fits none"));
        let s = json!({"type": ["string", "null"]});
        assert_eq!(violation(&s, &Value::Null), None);
        assert!(violation(&s, &json!(1)).is_some());
        let s = json!({"type": "number", "multipleOf": 0.5, "exclusiveMaximum": 10});
        assert_eq!(violation(&s, &json!(9.5)), None);
        assert!(violation(&s, &json!(9.7)).is_some());
        assert!(violation(&s, &json!(10)).is_some());
    }
}
