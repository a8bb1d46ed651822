//! URL globs as Playwright writes them (`**` any run, `*` any run without
//! `/`, `{a,b}` either), matched against whole request URLs; the wider
//! pattern Chromium's `Fetch` takes for one; and the host a glob names
//! literally, which the policy checks before a route is added. The routes
//! themselves are `routes.rs`.

/// The caller's pattern as the glob tabwire matches: a pattern without a
/// scheme that does not start with `*` (e.g. `/api/*`) matches on any host.
pub fn normalize(pattern: &str) -> String {
    let p = pattern.trim();
    if p.contains("://") || p.starts_with('*') {
        p.to_string()
    } else {
        format!("**{p}")
    }
}

/// A pattern for Chromium's `Fetch` (`*` any run, `?` one character)
/// that matches at least what the glob matches.
pub(in crate::page) fn cdp_pattern(glob: &str) -> String {
    let mut out = String::new();
    let mut chars = glob.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' => {
                for d in chars.by_ref() {
                    if d == '}' {
                        break;
                    }
                }
                if !out.ends_with('*') {
                    out.push('*');
                }
            }
            '*' if out.ends_with('*') => {}
            '\\' => {
                if let Some(d) = chars.next() {
                    out.push('\\');
                    out.push(d);
                }
            }
            c => out.push(c),
        }
    }
    out
}

/// Playwright's URL globs: `**` any run of characters, `*` any run
/// without `/`, `{a,b}` either, `\` escapes; everything else (`?` too) is
/// literal. The whole URL must match.
pub fn glob_matches(glob: &str, url: &str) -> bool {
    expand_braces(glob)
        .iter()
        .any(|g| matches(&tokens(g), url.as_bytes()))
}

/// `{a,b}` groups (not nested) expanded into every alternative.
fn expand_braces(glob: &str) -> Vec<String> {
    let bytes: Vec<char> = glob.chars().collect();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            '\\' => i += 2,
            '{' => {
                let Some(len) = bytes[i..].iter().position(|&c| c == '}') else {
                    break;
                };
                let head: String = bytes[..i].iter().collect();
                let tail: String = bytes[i + len + 1..].iter().collect();
                let inner: String = bytes[i + 1..i + len].iter().collect();
                let rest = expand_braces(&tail);
                let (head, rest) = (&head, &rest);
                return inner
                    .split(',')
                    .flat_map(|alt| rest.iter().map(move |t| format!("{head}{alt}{t}")))
                    .take(64)
                    .collect();
            }
            _ => i += 1,
        }
    }
    vec![glob.to_string()]
}

#[derive(Debug, PartialEq)]
enum Tok {
    Lit(u8),
    /// `*` (false) or `**` (true).
    Star(bool),
}

fn tokens(glob: &str) -> Vec<Tok> {
    let b = glob.as_bytes();
    let (mut out, mut i) = (Vec::new(), 0);
    while i < b.len() {
        match b[i] {
            b'\\' if i + 1 < b.len() => {
                out.push(Tok::Lit(b[i + 1]));
                i += 2;
            }
            b'*' => {
                let double = b.get(i + 1) == Some(&b'*');
                out.push(Tok::Star(double));
                i += if double { 2 } else { 1 };
                while b.get(i) == Some(&b'*') {
                    i += 1;
                }
            }
            c => {
                out.push(Tok::Lit(c));
                i += 1;
            }
        }
    }
    out
}

/// Backtracking match; stars are few, URLs short.
fn matches(toks: &[Tok], s: &[u8]) -> bool {
    match toks.first() {
        None => s.is_empty(),
        Some(Tok::Lit(c)) => s.first() == Some(c) && matches(&toks[1..], &s[1..]),
        Some(Tok::Star(any)) => {
            for skip in 0..=s.len() {
                if matches(&toks[1..], &s[skip..]) {
                    return true;
                }
                if skip < s.len() && !any && s[skip] == b'/' {
                    return false;
                }
            }
            false
        }
    }
}

/// The host a pattern names literally (no wildcard in it), if any.
pub(in crate::page) fn literal_host(glob: &str) -> Option<(String, String)> {
    let (scheme, rest) = glob.split_once("://")?;
    let authority = rest.split('/').next()?;
    let host = authority.rsplit('@').next()?;
    let scheme = if scheme.contains(['*', '{', '?']) {
        "https"
    } else {
        scheme
    };
    (!host.is_empty() && !host.contains(['*', '{', '?', '\\']))
        .then(|| (scheme.to_string(), host.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_like_playwright() {
        assert!(glob_matches("**/api/data", "http://127.0.0.1:5/api/data"));
        assert!(!glob_matches("**/api/data", "http://127.0.0.1:5/api/data2"));
        assert!(glob_matches("**/api/*", "http://h/api/x?y=1"));
        assert!(!glob_matches("**/api/*", "http://h/api/x/y"));
        assert!(glob_matches("**/*.{png,jpg}", "https://h/a/b.jpg"));
        assert!(!glob_matches("**/*.{png,jpg}", "https://h/a/b.gif"));
        assert!(glob_matches("https://h/a?b", "https://h/a?b"));
        assert!(!glob_matches("https://h/a?b", "https://h/axb"));
        assert!(glob_matches(&normalize("/api/*"), "http://h/api/x"));
    }

    #[test]
    fn cdp_patterns_cover_the_glob() {
        assert_eq!(cdp_pattern("**/api/*"), "*/api/*");
        assert_eq!(cdp_pattern("**/*.{png,jpg}"), "*/*.*");
        assert_eq!(cdp_pattern("https://h/\\*x"), "https://h/\\*x");
    }

    #[test]
    fn literal_hosts_are_found() {
        assert_eq!(
            literal_host("https://evil.test/api/*"),
            Some(("https".into(), "evil.test".into()))
        );
        assert_eq!(
            literal_host("*://evil.test:8080/**"),
            Some(("https".into(), "evil.test:8080".into()))
        );
        assert_eq!(literal_host("**/api"), None);
        assert_eq!(literal_host("https://*.test/x"), None);
    }
}
