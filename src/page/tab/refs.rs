//! Which refs a client was handed for a tab's document: the highest ref
//! per frame of the latest snapshots (refs are made in order), so a ref
//! from an earlier document is told apart from one never shown.

use std::collections::HashMap;

use crate::backend::TabId;
use crate::engine::Ref;

/// Which document the latest snapshot's refs belong to, and which refs
/// were handed out (the engine checks them too; this gives clearer
/// errors: another tab, the page before the last navigation).
///
/// The engine numbers each frame's refs in the order it makes them and
/// never reuses a number within a document, so the refs handed out are
/// kept as the highest number shown per frame: one entry per frame,
/// however many snapshots of the document were taken (a page that
/// replaces its content hands out new refs on every snapshot). Whether a
/// ref's element is still there is the engine's to say.
#[derive(Debug, Clone, PartialEq)]
pub struct SnapshotMark {
    pub tab: TabId,
    pub loader_id: String,
    /// Frame number (0: the top document) → highest ref number handed out
    /// for this document (all its snapshots so far).
    pub refs: HashMap<u32, u64>,
    /// The same for the document before it.
    pub stale_refs: HashMap<u32, u64>,
}

/// Most frames a mark remembers refs for (the newest numbers; frame
/// numbers are never reused, so a page that keeps making frames would
/// otherwise grow it). A ref of a frame left out is refused as not in any
/// snapshot.
const MARKED_FRAMES: usize = 64;

impl SnapshotMark {
    /// A mark for a snapshot whose text is `outline`.
    pub fn new(tab: TabId, loader_id: String, outline: &str) -> Self {
        let mut refs = HashMap::new();
        for r in crate::engine::refs_in(outline) {
            raise(&mut refs, r.frame, r.id);
        }
        Self {
            tab,
            loader_id,
            refs,
            stale_refs: HashMap::new(),
        }
    }

    /// Takes in the mark of the snapshot before this one: refs of the same
    /// document accumulate; a new document's snapshot turns the old
    /// document's refs stale. A mark of another tab is dropped.
    pub fn follow(&mut self, prev: SnapshotMark) {
        if prev.tab != self.tab {
            return;
        }
        if prev.loader_id == self.loader_id {
            for (frame, id) in prev.refs {
                raise(&mut self.refs, frame, id);
            }
            self.stale_refs = prev.stale_refs;
        } else {
            self.stale_refs = prev.refs;
        }
        for marks in [&mut self.refs, &mut self.stale_refs] {
            while marks.len() > MARKED_FRAMES {
                let oldest = marks.keys().copied().filter(|&f| f != 0).min();
                match oldest {
                    Some(f) => marks.remove(&f),
                    None => break,
                };
            }
        }
    }

    /// Whether `r` was handed out for this document.
    pub fn has(&self, r: &Ref) -> bool {
        self.refs.get(&r.frame).is_some_and(|&top| r.id <= top)
    }

    /// Whether `r` was handed out for the document before (and not for
    /// this one).
    pub fn had_before(&self, r: &Ref) -> bool {
        !self.has(r)
            && self
                .stale_refs
                .get(&r.frame)
                .is_some_and(|&top| r.id <= top)
    }

    /// Entries kept (for the debug counts of browser_status).
    pub fn entries(&self) -> usize {
        self.refs.len() + self.stale_refs.len()
    }
}

fn raise(marks: &mut HashMap<u32, u64>, frame: u32, id: u64) {
    let top = marks.entry(frame).or_insert(id);
    *top = (*top).max(id);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(s: &str) -> Ref {
        Ref::parse(s).unwrap()
    }

    #[test]
    fn marks_of_one_document_stay_one_entry_per_frame() {
        let mut mark = SnapshotMark::new(1, "doc".into(), "- button \"a\" [ref=e1]\n");
        // A page that replaces its content: new refs on every snapshot.
        for round in 1..1000u64 {
            let outline = format!(
                "- button \"a\" [ref=e{}]\n- button \"b\" [ref=e{}]\n  - link \"c\" [ref=f2e{round}]\n",
                round * 2,
                round * 2 + 1
            );
            let mut next = SnapshotMark::new(1, "doc".into(), &outline);
            next.follow(mark);
            mark = next;
        }
        assert_eq!(mark.entries(), 2);
        assert!(mark.has(&r("e1")) && mark.has(&r("e1999")) && mark.has(&r("f2e999")));
        assert!(!mark.has(&r("e2000")) && !mark.has(&r("f3e1")));
    }

    #[test]
    fn a_new_document_turns_the_old_refs_stale() {
        let mut old = SnapshotMark::new(1, "a".into(), "- link [ref=e40]\n");
        old.follow(SnapshotMark::new(1, "a".into(), "- link [ref=e12]\n"));
        let mut new = SnapshotMark::new(1, "b".into(), "- link [ref=e3]\n");
        new.follow(old);
        assert!(new.has(&r("e3")) && !new.had_before(&r("e3")));
        assert!(!new.has(&r("e20")) && new.had_before(&r("e20")));
        assert!(!new.had_before(&r("e41")));
        // Another tab's mark is not taken in.
        let mut other = SnapshotMark::new(2, "c".into(), "- link [ref=e1]\n");
        other.follow(new);
        assert!(!other.had_before(&r("e20")));
    }

    #[test]
    fn a_page_that_keeps_making_frames_keeps_the_newest() {
        let mut mark = SnapshotMark::new(1, "doc".into(), "- link [ref=e1]\n");
        for frame in 1..=200 {
            let mut next =
                SnapshotMark::new(1, "doc".into(), &format!("- link [ref=f{frame}e1]\n"));
            next.follow(mark);
            mark = next;
        }
        assert_eq!(mark.refs.len(), MARKED_FRAMES);
        assert!(mark.has(&r("e1")) && mark.has(&r("f200e1")) && !mark.has(&r("f2e1")));
    }
}
