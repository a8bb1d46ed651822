  // ---- change tracking ----------------------------------------------------------

  // Whether anything that can change the outline's lines happened since
  // the last rendering (`dirty`): DOM mutations, and state the DOM does
  // not record (values, checks, focus, details toggles, images and frames
  // that load). Scrolling changes no line, only what a person can see and
  // what a skeleton keeps (`moved`: anything since the last skeleton). A
  // transition or animation that ended restyled its element (`restyled`:
  // looked at again in place, see regionLines()). A change that is CSS
  // alone (:hover) is not seen here: after a pointer move, changes() works
  // out what it can have restyled (hoverRoots()); callers that expect
  // any other such change (media emulation) pass `force`.
  let dirty = true;
  let moved = true;
  let restyled = new Set();
  // More restyled elements than this: walk the page again instead.
  const MAX_RESTYLED = 64;
  // (`mutated`: the DOM, a value or a toggle changed, not only focus:
  // what lookAhead() asks.)
  let mutated = true;
  const observer = new MutationObserver(() => { dirty = moved = mutated = true; });
  const watched = new WeakSet();
  // Watches `doc` (this document, and each same-origin frame's document
  // the walk enters) for changes.
  // The animations running in the shadow roots watched (roots whose host
  // left the page are dropped from the list).
  function shadowAnimations() {
    const out = [];
    for (let i = shadowRoots.length - 1; i >= 0; i--) {
      const root = shadowRoots[i].deref();
      if (!root || !root.host.isConnected) { shadowRoots.splice(i, 1); continue; }
      for (const a of root.getAnimations()) if (a.playState === "running") out.push(a);
    }
    return out;
  }

  // Resolves once the DOM changes and is then quiet for 25 ms (true; at
  // most 300 ms after the change), or after `ms` with no change (false).
  function lookAhead(ms) {
    return new Promise((resolve) => {
      let quiet = 0, stop = 0;
      const end = (v) => { o.disconnect(); clearTimeout(cap); clearTimeout(quiet); clearTimeout(stop); resolve(v); };
      const o = new MutationObserver(() => {
        dirty = mutated = true;
        clearTimeout(quiet);
        quiet = setTimeout(() => end(true), 25);
        if (!stop) { clearTimeout(cap); stop = setTimeout(() => end(true), 300); }
      });
      o.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
      const cap = setTimeout(() => end(false), Math.max(0, ms ?? 0));
    });
  }

  // The open shadow roots watched, for animations: document.getAnimations()
  // leaves out those whose target is in a shadow tree.
  const shadowRoots = [];
  function watch(doc) {
    if (watched.has(doc)) return;
    watched.add(doc);
    if (doc.nodeType === 11) shadowRoots.push(new WeakRef(doc));
    observer.observe(doc, { subtree: true, childList: true, attributes: true, characterData: true });
    for (const type of ["input", "change", "focusin", "focusout", "toggle", "load"]) {
      // (A value or a toggle the action changed is its visible effect;
      // focus moving to what was clicked is not.)
      const effect = type === "input" || type === "change" || type === "toggle";
      doc.addEventListener(type, () => { dirty = moved = true; if (effect) mutated = true; }, true);
    }
    doc.addEventListener("scroll", () => { moved = true; }, true);
    const ended = (e) => {
      moved = true;
      const el = e.target;
      // (Inside another document or a shadow tree: not looked at in place.)
      if (el.nodeType !== 1 || el.getRootNode() !== document || restyled.size >= MAX_RESTYLED) dirty = true;
      else restyled.add(el);
    };
    doc.addEventListener("transitionend", ended, true);
    doc.addEventListener("animationend", ended, true);
  }
  // (The document is watched from the engine's first call, not from here:
  // the engine starts with the document, and an observer then gets a
  // record for every node the parser inserts, ~35k on a big page, which
  // made the page's own load ~20 % slower (six big real pages, 1,177 →
  // 1,425 ms). Until the first call every flag above says "changed", so
  // nothing before it is missed.)
  // For a whole-page snapshot: anything at all since the last one.
  function changedSinceRender() {
    if (observer.takeRecords().length) dirty = true;
    const was = dirty || moved || restyled.size > 0;
    dirty = moved = mutated = false;
    restyled = new Set();
    return was;
  }

  // ---- what a pointer move can restyle ------------------------------------------
  //
  // :hover applies to the element under the pointer and its ancestors. When
  // the pointer moves, the elements that left or joined that chain may match
  // other style rules now, and so may what those rules select after them
  // (descendants; with `+`/`~`, later siblings). The rules are read from the
  // page's style sheets: for each compound with :hover, the selector up to
  // it without :hover says which chain elements can be involved. Whatever
  // cannot be told (a sheet of another origin, :hover inside :is()/:has(),
  // nesting, shadow trees, frames) makes the caller walk the whole page.

  // The :hover chain now: document order, outermost first.
  function hoverChain() {
    return [...document.querySelectorAll(":hover")];
  }
  let baseHover = [];

  // Properties whose change shows or hides nothing (no line comes or goes,
  // no text becomes readable or unreadable).
  const COSMETIC = /^(cursor|text-decoration(-[a-z]+)?|text-underline-[a-z]+|outline(-[a-z]+)?|box-shadow|text-shadow|transition(-[a-z]+)?|border(-[a-z]+)?-color|caret-color|accent-color)$/;

  // A selector list split at its top-level commas.
  function splitList(text) {
    const out = [];
    let depth = 0, quote = "", from = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (quote) { if (c === "\\") i++; else if (c === quote) quote = ""; continue; }
      if (c === '"' || c === "'") quote = c;
      else if (c === "(" || c === "[") depth++;
      else if (c === ")" || c === "]") depth--;
      else if (c === "," && depth === 0) { out.push(text.slice(from, i).trim()); from = i + 1; }
    }
    out.push(text.slice(from).trim());
    return out;
  }

  const PSEUDO_ELEMENT = /::?(before|after|first-line|first-letter|marker|placeholder|selection|backdrop|file-selector-button)\b|::[\w-]+(\([^)]*\))?/g;

  // For each compound of `sel` with :hover: the selector up to it without
  // :hover (`left`), and whether what the rule styles may be a later
  // sibling of it (`siblings`). null: this one cannot be told.
  function hoverParts(sel, out) {
    let depth = 0, quote = "";
    const at = [];          // top-level :hover positions
    const breaks = [];      // top-level combinator positions
    for (let i = 0; i < sel.length; i++) {
      const c = sel[i];
      if (quote) { if (c === "\\") i++; else if (c === quote) quote = ""; continue; }
      if (c === '"' || c === "'") quote = c;
      else if (c === "(" || c === "[") depth++;
      else if (c === ")" || c === "]") depth--;
      else if (c === "\\") i++;
      else if (sel.startsWith(":hover", i) && !/[\w-]/.test(sel[i + 6] || "")) {
        if (depth) return false;
        at.push(i);
      } else if (depth === 0 && /[\s>+~]/.test(c)) breaks.push(i);
    }
    for (const i of at) {
      const end = breaks.find((b) => b > i) ?? sel.length;
      let left = sel.slice(0, end).replace(/:hover(?![\w-])/g, "").replace(PSEUDO_ELEMENT, "").trim();
      if (!left || /[\s>+~]$/.test(left)) left += "*";
      out.push({ left, siblings: /[+~]/.test(sel.slice(end).replace(/\([^)]*\)|\[[^\]]*\]/g, "")) });
    }
    return true;
  }

  // The :hover rules of `rules` that can show or hide something, into
  // `out`; false when some cannot be read or told.
  function hoverRules(rules, out) {
    for (const r of rules) {
      if (r.styleSheet !== undefined) {            // @import
        let inner;
        try { inner = r.styleSheet?.cssRules; } catch { return false; }
        if (inner && !hoverRules(inner, out)) return false;
        continue;
      }
      if (r.selectorText !== undefined) {
        const nested = r.cssRules && r.cssRules.length;
        if (nested && (r.selectorText.includes(":hover") || hasHover(r.cssRules))) return false;
        if (!r.selectorText.includes(":hover")) continue;
        let cosmetic = true;
        for (let i = 0; i < r.style.length && cosmetic; i++) cosmetic = COSMETIC.test(r.style[i]);
        if (cosmetic) continue;
        for (const sel of splitList(r.selectorText)) {
          if (sel.includes(":hover") && !hoverParts(sel, out)) return false;
        }
        continue;
      }
      if (r.cssRules && !hoverRules(r.cssRules, out)) return false;   // @media, @supports, @layer…
    }
    return true;
  }
  function hasHover(rules) {
    for (const r of rules) {
      if (r.selectorText?.includes(":hover")) return true;
      if (r.cssRules && hasHover(r.cssRules)) return true;
    }
    return false;
  }

  // The elements whose lines a pointer move since the baseline may have
  // changed through CSS alone, outermost only; null: walk the whole page.
  function hoverRoots(now) {
    const was = new Set(baseHover), is = new Set(now);
    const flipped = [...baseHover.filter((e) => !is.has(e)), ...now.filter((e) => !was.has(e))];
    if (!flipped.length) return [];
    for (const e of [...flipped]) {
      if (e.localName === "iframe" || e.localName === "frame" || e.shadowRoot) return null;
      if (e.localName === "label" && e.control) flipped.push(e.control);
    }
    const rules = [];
    try {
      for (const sheet of [...document.styleSheets, ...(document.adoptedStyleSheets || [])]) {
        if (!hoverRules(sheet.cssRules, rules)) return null;
      }
    } catch { return null; }
    const roots = [];
    for (const f of flipped) {
      if (!f.isConnected) continue;
      for (const r of rules) {
        let m;
        try { m = f.matches(r.left); } catch { return null; }
        if (!m) continue;
        const root = r.siblings ? f.parentElement : f;
        if (!root) return null;
        roots.push(root);
      }
    }
    return roots;
  }

  // The lines of the last whole-page rendering: actions are reported as
  // the lines that changed since, computed here. `full`: the budget cut
  // it (lines past it are not in it).
  let baseline = null;
  // Change reports that walked the whole page (for stats()).
  let walks = 0;
  function setBaseline(lines, recs, full, hover = hoverChain()) {
    baseline = { lines, recs, full };
    baseHover = hover;
  }

  // The baseline's lines with `roots` (elements of this document) rendered
  // again in their places, each in the context its lines were made in:
  // what a whole walk would give when nothing outside them changed. null
  // when that cannot be done in place (walk the whole page).
  function regionLines(roots, budget) {
    // Outermost only, in document order.
    const sorted = [...new Set(roots)].filter((r) => r.isConnected)
      .sort((a, b) => a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1);
    const outer = [];
    for (const r of sorted) if (!outer.some((o) => o.contains(r))) outer.push(r);
    let lines = baseline.lines, recs = baseline.recs;
    // Last first, so the earlier places stay where they are.
    for (let k = outer.length - 1; k >= 0; k--) {
      const root = outer[k];
      if (root.getRootNode() !== document || root === document.documentElement || root === document.body) return null;
      // Where its lines are (or would be): [from, to).
      let from = 0;
      while (from < recs.length && !(root === recs[from].node || root.contains(recs[from].node))
        && root.compareDocumentPosition(recs[from].node) & Node.DOCUMENT_POSITION_PRECEDING) from++;
      let to = from;
      while (to < recs.length && (root === recs[to].node || root.contains(recs[to].node))) to++;
      // Past the end of a cut baseline: a budgeted walk does not reach it.
      if (baseline.full && to >= recs.length) { if (from === to) continue; return null; }
      let ctx;
      if (from < to) {
        const first = recs[from];
        if (first.pn === undefined || (first.node !== root && first.role === "option")) return null;
        ctx = { depth: first.depth, pn: first.pn, tn: first.tn };
      } else {
        // It had no lines: the context its nearest ancestor with a line
        // gives its children.
        if (root.closest("[aria-hidden=true], select, textarea, input, svg")) continue;
        let up = from - 1;
        while (up >= 0 && !(recs[up].node.nodeType === 1 && recs[up].node.contains(root))) up--;
        if (up < 0) ctx = { depth: 0, pn: "", tn: false };
        else {
          const a = recs[up];
          if (a.pn === undefined || a.role === "Iframe") return null;
          const named = NAME_FROM_CONTENT.has(a.role) && !!a.name && !a.node.hasAttribute("aria-label") && !a.node.hasAttribute("aria-labelledby") && !internals(a.node)?.name;
          ctx = { depth: a.depth + 1, pn: a.name || "", tn: named };
        }
      }
      const sub = [];
      const r = render(root, budget, false, sub, false, ctx);
      if (r.full || r.frames.length) return null;
      lines = [...lines.slice(0, from), ...r.lines, ...lines.slice(to)];
      recs = [...recs.slice(0, from), ...sub, ...recs.slice(to)];
    }
    return { lines, recs };
  }

  // Line numbers of `after` not in `before` (added) and of `before` not
  // in `after` (removed), as multisets of lines.
  function diff(before, after) {
    const left = new Map();
    for (const l of before) left.set(l, (left.get(l) || 0) + 1);
    const added = [];
    after.forEach((l, i) => {
      const n = left.get(l);
      if (n) left.set(l, n - 1); else added.push(i);
    });
    const removed = [];
    before.forEach((l, i) => {
      const n = left.get(l);
      if (n) { left.set(l, n - 1); removed.push(i); }
    });
    if (!added.length && !removed.length) reordered(before, after, added, removed);
    return { added, removed };
  }

  // The same lines in another order (an item dragged to another place in
  // its list): each line that left the order is told as removed from its
  // old place and added at its new one. The lines kept in place are the
  // longest run that stays in order (a longest increasing subsequence of
  // their old positions).
  function reordered(before, after, added, removed) {
    if (before.length !== after.length || before.every((l, i) => l === after[i])) return;
    const at = new Map();
    before.forEach((l, i) => { const q = at.get(l); if (q) q.push(i); else at.set(l, [i]); });
    const old = after.map((l) => at.get(l).shift());
    // Patience sorting, with links back to rebuild the run.
    const tails = [], prev = new Array(old.length);
    old.forEach((v, i) => {
      let lo = 0, hi = tails.length;
      while (lo < hi) { const mid = (lo + hi) >> 1; if (old[tails[mid]] < v) lo = mid + 1; else hi = mid; }
      prev[i] = lo ? tails[lo - 1] : -1;
      tails[lo] = i;
    });
    const kept = new Set();
    for (let i = tails.length ? tails[tails.length - 1] : -1; i >= 0; i = prev[i]) kept.add(i);
    old.forEach((v, i) => { if (!kept.has(i)) { added.push(i); removed.push(v); } });
    removed.sort((a, b) => a - b);
  }

  // Nodes whose lines an answer has shown (a removed line is only
  // reported when the model could have seen it), and nodes whose lines
  // were left out as unseen (a change report looks at them again: a
  // drawer that slides in changes no line, only what can be seen).
  const told = nodeFact();          // node -> true
  const unseenLines = nodeFact();   // node -> why ("covered" or "")

