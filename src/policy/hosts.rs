//! Hosts as the browser reads them, and the domain globs the policy
//! compares them with. Kept apart from the rules: a URL must name the
//! same host to the policy as to the browser, and that is all this does.

/// The host of an http(s) `url` as the browser reads it (the WHATWG URL
/// standard: `\\` ends the authority, IPv4 in any notation and IPv6 are
/// made canonical, percent escapes decoded, names in punycode), lowercase,
/// without brackets or trailing dots. Reading it any other way lets a URL
/// name one host to the policy and another to the browser.
pub(super) fn host_of(url: &str) -> Result<String, String> {
    let parsed =
        url::Url::parse(url).map_err(|e| format!("{url} is not a valid URL ({e}); not opened"))?;
    let host = parsed
        .host_str()
        .ok_or_else(|| format!("{url} is not a valid URL (it names no host); not opened"))?;
    Ok(host
        .trim_start_matches('[')
        .trim_end_matches(']')
        .trim_end_matches('.')
        .to_ascii_lowercase())
}

/// A domain glob in the form hosts are compared in: each label without a
/// `*` as the browser writes it (punycode, canonical IP addresses).
fn canonical_glob(glob: &str) -> String {
    let glob = glob.trim().to_ascii_lowercase();
    if glob.contains('*') {
        return glob
            .split('.')
            .map(|label| match label.contains('*') || label.is_ascii() {
                true => label.to_string(),
                false => canonical_host(label).unwrap_or_else(|| label.to_string()),
            })
            .collect::<Vec<_>>()
            .join(".");
    }
    canonical_host(&glob).unwrap_or(glob)
}

/// `name` (a domain or IP address) as it reads in a parsed URL.
fn canonical_host(name: &str) -> Option<String> {
    let bracketed = match name.contains(':') && !name.starts_with('[') {
        true => format!("[{name}]"),
        false => name.to_string(),
    };
    let host = url::Url::parse(&format!("http://{bracketed}/")).ok()?;
    let host = host.host_str()?;
    Some(
        host.trim_start_matches('[')
            .trim_end_matches(']')
            .trim_end_matches('.')
            .to_string(),
    )
}

/// `*` matches any run of characters; `*.example.com` also matches
/// `example.com` itself. Case-insensitive; a glob naming a host in another
/// notation (Unicode, a short IPv4) matches it as the browser writes it.
pub fn glob_matches(glob: &str, host: &str) -> bool {
    let glob = canonical_glob(glob);
    if let Some(apex) = glob.strip_prefix("*.") {
        if host == apex {
            return true;
        }
    }
    wildcard(glob.as_bytes(), host.as_bytes())
}

fn wildcard(p: &[u8], s: &[u8]) -> bool {
    let (mut pi, mut si, mut star, mut mark) = (0, 0, None, 0);
    while si < s.len() {
        if pi < p.len() && (p[pi] == s[si]) {
            pi += 1;
            si += 1;
        } else if pi < p.len() && p[pi] == b'*' {
            star = Some(pi);
            mark = si;
            pi += 1;
        } else if let Some(st) = star {
            pi = st + 1;
            mark += 1;
            si = mark;
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == b'*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_hosts() {
        assert!(glob_matches("*.example.com", "a.b.example.com"));
        assert!(glob_matches("*.example.com", "example.com"));
        assert!(!glob_matches("*.example.com", "badexample.com"));
        assert!(glob_matches("EXAMPLE.com", "example.com"));
        assert!(glob_matches("*", "anything.org"));
        assert!(glob_matches("127.0.0.*", "127.0.0.1"));
        assert!(!glob_matches("example.com", "example.com.evil.org"));
    }

    #[test]
    fn hosts_are_read_as_the_browser_reads_them() {
        let host = |u: &str| host_of(u).unwrap();
        assert_eq!(
            host("https://user:pw@Bank.Example.com:8443/x?y"),
            "bank.example.com"
        );
        assert_eq!(host("http://[::1]:80/"), "::1");
        assert_eq!(host("https://example.com./"), "example.com");
        // The browser goes to evil.com: a backslash ends the authority.
        assert_eq!(host("https://evil.com\\@allowed.com/"), "evil.com");
        assert_eq!(host("http://127.1/"), "127.0.0.1");
        assert_eq!(host("http://0x7f.0.0.1/"), "127.0.0.1");
        assert_eq!(host("https://%65vil.com/"), "evil.com");
        assert_eq!(
            host("https://B\u{dc}CHER.example/"),
            "xn--bcher-kva.example"
        );
        assert!(host_of("https://exa mple.com/").is_err());
        assert!(host_of("https://example.com:99999/").is_err());
    }

    #[test]
    fn globs_are_compared_in_the_browser_s_notation() {
        assert!(glob_matches("b\u{fc}cher.example", "xn--bcher-kva.example"));
        assert!(glob_matches(
            "*.b\u{fc}cher.example",
            "a.xn--bcher-kva.example"
        ));
        assert!(glob_matches("127.1", "127.0.0.1"));
        assert!(glob_matches("::FFFF:127.0.0.1", "::ffff:7f00:1"));
        assert!(glob_matches("0:0:0:0:0:0:0:1", "::1"));
    }
}
