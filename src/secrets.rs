//! Named secrets (`serve --secrets FILE`): the model types a password by
//! its name and never sees its value.
//!
//! The file is a dotenv file (`NAME=value`, values quoted as dotenv files
//! quote them, `#` comments, an optional `export `). A line
//! `NAME.origins=https://example.com, http://localhost:8000` binds the
//! secret NAME to those origins (scheme, host and port): it is typed into
//! a frame of no other origin. (A dot cannot be in a shell variable's
//! name, so the binding never collides with a secret, and other dotenv
//! readers skip or keep it as a plain entry.)
//!
//! Masking happens at the source where it can (a field that received a
//! secret reads as `<secret NAME>`, a password field's value is never
//! read) and, for everything else, at the answer's boundary: every text
//! the server sends, the audit log's lines and the files it writes for the
//! model are scrubbed of each value and of its URL-encoded, base64,
//! JSON-escaped and HTML-escaped forms.

use std::borrow::Cow;
use std::path::Path;

use base64::Engine as _;

/// The shortest value accepted: a shorter one would turn up inside
/// ordinary words and refs, and masking it would corrupt answers.
pub const MIN_LEN: usize = 4;

/// One secret.
pub struct Secret {
    pub name: String,
    value: String,
    /// Normalised origins it may be typed into (empty: any).
    origins: Vec<String>,
    /// The value and its encoded forms, longest first.
    forms: Vec<String>,
}

impl Secret {
    pub fn value(&self) -> &str {
        &self.value
    }

    /// Ok when the secret may be typed into a frame of `origin`.
    pub fn check_origin(&self, origin: &str) -> Result<(), String> {
        if self.origins.is_empty() {
            return Ok(());
        }
        let here = normalise_origin(origin).unwrap_or_else(|_| origin.to_string());
        if self.origins.contains(&here) {
            return Ok(());
        }
        Err(format!(
            "the secret {} may only be typed on {}, and the field is on {here}: nothing was typed",
            self.name,
            self.origins.join(", ")
        ))
    }
}

/// The secrets a server was started with (none by default).
#[derive(Default)]
pub struct Secrets {
    list: Vec<Secret>,
}

/// Names only: a value never reaches a log through `Debug`.
impl std::fmt::Debug for Secrets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.list.iter().map(|s| &s.name))
            .finish()
    }
}

impl PartialEq for Secrets {
    fn eq(&self, other: &Self) -> bool {
        self.names().eq(other.names())
    }
}

impl Secrets {
    /// Reads a secrets file; an error names the file and the line.
    pub fn load(path: &Path) -> Result<Self, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("could not read the secrets file {}: {e}", path.display()))?;
        Self::parse(&text).map_err(|e| format!("secrets file {}: {e}", path.display()))
    }

    pub fn parse(text: &str) -> Result<Self, String> {
        let mut list: Vec<Secret> = Vec::new();
        let mut bindings: Vec<(usize, String, Vec<String>)> = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let n = i + 1;
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let line = line.strip_prefix("export ").unwrap_or(line).trim_start();
            let Some((key, rest)) = line.split_once('=') else {
                return Err(format!("line {n}: expected NAME=value"));
            };
            let key = key.trim();
            let value = unquote(rest.trim()).map_err(|e| format!("line {n}: {e}"))?;
            if let Some(name) = key.strip_suffix(".origins") {
                check_name(name).map_err(|e| format!("line {n}: {e}"))?;
                let origins = value
                    .split([',', ' '])
                    .filter(|o| !o.is_empty())
                    .map(normalise_origin)
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|e| format!("line {n}: {e}"))?;
                if origins.is_empty() {
                    return Err(format!("line {n}: {key} names no origin"));
                }
                bindings.push((n, name.to_string(), origins));
                continue;
            }
            check_name(key).map_err(|e| format!("line {n}: {e}"))?;
            if list.iter().any(|s| s.name == key) {
                return Err(format!("line {n}: {key} is defined twice"));
            }
            if value.chars().count() < MIN_LEN {
                return Err(format!(
                    "line {n}: the value of {key} is shorter than {MIN_LEN} characters; \
                     it could not be masked in answers without corrupting them"
                ));
            }
            list.push(Secret {
                name: key.to_string(),
                forms: forms_of(&value),
                value,
                origins: Vec::new(),
            });
        }
        for (n, name, origins) in bindings {
            let Some(s) = list.iter_mut().find(|s| s.name == name) else {
                return Err(format!(
                    "line {n}: {name}.origins binds no secret named {name}"
                ));
            };
            if !s.origins.is_empty() {
                return Err(format!("line {n}: {name}.origins is given twice"));
            }
            s.origins = origins;
        }
        Ok(Self { list })
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.list.iter().map(|s| s.name.as_str())
    }

    /// The secret `text` names exactly, if any.
    pub fn named(&self, text: &str) -> Option<&Secret> {
        self.list.iter().find(|s| s.name == text)
    }

    /// `text` with every secret's value and encoded forms replaced by
    /// `<secret NAME>`.
    pub fn scrub<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let mut out = Cow::Borrowed(text);
        for s in &self.list {
            for form in &s.forms {
                if out.contains(form.as_str()) {
                    out = Cow::Owned(out.replace(form.as_str(), &format!("<secret {}>", s.name)));
                }
            }
        }
        out
    }

    /// [`Self::scrub`] on every string of a JSON value.
    pub fn scrub_json(&self, v: &mut serde_json::Value) {
        match v {
            serde_json::Value::String(s) => {
                if let Cow::Owned(clean) = self.scrub(s) {
                    *s = clean;
                }
            }
            serde_json::Value::Array(a) => a.iter_mut().for_each(|x| self.scrub_json(x)),
            serde_json::Value::Object(o) => o.values_mut().for_each(|x| self.scrub_json(x)),
            _ => {}
        }
    }
}

fn check_name(name: &str) -> Result<(), String> {
    let ok = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if ok {
        Ok(())
    } else {
        Err(format!(
            "{name:?} is not a name (letters, digits and _, not starting with a digit)"
        ))
    }
}

/// A dotenv value: "double quoted" (with \n, \", \\ escapes), 'single
/// quoted' (as written), or bare (up to a ` #` comment).
fn unquote(v: &str) -> Result<String, String> {
    if let Some(rest) = v.strip_prefix('"') {
        let mut out = String::new();
        let mut chars = rest.chars();
        while let Some(c) = chars.next() {
            match c {
                '"' => {
                    let tail = chars.as_str().trim();
                    if !tail.is_empty() && !tail.starts_with('#') {
                        return Err("text after the closing quote".into());
                    }
                    return Ok(out);
                }
                '\\' => match chars.next() {
                    Some('n') => out.push('\n'),
                    Some('t') => out.push('\t'),
                    Some(o) => out.push(o),
                    None => break,
                },
                c => out.push(c),
            }
        }
        return Err("a double quote is not closed".into());
    }
    if let Some(rest) = v.strip_prefix('\'') {
        let Some(end) = rest.find('\'') else {
            return Err("a single quote is not closed".into());
        };
        let tail = rest[end + 1..].trim();
        if !tail.is_empty() && !tail.starts_with('#') {
            return Err("text after the closing quote".into());
        }
        return Ok(rest[..end].to_string());
    }
    Ok(match v.find(" #") {
        Some(i) => v[..i].trim_end().to_string(),
        None => v.to_string(),
    })
}

/// `scheme://host[:port]`, lower case, without the scheme's default port.
fn normalise_origin(o: &str) -> Result<String, String> {
    let u = url::Url::parse(o.trim()).map_err(|_| format!("{o:?} is not an origin"))?;
    if !matches!(u.scheme(), "http" | "https") || u.host_str().is_none() {
        return Err(format!("{o:?} is not an http(s) origin"));
    }
    if !matches!(u.path(), "" | "/") || u.query().is_some() {
        return Err(format!(
            "{o:?} is not an origin (scheme, host and port only)"
        ));
    }
    Ok(u.origin().ascii_serialization())
}

/// The value and the forms pages and tools encode it in.
fn forms_of(value: &str) -> Vec<String> {
    let b64 = base64::engine::general_purpose::STANDARD.encode(value);
    let b64url = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(value);
    let json = serde_json::to_string(value).unwrap_or_default();
    // (Without the quotes serde_json puts around it.)
    let json = json[1..json.len() - 1].to_string();
    let html = value
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;");
    let mut forms = vec![
        value.to_string(),
        url_encode(value, false),
        url_encode(value, true),
        b64.clone(),
        b64.trim_end_matches('=').to_string(),
        b64url,
        json,
        html,
    ];
    forms.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
    forms.dedup();
    forms.retain(|f| f.chars().count() >= MIN_LEN);
    forms
}

/// Percent-encoding of everything but unreserved characters; `plus`:
/// spaces as `+` (form bodies).
fn url_encode(v: &str, plus: bool) -> String {
    let mut out = String::new();
    for b in v.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                out.push(b as char)
            }
            b' ' if plus => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dotenv_file_gives_secrets_and_their_bindings() {
        let s = Secrets::parse(
            "# sign-in\nexport ADMIN_USER=admin\nADMIN_PASSWORD=\"p4ss word&<\\\"x\"\n\
             ADMIN_PASSWORD.origins=http://127.0.0.1:8766, HTTPS://Example.com:443\n\
             TOKEN='abc#def' # a comment\n",
        )
        .unwrap();
        assert_eq!(
            s.names().collect::<Vec<_>>(),
            ["ADMIN_USER", "ADMIN_PASSWORD", "TOKEN"]
        );
        let p = s.named("ADMIN_PASSWORD").unwrap();
        assert_eq!(p.value(), "p4ss word&<\"x");
        assert!(p.check_origin("http://127.0.0.1:8766").is_ok());
        assert!(p.check_origin("https://example.com").is_ok());
        let refused = p.check_origin("http://evil.example").unwrap_err();
        assert!(refused.contains("ADMIN_PASSWORD") && !refused.contains("p4ss"));
        assert_eq!(s.named("TOKEN").unwrap().value(), "abc#def");
        assert!(s
            .named("ADMIN_USER")
            .unwrap()
            .check_origin("http://any.example")
            .is_ok());
        assert!(!format!("{s:?}").contains("p4ss"));
    }

    #[test]
    fn every_form_of_a_value_is_scrubbed() {
        let s = Secrets::parse("PW=\"p4ss word&<\\\"x\"\n").unwrap();
        for form in [
            "p4ss word&<\"x",
            "p4ss%20word%26%3C%22x",
            "p4ss+word%26%3C%22x",
            "cDRzcyB3b3JkJjwieA==",
            "cDRzcyB3b3JkJjwieA",
            "p4ss word&<\\\"x",
            "p4ss word&amp;&lt;&quot;x",
        ] {
            let text = format!("value: {form}!");
            assert_eq!(s.scrub(&text), "value: <secret PW>!", "{form}");
        }
        assert!(matches!(s.scrub("nothing here"), Cow::Borrowed(_)));
        let mut v = serde_json::json!({"a": ["x p4ss word&<\"x"]});
        s.scrub_json(&mut v);
        assert_eq!(v, serde_json::json!({"a": ["x <secret PW>"]}));
    }

    #[test]
    fn bad_files_are_refused_with_their_line() {
        for (text, want) in [
            ("A=abcd\nA=efgh\n", "line 2: A is defined twice"),
            ("A=abc\n", "line 1: the value of A is shorter than 4"),
            ("just words\n", "line 1: expected NAME=value"),
            ("1A=abcd\n", "line 1: \"1A\" is not a name"),
            ("A=\"abcd\n", "line 1: a double quote is not closed"),
            (
                "A=abcd\nB.origins=https://x.example\n",
                "line 2: B.origins binds no secret",
            ),
            (
                "A=abcd\nA.origins=https://x.example/path\n",
                "line 2: \"https://x.example/path\" is not an origin",
            ),
        ] {
            let err = Secrets::parse(text).unwrap_err();
            assert!(err.starts_with(want), "{text:?}: {err}");
        }
    }
}
