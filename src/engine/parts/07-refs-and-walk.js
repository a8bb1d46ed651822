  // ---- what the engine remembers about a node --------------------------------

  // A fact kept per node between calls (its ref, whether an answer showed
  // its line, why its line was left out), stored on the node's wrapper in
  // this isolated world under a symbol only the engine holds: it goes
  // with the node, and the page's scripts never see it (their world has
  // its own wrapper). WeakMaps and WeakSets did this before, but their
  // tables keep the capacity they reached between two full GCs and only
  // shrink when an entry is added after one: on a page that makes a
  // thousand new elements per snapshot, the page's heap grew in steps of
  // a table's doubling over a long session (issue 24).
  function nodeFact() {
    const key = Symbol();
    return {
      get: (n) => n[key],
      has: (n) => n[key] !== undefined,
      set: (n, value) => { n[key] = value; },
      // (Set to undefined, not deleted: deleting a property can turn the
      // wrapper's properties into a slower dictionary.)
      delete: (n) => { if (n[key] !== undefined) n[key] = undefined; },
    };
  }

  // ---- refs -----------------------------------------------------------------

  let prefix = "e";       // "f2e" in a frame reached through its own context
  let nextRef = 1;        // refs are never reused: e1, e2, … in order made
  const refOf = nodeFact();        // element -> ref
  // ref -> WeakRef(element), for elements that were on the page at the
  // last sweep or got their ref since. A page that replaces its content
  // (a feed, a dashboard) makes new elements, and refs for them, on every
  // render: the sweep drops the entries of elements that left the page
  // once the table has doubled since the last sweep, so it follows the
  // page's size, not the number of snapshots taken of it. A ref with no
  // entry whose number was handed out belongs to a removed element.
  const elementOf = new Map();
  const MIN_SWEEP = 256;
  let sweepAt = MIN_SWEEP;
  let sweeps = 0;

  function refFor(el) {
    let r = refOf.get(el);
    if (!r) {
      r = prefix + nextRef++;
      refOf.set(el, r);
    }
    // (Also for an element that was swept while out of the page and is
    // back: it keeps its ref.)
    if (!elementOf.has(r)) {
      elementOf.set(r, new WeakRef(el));
      if (elementOf.size >= sweepAt) sweep();
    }
    return r;
  }

  function sweep() {
    for (const [r, weak] of elementOf) {
      const el = weak.deref();
      if (!el || !el.isConnected) elementOf.delete(r);
    }
    sweepAt = Math.max(MIN_SWEEP, 2 * elementOf.size);
    sweeps++;
  }

  const REF = /^(f\d+)?e\d+$/;

  // A ref or CSS selector to an element of this document, or an error
  // the model can act on.
  function resolve(target) {
    target = String(target).trim();
    if (REF.test(target)) {
      if (!target.startsWith(prefix) || !/^\d+$/.test(target.slice(prefix.length))) {
        throw new Error(`ref ${target} belongs to another frame or page than this one. Call browser_snapshot and use a ref from it`);
      }
      if (Number(target.slice(prefix.length)) >= nextRef) throw new Error(`ref ${target} is not in any snapshot of this page. Call browser_snapshot and use a ref from it`);
      // (No entry: swept with its element.)
      const el = elementOf.get(target)?.deref();
      if (!el || !el.isConnected) throw new Error(`ref ${target} no longer exists on the page (the element was removed). Call browser_snapshot again`);
      return el;
    }
    let el;
    try {
      el = document.querySelector(target);
    } catch (e) {
      throw new Error(`${JSON.stringify(target)} is neither a snapshot ref (like e12) nor a valid CSS selector: ${e.message}`);
    }
    // (Its name is the kind Rust decides on: the message is for the model.)
    if (!el) throw Object.assign(new Error(`no element matches the selector ${JSON.stringify(target)}`), { name: "NotFound" });
    return el;
  }

  // The iframes of the last snapshot or change report, for frameOwner
  // (a search's rendering leaves them as they were).
  let lastFrames = [];

  // ---- the walk ---------------------------------------------------------------

  const MAX_NAME = 200;

  function cut(s) {
    return s.length > MAX_NAME ? s.slice(0, MAX_NAME) + "…" : s;
  }

  // The indent of a line at `depth`, made once per depth.
  const indents = [];
  function indentOf(depth) {
    return indents[depth] ?? (indents[depth] = "  ".repeat(depth));
  }

  function quote(s) {
    return `"${s.replace(/"/g, '\\"')}"`;
  }

  // An element's line: its role, name, states, ref and value.
  function lineOf(depth, role, name, st, ref, value) {
    let line = `${indentOf(depth)}- ${role}`;
    if (name) line += ` ${quote(name)}`;
    if (st.length) line += " " + st.join(" ");
    if (ref) line += ` [ref=${ref}]`;
    if (value && value !== name) line += `: ${cut(value)}`;
    return line;
  }

  const NO_STATES = [];
  // An unsure element known not to hide all it holds (see render()).
  const NOT_ALL = "not all";

  // Line `i` of a rendering made with `namesAfter`, whole: what the walk
  // left for later (name, states, value) is read now, and the line and
  // its record get it.
  function nameLine(lines, recs, i) {
    const r = recs[i];
    if (r.later) {
      if (r.name === null) r.name = cut(contentName(r.node, r.role));
      lines[i] = lineOf(r.depth, r.role, r.name, states(r.node, r.role), r.ref, clean(valueOf(r.node, r.role)));
      r.later = false;
    }
    return lines[i];
  }

  // Renders the subtree of `root` as outline lines until `budget` bytes
  // (UTF-16 units, a close enough measure) are used. Returns the text, the
  // number of shown lines, whether it was cut, and the iframes whose
  // documents this world cannot read (another origin or process).
  // With `recs`, each line's depth, role and node are recorded there too
  // (what a skeleton is made from), with the context the line was made in
  // (what rendering one element again in its place needs, see
  // regionLines()). `ctx` renders `root` in such a context.
  // The last skeleton, its walk and its key. It is only reused when no
  // other rendering (a hover's forced one, say) came after it: every
  // rendering drops it, which also frees the walk it holds.
  let lastSkeleton = null;
  // How many same-origin frames the walk is inside (their documents'
  // stylesheets are their own, see generated()).
  let frameDepth = 0;
  // The nodes a walk of the whole page met. A node's wrapper in this
  // world is made when the world first reaches the node, and V8 drops a
  // young wrapper nothing holds: each walk made most of them again (a
  // third of a µs each, tens of thousands on a big page). Held until a
  // walk that meets as many (or the whole page) replaces them, the next
  // walk finds them instead: one page's nodes, as the last rendering's.
  let metLast = [];

  // `see`: leave out what a person cannot see as lines are made (budgeted
  // walks); the skeleton's big walk leaves it to the lines it shows.
  // `namesAfter` (with recs, without see): once this many units are
  // used, an element's line is made without its states and value, and
  // without its name when that comes from its content (the record's
  // name is null then), see nameLine(): most of those lines a skeleton
  // folds, and a folded line is counted by role and ref, not read. Lines
  // so made are shorter than they will be: `used` is a lower bound then.
  function render(root, budget, count = true, recs = null, see = true, ctx = null, namesAfter = Infinity) {
    inControl = 0;
    lastSkeleton = null;
    claimSurfaces(root);
    const lines = [];
    let used = 0;
    let full = false;
    const frames = [];
    // A node whose walk the budget stopped: elements from it on are counted.
    let stoppedAt = null;
    const met = !ctx && (root === document.documentElement || root === document.body) ? [] : null;
    // Elements of no line of their own (they pass their children on) that
    // the walk is inside and has not asked yet whether they show,
    // outermost first: {el, h}, h undefined (not asked), NOT_ALL (they do
    // not hide all they hold) or hiddenNow()'s answer. Most elements of a
    // big page show, and asking each first (checkVisibility) was a quarter
    // of a skeleton's walk: these are asked only when their own text comes
    // or something in them would show without a box of its own. An element
    // in them with a box that is visible says that none of them hides all
    // it holds: an element has no box where its parent has none (but for
    // display: contents, which hides nothing), and is visible only where
    // no ancestor locks what it holds (content-visibility). Only the walk
    // without sight does this; nothing is emitted or handed a ref under
    // them, nor a shadow root looked into, before such an answer.
    const unsure = [];
    let open = 0;          // the last `open` entries are not asked (h undefined)
    let goneFrom = -1;     // the index of the first found to hide all it holds

    // Something in the unsure elements showed.
    function shows() {
      for (let i = unsure.length - open; i < unsure.length; i++) unsure[i].h = NOT_ALL;
      open = 0;
    }

    // Asks the unsure elements not asked yet, the innermost first (one
    // with a box says the rest hide nothing): false when one hides all it
    // holds.
    function settle() {
      const from = unsure.length - open;
      for (let i = unsure.length - 1; i >= from; i--) {
        const u = unsure[i];
        const memo = hiddenOf.get(u.el);
        if (memo === undefined && shownByStyle(u.el)) {
          u.h = "";
          for (let j = from; j < i; j++) unsure[j].h = NOT_ALL;
          break;
        }
        u.h = memo ?? hiddenByStyle(u.el);
      }
      open = 0;
      for (let i = from; i < unsure.length; i++) {
        if (unsure[i].h === "all") { goneFrom = i; return false; }
      }
      return true;
    }

    // hiddenOnce() of an element the walk does not leave unsure, with the
    // unsure ones around it asked when it shows without a box of its own
    // (display: contents) or its shadow root is next: "all" also when one
    // of them hides all it holds. (Hidden, or visibility: hidden, it shows
    // nothing of its own: what it holds is asked for itself.)
    function ask(el) {
      const memo = hiddenOf.get(el);
      if (memo === undefined) {
        if (hiddenByMarkup(el)) return "all";
        if (shownByStyle(el)) {
          if (open) shows();
          return "";
        }
      }
      const h = memo ?? hiddenByStyle(el);
      if (h === "all" || !open || (h === "self" && !el.shadowRoot)) return h;
      return settle() ? h : "all";
    }

    function emit(line, depth, role, node, name, pn, tn, parts) {
      if (used + line.length + 1 > budget) {
        full = true;
        return false;
      }
      lines.push(line);
      if (recs) recs.push(parts ? { depth, role, node, name, pn, tn, ...parts } : { depth, role, node, name, pn, tn });
      used += line.length + 1;
      return true;
    }

    // (`ownTextHidden`: the parent's own text is invisible, not that of
    // a child element that sets visibility: visible.)
    // (`unsureOf`: `parent` is left unsure, see `unsure`.)
    function walkChildren(parent, depth, parentName, textIsName, ownTextHidden = false, unsureOf = false) {
      // An open shadow root is what the page shows in place of the light
      // DOM (slots bring light children back in).
      const shadow = parent.shadowRoot;
      if (shadow) { watch(shadow); claimShadow(shadow); }
      // Text its stylesheet generates stands before and after what it
      // holds (not when its text is its name: the name says it).
      const gen = !textIsName && !ownTextHidden && parent.nodeType === 1 && (frameDepth > 0 || wordsAnywhere()) ? generated(parent) : null;
      if (gen?.before) emitGenerated(gen.before, parent, depth, parentName);
      const first = shadow ? shadow.firstChild : parent.firstChild;
      // (`at`: the last entry of `unsure` this is in.)
      const at = unsureOf ? unsure.push({ el: parent, h: undefined }) - 1 : unsure.length - 1;
      if (unsureOf) open++;
      const me = unsureOf ? unsure[at] : null;
      for (let n = first; n && !full; n = n.nextSibling) {
        if (n.nodeType === 3) {
          if (ownTextHidden) continue;
          // (Whether its own words show: its style is asked now. Blanks
          // make no line: passed over.)
          if (me && me.h !== "" && !textIsName) {
            if (!NON_SPACE.test(n.data)) continue;
            if (me.h === undefined && !settle()) break;
            if (me.h === NOT_ALL) me.h = hiddenOnce(me.el);
            if (me.h === "all") { goneFrom = at; break; }
            if (me.h === "self") { ownTextHidden = true; continue; }
          }
        }
        walk(n, depth, parentName, textIsName);
        if (goneFrom >= 0 && goneFrom <= at) break;
      }
      if (me) {
        unsure.pop();
        if (me.h === undefined) open--;
        if (goneFrom === at) goneFrom = -1;
      }
      if (gen?.after && !full) emitGenerated(gen.after, parent, depth, parentName);
    }

    function emitGenerated(words, el, depth, parentName) {
      words = words.trim();
      if (words === parentName) return;
      if (!emit(`${indentOf(depth)}- text: ${cut(words)}`, depth, "text", el, undefined, parentName, false)) stoppedAt = el;
    }

    function walk(node, depth, parentName, textIsName) {
      // (Nor under an unsure element found to hide all it holds, until
      // the walk is out of it: a slot's nodes are walked in a loop of
      // their own.)
      if (full || goneFrom >= 0) return;
      if (met) met.push(node);
      if (node.nodeType === 3) {
        // Most text nodes of a big page are the blanks between tags.
        if (textIsName) return;
        // (Read once: each read of `data` is a call into the DOM.)
        const data = node.data;
        if (!NON_SPACE.test(data)) return;
        const whole = clean(data);
        if (whole === parentName || (see && unseen(node))) return;
        if (open && !settle()) return;
        // (Line breaks a person sees make lines of their own.)
        if (!(data.includes("\n") && keepsBreaks(node.parentElement)) && !cuts.has(node)) {
          if (!emit(`${indentOf(depth)}- text: ${cut(whole)}`, depth, "text", node, undefined, parentName, textIsName)) stoppedAt = node;
          return;
        }
        for (const t of textLines(node)) {
          if (!emit(`${indentOf(depth)}- text: ${cut(t)}`, depth, "text", node, undefined, parentName, textIsName)) { stoppedAt = node; break; }
        }
        return;
      }
      if (node.nodeType !== 1) return;
      const el = node;
      if (SKIP.has(el.tagName)) return;
      // (Read once: each read is a call into the DOM.)
      const tag = el.localName;
      if (tag === "slot") {
        const fill = el.assignedNodes();
        if (fill.length) for (const a of fill) walk(a, depth, parentName, textIsName);
        else walkChildren(el, depth, parentName, textIsName);
        return;
      }
      // (Left unsure if it turns out to have no line of its own: see
      // `unsure`. Not an element whose look at its shadow root, custom
      // element's closed root or generated text comes first.)
      const lazy = !see && frameDepth === 0 && !tag.includes("-") && !claimed.has(el) && hiddenOf.get(el) === undefined &&
        !el.shadowRoot && !wordsAnywhere();
      if (lazy) {
        if (hiddenByMarkup(el)) return;
      } else {
        const h = ask(el);
        if (h === "all") return;
        // Its own text is invisible too; a child that sets visible shows.
        if (h === "self") { walkChildren(el, depth, parentName, textIsName, true); return; }
      }
      if (tag.includes("-") && !el.shadowRoot && closedHost(el)) closedHosts.add(el);
      // The surface an editor or slider draws: the control's line, once.
      const drawn = claimed.get(el);
      if (drawn) {
        const role = roleOf(drawn);
        // A label of the hidden control shown on its surface says what a
        // person reads there (Material for MkDocs' palette toggle: the
        // label "Switch to dark mode" checks the input named "Switch to
        // light mode").
        const shownLabel = [...(drawn.labels || [])].find((l) => (l === el || el.contains(l)) && l.checkVisibility());
        const said = shownLabel ? cut(clean(contentText(shownLabel, 0)) || clean(shownLabel.title)) : "";
        const name = said || seenName(drawn, role, cut(nameOf(drawn, role)));
        let line = `${indentOf(depth)}- ${role}`;
        if (name) line += ` ${quote(name)}`;
        const st = states(drawn, role);
        if (st.length) line += " " + st.join(" ");
        line += ` [ref=${refFor(drawn)}]`;
        const value = clean(TEXT_PROXY_ROLES.has(role) ? fieldValue(drawn) : valueOf(drawn, role));
        if (value && value !== name) line += `: ${cut(value)}`;
        if (!emit(line, depth, role, drawn, name, parentName, textIsName)) stoppedAt = el;
        return;
      }

      let role = roleOf(el);
      // `own`: null when a name from content may be left for later
      // (`deferred`: there is one).
      const own = used > namesAfter && !see ? ownName(el, role) : undefined;
      let name = own === undefined ? cut(nameOf(el, role)) : own === null ? "" : cut(own);
      const deferred = own === null && hasContentName(el, role);
      const isFocusable = focusable(el);
      // A div, span, label or image a person clicks (no role says so).
      // (The skeleton's big walk leaves that to the lines it shows.)
      const click = see && !inControl && !isFocusable && !INTERACTIVE.has(role) && clickable(el, role);
      if (click) {
        role = click;
        if (!name) name = cut(clickName(el));
      }
      // (Most elements have no tabindex and none of those roles: one
      // attribute read, not a call, for them.)
      const part = !click && !isFocusable && (GRID_PARTS.has(role) || el.hasAttribute("tabindex")) && !INTERACTIVE.has(role) && widgetPart(el, role);
      if ((role === "none" || role === "presentation" || TRANSPARENT.has(role)) && !name && !deferred && !isFocusable && !(part && !inControl && rovingLeaf(el, role))) {
        walkChildren(el, depth, parentName, textIsName, false, lazy);
        return;
      }
      if (lazy) {
        const h = ask(el);
        if (h === "all") return;
        if (h === "self") { walkChildren(el, depth, parentName, textIsName, true); return; }
      }
      if (see) {
        if (unseen(el)) return;
        name = seenName(el, role, name);
      }
      const nameIsText = (NAME_FROM_CONTENT.has(role) || click) && (!!name || deferred) && !el.hasAttribute("aria-label") && !el.hasAttribute("aria-labelledby") && !(AX_INFO && internals(el)?.name);
      // (What its text is compared with needs the name itself.)
      const waits = deferred && nameIsText;
      if (deferred && !waits) name = cut(contentName(el, role));
      // Past `namesAfter`, states and value wait with the name (the ref
      // is handed out now: refs are numbered in walk order). (A frame's
      // line gets its [frame=n] below: made now.)
      const later = own !== undefined && role !== "Iframe";
      const st = later ? NO_STATES : states(el, role);
      const acts = INTERACTIVE.has(role) || isFocusable || !!click || part || (see && !inControl && pointerPart(el, role));
      const ref = acts ? refFor(el) : "";
      const value = later ? "" : clean(valueOf(el, role));
      const line = lineOf(depth, role, name, st, ref, value);
      if (!emit(line, depth, role, el, waits ? null : name, parentName, textIsName, later ? { later, ref } : null)) { stoppedAt = el; return; }

      if (role === "Iframe") {
        let doc = null;
        try { doc = el.contentDocument; } catch { /* another origin */ }
        if (doc && doc.documentElement) {
          watch(doc);
          frameDepth++;
          try {
            walkChildren(doc.body || doc.documentElement, depth + 1, "", false);
          } finally {
            frameDepth--;
          }
        } else {
          // Rust fills the frame in through the frame's own context.
          frames.push(el);
          lines[lines.length - 1] += ` [frame=${frames.length}]`;
        }
        return;
      }
      // Controls show their state on their own line; their inner DOM
      // (options excepted) is the browser's, not the page's.
      // (Options have no box while the list is closed: listed as they are.)
      if (tag === "select") {
        for (const o of el.querySelectorAll("option")) {
          if (full) continue;
          if (o.hidden || getComputedStyle(o).display === "none") { if (see) leftOut.add(o); continue; }
          let opt = `${indentOf(depth + 1)}- option ${quote(cut(nameOf(o, "option")))}`;
          const ost = states(o, "option");
          if (ost.length) opt += " " + ost.join(" ");
          if (!emit(`${opt} [ref=${refFor(o)}]`, depth + 1, "option", o)) stoppedAt = o;
        }
        return;
      }
      if (tag === "textarea" || tag === "input") return;
      // An editable region (CodeMirror 6, a rich text box) shows its text
      // as its value, once.
      if ((role === "textbox" || role === "searchbox") && el.hasAttribute("contenteditable") && (later ? clean(valueOf(el, role)) : value)) return;
      if (acts) inControl++;
      try {
        walkChildren(el, depth + 1, name, nameIsText);
      } finally {
        if (acts) inControl--;
      }
    }

    if (ctx) {
      walk(root, ctx.depth, ctx.pn, ctx.tn);
    } else if (root === document.documentElement || root === document.body) {
      // (A document not parsed yet may have no root element at all.)
      const top = document.body || document.documentElement;
      if (top) walkChildren(top, 0, "", false);
    } else {
      walk(root, 0, "", false);
    }
    if (met && (!full || met.length >= metLast.length)) metLast = met;
    let more = 0;
    if (full && count) more = countAfter(stoppedAt, root);
    return { lines, full, more, frames, stoppedAt };
  }

  // The lines a text node reads as: one, or one per line break a person
  // sees (pre, pre-wrap, pre-line, break-spaces keep them: a poem, an
  // address, a code block).
  const BROKEN = /^(pre|pre-wrap|pre-line|break-spaces)$/;
  const INNER_BREAK = /\S\s*\n\s*\S/;
  function textLines(node) {
    const data = shownData(node);
    if (!data.includes("\n") || !keepsBreaks(node.parentElement) || !INNER_BREAK.test(data)) {
      const t = clean(data);
      return t ? [t] : [];
    }
    return data.split("\n").map(clean).filter(Boolean);
  }

  // Whether `el` shows the line breaks of its text (see textLines).
  let breaksOf = new Map();   // element -> keepsBreaks() (this call)
  function keepsBreaks(el) {
    if (!el) return false;
    let k = breaksOf.get(el);
    if (k === undefined) breaksOf.set(el, k = BROKEN.test(styleOf(el).whiteSpace));
    return k;
  }

  // Elements with refs' kinds that follow `node` in the document (inside
  // `root`): what a cut outline leaves out, counted natively.
  function countAfter(node, root) {
    if (!node) return 0;
    const scope = root === document.documentElement || root === document.body ? document : root;
    const all = scope.querySelectorAll("a[href], button, input:not([type=hidden]), select, textarea, [role], [tabindex], summary");
    const follows = (el) => node.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING;
    // (The query's elements are in document order: when `node` is in the
    // tree it looked in, those that follow it are the last ones, found by
    // halving. Across a shadow root's or a frame's boundary the order
    // compareDocumentPosition gives is its own: each is asked then.)
    if (node.getRootNode() === scope.getRootNode()) {
      let lo = 0, hi = all.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (follows(all[mid])) hi = mid;
        else lo = mid + 1;
      }
      return all.length - lo;
    }
    let n = 0;
    for (const el of all) if (follows(el)) n++;
    return n;
  }

