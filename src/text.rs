//! Cutting text to a size without splitting a character: the one place
//! every answer, log line and stored value is shortened, so the bound and
//! the marker that says so are the same everywhere.

/// The longest start of `text` that fits in `max` bytes, ending on a
/// character boundary.
pub fn head(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// `text` cut to `max` bytes, followed by `marker(rest)` (what was left
/// out) when anything was; `text` itself when it fits.
pub fn cut_bytes(text: &str, max: usize, marker: impl FnOnce(&str) -> String) -> String {
    let kept = head(text, max);
    if kept.len() == text.len() {
        return text.to_string();
    }
    format!("{kept}{}", marker(&text[kept.len()..]))
}

/// `text` cut to `max` characters, with `…` when anything was left out.
pub fn cut_chars(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_never_split_a_character() {
        assert_eq!(head("héllo", 2), "h");
        assert_eq!(head("héllo", 3), "hé");
        assert_eq!(head("abc", 10), "abc");
        assert_eq!(
            cut_bytes("ééé", 3, |rest| format!("[+{}]", rest.len())),
            "é[+4]"
        );
        assert_eq!(cut_bytes("abc", 3, |_| unreachable!()), "abc");
        assert_eq!(cut_chars("ééé", 2), "éé…");
        assert_eq!(cut_chars("éé", 2), "éé");
    }
}
