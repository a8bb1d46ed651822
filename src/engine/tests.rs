//! Unit tests of the engine's Rust side: refs, outlines, frames.

use super::*;

#[test]
fn refs_parse_and_print() {
    assert_eq!(Ref::parse("e12"), Some(Ref { frame: 0, id: 12 }));
    assert_eq!(Ref::parse("f3e7"), Some(Ref { frame: 3, id: 7 }));
    assert_eq!(Ref::parse("f3e7").unwrap().to_string(), "f3e7");
    for bad in [
        "e", "#e12", "em", "e1x", "f", "fe1", "f1", "f1e", "main", "f1x2",
    ] {
        assert_eq!(Ref::parse(bad), None, "{bad}");
    }
}

#[test]
fn refs_are_collected_from_an_outline() {
    let outline = "- button \"Go\" [ref=e12]\n- link \"x [ref=e9\" [ref=f2e7] [level=2]\n";
    let refs: Vec<String> = refs_in(outline).map(|r| r.to_string()).collect();
    assert_eq!(refs, ["e12", "f2e7"]);
}

#[test]
fn a_cut_outline_says_what_is_left_out() {
    let mut s = Snapshot {
        text: "- link \"a\" [ref=e1]\n".into(),
        cut: false,
        more: 0,
        frames: 0,
        url: String::new(),
        title: String::new(),
        folds: 0,
        outline: 0,
        partial: false,
        hidden: 0,
        closed_hosts: 0,
        doubts: 0,
        unjudged: 0,
    };
    assert_eq!(with_cut_note(&s, 40_000), s.text);
    s.cut = true;
    s.more = 96;
    let out = with_cut_note(&s, 40_000);
    assert!(out.starts_with(&s.text), "{out}");
    assert!(
        out.contains("… cut at 40 KB: the rest of the page (96 more elements"),
        "{out}"
    );
    assert!(out.contains("not shown"), "{out}");
}

#[test]
fn a_skeleton_says_how_to_unfold_it_and_its_expand_refs_count() {
    let s = Snapshot {
        text: "- list\n  - link \"a\" [ref=e1]\n  - … 99 more like these (99 links) [expand=e7]\n"
            .into(),
        cut: false,
        more: 0,
        frames: 0,
        url: String::new(),
        title: String::new(),
        folds: 1,
        outline: 48_200,
        partial: false,
        hidden: 0,
        closed_hosts: 0,
        doubts: 0,
        unjudged: 0,
    };
    let out = with_cut_note(&s, 40_000);
    assert!(
        out.ends_with(
            "… a skeleton of an outline of over 48 KB: 1 folded parts end in [expand=eN]; \
             browser_snapshot target=eN shows one, full=true the whole page; browser_find \
             searches it all.\n"
        ),
        "{out}"
    );
    let refs: Vec<String> = refs_in(&out).map(|r| r.to_string()).collect();
    assert_eq!(refs, ["e1", "e7"]);
}

#[test]
fn changes_list_both_directions_and_say_when_nothing_moved() {
    let none = Changes {
        added: vec![],
        removed: vec![],
        frames: 0,
        url: String::new(),
        title: String::new(),
        hidden: 0,
        walked: false,
    };
    let fence = Fence::with_id("f1f1f1f1f1f1");
    assert_eq!(
        render_changes(&none, &fence),
        "The snapshot did not change."
    );
    let some = Changes {
        added: vec!["  - text: dropped".into()],
        removed: (0..45).map(|i| format!("- text: {i}")).collect(),
        hidden: 2,
        ..none
    };
    let out = render_changes(&some, &fence);
    assert!(
        out.starts_with("Snapshot changes:\n<<page-content f1f1f1f1f1f1>>\nadded:"),
        "{out}"
    );
    assert!(
        out.ends_with(
            "<<end-page-content f1f1f1f1f1f1>>\n(2 blocks of text a person cannot see on the page were left out)\n"
        ),
        "{out}"
    );
    assert!(out.contains("added:\n  - text: dropped\n"), "{out}");
    assert!(out.contains("removed:\n  - text: 0\n"), "{out}");
    assert!(out.contains("… 5 more;"), "{out}");
}

#[test]
fn find_answers_list_matches_with_where_they_are() {
    let m = |line: &str, path: &[&str]| Match {
        line: line.into(),
        path: path.iter().map(|p| p.to_string()).collect(),
    };
    let out = render_found(
        &[
            m("- link \"dict\" [ref=e4]", &["main", "Types"]),
            m("- text: a dict", &[]),
        ],
        5,
        "\"dict\"",
        &Fence::with_id("f1f1f1f1f1f1"),
    );
    assert_eq!(
        out,
        "5 matches for \"dict\":\n\
         <<page-content f1f1f1f1f1f1>>\n\
         - link \"dict\" [ref=e4] — in main › Types\n\
         - text: a dict\n\
         <<end-page-content f1f1f1f1f1f1>>\n\
         … 3 more: narrow the words or add a role.\n"
    );
    assert!(render_found(&[], 0, "x", &Fence::new()).starts_with("Nothing on the page matches x."));
    assert_eq!(
        find_args(Some("a\"b"), None, 3),
        r#"{"limit":3,"role":null,"text":"a\"b"}"#
    );
}

#[test]
fn frames_are_spliced_under_their_line() {
    let outline = "- main\n  - Iframe \"Pay\" [frame=1]\n  - button \"Go\" [ref=e3]\n";
    let inner = "- textbox \"Card\" [ref=f1e1]\n  - text: hi\n";
    assert_eq!(
        splice_frame(outline, 1, inner),
        "- main\n  - Iframe \"Pay\"\n    - textbox \"Card\" [ref=f1e1]\n      - text: hi\n  - button \"Go\" [ref=e3]\n"
    );
    assert_eq!(
        unfilled_frame(outline, 1, "not readable"),
        "- main\n  - Iframe \"Pay\" (not readable)\n  - button \"Go\" [ref=e3]\n"
    );
    // A frame marker on the last line, with no newline after it.
    assert_eq!(
        splice_frame("- Iframe [frame=1]", 1, "- text: x\n"),
        "- Iframe\n  - text: x\n"
    );
}

#[test]
fn calls_carry_the_source_until_the_world_has_it() {
    assert_eq!(
        call(true, "f2e", "snapshot", &budget_args(10)),
        "((t) => (t.configure({prefix: \"f2e\"}), t.snapshot({budget: 10})))(globalThis.__tabwire)"
    );
    let first = call(false, "e", "snapshot", "{}");
    assert!(first.contains(SOURCE.trim_end()));
    assert!(first.ends_with("})())"), "{}", &first[first.len() - 20..]);
}
