  // ---- pixels decide what the rules cannot vouch for --------------------------
  //
  // The rules above judge plain text well: a colour on a background, an
  // opacity, a size, a box. CSS has more ways to draw text than any list
  // of rules: filters, blend modes, masks, transforms, shadows, images
  // behind it, colours near the backdrop's. Text drawn so, in the top
  // document's viewport, is a doubt: Rust takes a screenshot of where the
  // doubts are, another with them painted transparent (a CSS custom
  // highlight: no layout change, no DOM mutation), and tells the engine
  // which changed legibly (see src/page/reading/pixels.rs and judge()); the
  // answer is then made again with those verdicts. A verdict holds while
  // the text stays where it was with the same colour and opacity. Doubts
  // outside the viewport are judged by the rules alone and counted
  // (`unjudged`).
  const TRANSLATE = /^matrix\(1, 0, 0, 1, [^,]+, [^,]+\)$/;
  const MAX_DOUBTS = 200;
  // Text whose contrast with what is behind it is under this ratio is
  // plain enough for the rules only above it (WCAG's large-text minimum).
  const PALE = 3;
  const HL = "tabwire-veil";
  let doubts = [];               // this call's text nodes to show the pixels
  let pending = [];              // the last call's, for veil() and judge()
  let unjudged = new Set();      // doubts outside the viewport (this call)
  let verdicts = new WeakMap();  // text node -> {key, seen} (kept across calls)

  // Whether the text of `el` is drawn outside what the rules model.
  let doubtfulOf = new Map();   // element -> doubtful() (this call)
  function doubtful(el) {
    let d = doubtfulOf.get(el);
    if (d === undefined) doubtfulOf.set(el, d = doubtful_(el));
    return d;
  }
  function doubtful_(el) {
    if (pixelsCannot(el)) return false;
    if (unmodelled(el)) return true;
    const s = box(el).style;
    if (parseFloat(s.webkitTextStrokeWidth) > 0) return true;
    if (glyphSize(el, s) < 9) return true;
    const fill = el.namespaceURI === SVG_NS ? null : rgba(s.webkitTextFillColor) || rgba(s.color);
    if (!fill || fill[3] < 0.999) return true;
    const bgs = backdrops_(el);
    // An image behind it: colour says nothing.
    if (!bgs) return true;
    return bgs.some((bg) => contrast(fill, bg) < PALE);
  }

  // Whether a highlight cannot take the text of `el` away: a shadow, or a
  // background clipped to its letters (pixels would see it unchanged and
  // call it unseen; the rules judge it).
  function pixelsCannot(el) {
    return box(el).style.textShadow !== "none" || textClip(el);
  }

  // Whether `el` is painted through what the rules do not model on the
  // way up: a filter, mask, clip-path, transform, opacity or blend mode.
  function unmodelled(el) {
    const b = box(el);
    return b.styled || b.alpha < 0.999 || blended(el);
  }

  // Whether `el` or an ancestor blends with what is behind it.
  let blends = new Map();   // element -> blended() (this call)
  function blended(el) {
    if (!el) return false;
    let v = blends.get(el);
    if (v === undefined) blends.set(el, v = box(el).style.mixBlendMode !== "normal" || blended(paintParent(el)));
    return v;
  }

  // The key a verdict on `node` holds for: where its text is and how it
  // is painted.
  // (Page coordinates: a verdict outlives a scroll.)
  function verdictKey(node, el, r) {
    const b = box(el);
    const v = view(el.ownerDocument.defaultView);
    return `${Math.round(r.left + v.x)},${Math.round(r.top + v.y)},${Math.round(r.width)},${Math.round(r.height)},${b.style.color},${b.alpha.toFixed(3)},${node.data.length}`;
  }

  // `el` when the pixels said the text of `node` shows nothing legible;
  // else null (and a doubt recorded when the pixels were not asked yet).
  function pixelDoubt(node, el) {
    const r = textRect || nodeRect(node);
    const win = el.ownerDocument.defaultView;
    const v = view(win);
    if (el.ownerDocument !== document || r.right <= 0 || r.bottom <= 0 || r.left >= v.w || r.top >= v.h) {
      // (Outside the viewport only what costs little to tell is
      // counted: paint the rules do not model on the way up.)
      if (unmodelled(el) && !pixelsCannot(el)) unjudged.add(node);
      return null;
    }
    if (!doubtful(el)) return null;
    const said = verdicts.get(node);
    if (said && said.key === verdictKey(node, el, r)) {
      if (said.seen) return null;
      lastWhy = "pixels";
      return el;
    }
    if (doubts.length < MAX_DOUBTS && !doubts.includes(node)) doubts.push(node);
    return null;
  }

  // Where the last call's doubts are, in CSS px of the viewport: `clip`,
  // the region to compare, and each text's box inside it.
  function doubtRects() {
    // (A tab in the background paints nothing to compare.)
    if (document.visibilityState !== "visible") return { clip: null, rects: [] };
    const v = view(window);
    const rects = [];
    let l = Infinity, t = Infinity, r = -Infinity, b = -Infinity;
    const live = pending.filter((n) => n.isConnected);
    for (const n of live) {
      const q = nodeRect(n);
      const x0 = Math.max(q.left, 0), y0 = Math.max(q.top, 0), x1 = Math.min(q.right, v.w), y1 = Math.min(q.bottom, v.h);
      rects.push(x1 - x0 >= 1 && y1 - y0 >= 1 ? [x0, y0, x1, y1] : null);
      if (x1 - x0 >= 1 && y1 - y0 >= 1) { l = Math.min(l, x0); t = Math.min(t, y0); r = Math.max(r, x1); b = Math.max(b, y1); }
    }
    pending = live;
    if (!(r > l)) return { clip: null, rects: [] };
    // (Glyphs, italics and shadows reach a little past their box.)
    l = Math.max(0, Math.floor(l) - 2); t = Math.max(0, Math.floor(t) - 2);
    r = Math.min(v.w, Math.ceil(r) + 2); b = Math.min(v.h, Math.ceil(b) + 2);
    // (In the viewport's coordinates: the whole viewport is captured,
    // as a person's screen shows it, and this region cut from it.)
    return {
      clip: { x: l, y: t, width: r - l, height: b - t },
      viewport: { x: 0, y: 0, width: v.w, height: v.h },
      rects: rects.map((q) => q && { x: q[0] - l, y: q[1] - t, width: q[2] - q[0], height: q[3] - q[1] }),
    };
  }

  // Paints the last call's doubts transparent (`on`), or as they were.
  let veilSheets = new Map();   // document or shadow root -> its sheet
  function veil(on) {
    if (!on) {
      CSS.highlights.delete(HL);
      for (const [root, sheet] of veilSheets) root.adoptedStyleSheets = root.adoptedStyleSheets.filter((x) => x !== sheet);
      veilSheets = new Map();
      return true;
    }
    const ranges = [];
    for (const n of pending) {
      const root = n.getRootNode();
      if (!veilSheets.has(root) && root.adoptedStyleSheets) {
        const sheet = new CSSStyleSheet();
        sheet.replaceSync(`::highlight(${HL}) { color: transparent; -webkit-text-fill-color: transparent; ` +
          "text-shadow: 0 0 0 transparent; text-decoration-color: transparent; -webkit-text-stroke-color: transparent; }");
        root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
        veilSheets.set(root, sheet);
      }
      const range = new Range();
      range.selectNodeContents(n);
      ranges.push(range);
    }
    CSS.highlights.set(HL, new Highlight(...ranges));
    return ranges.length;
  }

  // The pixels' word on the last call's doubts, in doubtRects()' order
  // (the veil is lifted first).
  function judge(seen) {
    veil(false);
    // (A skeleton kept for an unchanged page holds the old judgement.)
    lastSkeleton = null;
    pending.forEach((n, i) => {
      if (typeof seen[i] !== "boolean" || !n.isConnected) return;
      const el = painting(n);
      if (!el) return;
      verdicts.set(n, { key: verdictKey(n, el, nodeRect(n)), seen: seen[i] });
    });
    pending = [];
    return true;
  }

  // ---- covers outside the viewport -------------------------------------------
  //
  // Hit-testing reaches only the viewport, so whether a block lower on
  // the page is covered would depend on the window's height. Outside it,
  // covers are looked for where pages put them: an absolutely positioned
  // opaque box or image among the children (or grandchildren) of the
  // text's nearest ancestors, painted above the text's branch, over all
  // of the text's three sample points.
  const COVER_UP = 2;
  // Containers with more children than this are not looked in (a long
  // list's items are not laid over each other).
  const COVER_KIDS = 40;
  let absKids = new Map();   // element -> its absolutely positioned children (this call)
  function absoluteKids(a) {
    let list = absKids.get(a);
    if (list) return list;
    list = [];
    const kids = a.shadowRoot ? a.shadowRoot.children : a.children;
    if (kids.length <= COVER_KIDS) {
      for (const c of kids) {
        if (SKIP.has(c.tagName)) continue;
        const pos = styleOf(c).position;
        if (pos === "absolute") list.push(c);
        // (An image in a static wrapper of its own.)
        else if (pos === "static" && c.childElementCount === 1) {
          const g = c.firstElementChild;
          if (styleOf(g).position === "absolute") list.push(g);
        }
      }
    }
    absKids.set(a, list);
    return list;
  }
  // The opaque absolutely positioned boxes among the children (or in a
  // child's only child) of `a` that hold every point of `xs` at `y`.
  function coversAt(a, xs, y, skip) {
    return absoluteKids(a).filter((c) => {
      if (c === skip) return false;
      const r = rectOf(c);
      return xs.every((x) => x >= r.left && x <= r.right && y >= r.top && y <= r.bottom) && opaqueCover(c);
    });
  }
  // Whether `el` is painted in its stacking context's positioned layer:
  // positioned, or a flex or grid item with a z-index (Material's button
  // inside its host's flex box).
  function stacks(el) {
    const b = box(el);
    if (b.pos !== "static") return true;
    if (b.style.zIndex === "auto") return false;
    const up = paintParent(el);
    return !!up && /flex|grid/.test(box(up).display);
  }
  function zOf(el) {
    const z = parseInt(box(el).style.zIndex, 10);
    return Number.isFinite(z) ? z : 0;
  }
  let offCovers = new Map();   // element -> coveredOffView() (this call)
  function coveredOffView(el, vr) {
    let c = offCovers.get(el);
    if (c === undefined) offCovers.set(el, c = coveredOffView_(el, vr));
    return c;
  }
  function coveredOffView_(el, vr) {
    if (box(el).fixed) return false;
    const y = (vr.top + vr.bottom) / 2;
    const xs = [(vr.left + vr.right) / 2, vr.left + (vr.right - vr.left) / 4, vr.right - (vr.right - vr.left) / 4];
    let branch = el;
    for (let a = paintParent(el), up = 0; a && up < COVER_UP; branch = a, a = paintParent(a), up++) {
      // (An absolutely positioned box is placed against its nearest
      // positioned ancestor: that is where a cover laid over a sibling's
      // text is a child of.)
      if (box(a).pos === "static") continue;
      for (const c of coversAt(a, xs, y, branch)) {
        if (within(el, c)) continue;
        // (A positioned box paints above the in-flow content of its
        // stacking context; among positioned ones z-index, then the
        // document's order decide. The text paints where its outermost
        // positioned ancestor below `a` does, or in flow.)
        let p = null;
        for (let n = el; n && n !== a; n = paintParent(n)) if (n.nodeType === 1 && stacks(n)) p = n;
        const zc = zOf(c);
        if (!p ? zc < 0 : !(zc > zOf(p) ||
          (zc === zOf(p) && p.compareDocumentPosition(c) & Node.DOCUMENT_POSITION_FOLLOWING))) continue;
        return true;
      }
    }
    return false;
  }

  // ---- text cut by its box -------------------------------------------------
  //
  // A single line ending in "…", a paragraph clamped to a few lines, a
  // box shorter than its text: a person reads the start, and the rest is
  // cut off. Characters are laid out in order, so the shown part is a
  // prefix, found by bisecting on where characters stand against the
  // clip (a few range measurements, not one per character). Text whose
  // start is cut (scrolled or indented away) is judged whole as before.
  let cuts = new Map();   // text node -> how many of its characters show
  function shownUpTo(node, clip, win) {
    const data = node.data;
    const range = node.ownerDocument.createRange();
    // Whether the character at `i` (or the next that draws: collapsed
    // spaces have no box) stands inside the clip, at least half of it.
    const inside = (i) => {
      for (let j = i; j < data.length && j < i + 8; j++) {
        if (!NON_SPACE.test(data[j])) continue;
        range.setStart(node, j);
        range.setEnd(node, j + 1);
        const q = pageRect(range.getBoundingClientRect(), win);
        if (q.r - q.l < 0.1 && q.b - q.t < 0.1) continue;
        const w = Math.min(q.r, clip.r) - Math.max(q.l, clip.l), h = Math.min(q.b, clip.b) - Math.max(q.t, clip.t);
        return w >= (q.r - q.l) / 2 && h >= (q.b - q.t) / 2;
      }
      return true;
    };
    const first = data.search(NON_SPACE);
    if (first < 0 || !inside(first)) return data.length;
    let lo = first + 1, hi = data.length;   // the first character cut off is in [lo, hi]
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (inside(mid)) lo = mid + 1; else hi = mid;
    }
    return lo;
  }

  // The text of a text node a person reads: all of it, or the part its
  // box shows and "…" (see shownUpTo).
  function shownData(node) {
    const k = cuts.get(node);
    return k === undefined ? node.data : node.data.slice(0, k).trimEnd() + "…";
  }

  // Whether a ::before or ::after of `el` is an opaque box laid over all
  // of it (hit-testing finds `el` itself there, so it is asked apart).
  function pseudoCovers(el) {
    if (box(el).style.position === "static") return false;
    const r = rectOf(el);
    return ["::before", "::after"].some((which) => {
      const ps = getComputedStyle(el, which);
      if (ps.content === "none" || ps.content === "normal" || ps.position !== "absolute" || ps.display === "none") return false;
      if (!(ps.backgroundImage !== "none" || (rgba(ps.backgroundColor)?.[3] ?? 0) >= 0.9) || parseFloat(ps.opacity) < 0.9) return false;
      return parseFloat(ps.left) <= 1 && parseFloat(ps.top) <= 1 &&
        parseFloat(ps.width) >= r.width * 0.9 && parseFloat(ps.height) >= r.height * 0.9;
    });
  }

  // ---- text a stylesheet generates ------------------------------------------
  //
  // `::before` / `::after` with `content` ("Required", "New", a unit) is
  // text a person reads. Asking every element for its pseudo-elements'
  // style would cost two style lookups per element of every walk, so the
  // stylesheets say which elements can have one: the selectors of rules
  // that set a string `content`, matched once per element shown. (Rules
  // of another origin's sheets cannot be read: what they generate is not
  // read, which loses text but never shows what a person cannot see.)
  // Generated text is judged as text is: too faint, too small,
  // transparent or not displayed is not read. Icon fonts' glyphs (private
  // use code points) are not words.
  const PSEUDO = /::?(before|after)\b/i;
  const pseudoSels = new WeakMap();   // document or shadow root -> {key, before, after} (kept across calls)
  function pseudoSelectors(root) {
    const sheets = [...(root.styleSheets || []), ...(root.adoptedStyleSheets || [])];
    const key = sheets.length;
    let p = pseudoSels.get(root);
    if (p && p.key === key) return p;
    // Per pseudo-element, the selectors (without it) by what their last
    // compound names: "#id", ".class", a tag, or "*" (few are tried per
    // element, not every rule of a big stylesheet).
    const bucket = () => ({ size: 0, all: "", tags: new Map(), ids: new Map(), classes: new Map() });
    p = { key, before: bucket(), after: bucket() };
    const scan = (rules) => {
      for (const r of rules) {
        const sel = r.selectorText;
        if (sel && PSEUDO.test(sel)) {
          const c = r.style?.content;
          // (Icon fonts' thousands of rules generate no words.)
          if (!c || c === "none" || c === "normal" || !contentWords(c, null)) continue;
          for (const one of splitList(sel)) {
            const m = PSEUDO.exec(one);
            if (!m || m.index + m[0].length < one.trimEnd().length) continue;
            const left = one.slice(0, m.index).trim() || "*";
            try { document.createDocumentFragment().querySelector(left); } catch { continue; }
            const last = left.split(/[\s>+~]+/).pop() || "*";
            const b = p[m[1].toLowerCase()];
            const add = (map, k) => map.set(k, map.has(k) ? `${map.get(k)}, ${left}` : left);
            let k;
            if ((k = /#([\w-]+)/.exec(last))) add(b.ids, k[1]);
            else if ((k = /\.([\w-]+)/.exec(last))) add(b.classes, k[1]);
            else if ((k = /^[a-zA-Z][\w-]*/.exec(last))) add(b.tags, k[0].toLowerCase());
            else b.all = b.all ? `${b.all}, ${left}` : left;
            b.size++;
          }
        } else if (r.cssRules) scan(r.cssRules);
      }
    };
    for (const sheet of sheets) {
      try { scan(sheet.cssRules); } catch { /* another origin's sheet */ }
    }
    pseudoSels.set(root, p);
    return p;
  }

  // Whether `el` matches a selector of `bucket` (see pseudoSelectors).
  function matchesBucket(el, b) {
    if (!b.size) return false;
    if (b.all && safeMatches(el, b.all)) return true;
    let sel = b.tags.get(el.localName);
    if (sel && safeMatches(el, sel)) return true;
    if (b.ids.size && el.id && (sel = b.ids.get(el.id)) && safeMatches(el, sel)) return true;
    if (b.classes.size) {
      const cl = el.classList;
      for (let i = 0; i < cl.length; i++) if ((sel = b.classes.get(cl[i])) && safeMatches(el, sel)) return true;
    }
    return false;
  }
  function safeMatches(el, sel) {
    try { return el.matches(sel); } catch { return false; }
  }

  // The words a pseudo-element's `content` shows: its strings and the
  // attributes it reads (counters, quotes and images are left out).
  function contentWords(content, el) {
    let out = "";
    // (Strings inside url(), counters() and the like are not shown.)
    content = content.replace(/\b(?!attr\()[\w-]+\((?:[^()"']|"[^"]*"|'[^']*')*\)/g, "");
    for (const m of content.matchAll(/"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|attr\(\s*([\w-]+)\s*\)/g)) {
      // (No element: whether the rule can generate words at all.)
      if (m[3]) out += el ? el.getAttribute(m[3]) || "" : "attr";
      else out += (m[1] ?? m[2]).replace(/\\([0-9a-fA-F]{1,6})\s?/g, (_, h) => String.fromCodePoint(parseInt(h, 16))).replace(/\\(.)/g, "$1");
    }
    // (Spaces at its ends stay: "Name" and " *" read as "Name *".)
    out = out.replace(/[\uE000-\uF8FF\u{F0000}-\u{10FFFF}]/gu, "").replace(/\s+/g, " ");
    return NON_SPACE.test(out) ? out : "";
  }

  // What `el`'s ::before or ::after shows a person ("" for nothing).
  let generatedOf = new Map();   // element -> {before, after} (this call)
  let pseudoOf = new Map();      // document or shadow root -> its selectors or null (this call)
  // Whether the document or a shadow root the engine watches has rules
  // that generate words (this call; again when more roots are watched).
  let anywhere = null;
  function wordsAnywhere() {
    if (anywhere && anywhere.roots === shadowRoots.length) return anywhere.any;
    const has = (root) => {
      const p = pseudoSelectors(root);
      return p.before.size > 0 || p.after.size > 0;
    };
    let any = has(document);
    for (const ref of shadowRoots) {
      if (any) break;
      const r = ref.deref();
      if (r) any = has(r);
    }
    anywhere = { roots: shadowRoots.length, any };
    return any;
  }
  const NO_GENERATED = Object.freeze({ before: "", after: "" });
  // (Callers ask only when wordsAnywhere() or inside a frame, whose
  // document is looked at on its own: most pages generate no words.)
  function generated(el) {
    const root = el.getRootNode();
    let sels = pseudoOf.get(root);
    if (sels === undefined) {
      sels = root.nodeType === 9 || root.nodeType === 11 ? pseudoSelectors(root) : null;
      if (sels && !sels.before.size && !sels.after.size) sels = null;
      pseudoOf.set(root, sels);
    }
    // (Most pages generate no words: nothing to look up per element.)
    if (!sels) return NO_GENERATED;
    let g = generatedOf.get(el);
    if (g) return g;
    const before = matchesBucket(el, sels.before) ? pseudoText(el, "before") : "";
    const after = matchesBucket(el, sels.after) ? pseudoText(el, "after") : "";
    g = before || after ? { before, after } : NO_GENERATED;
    generatedOf.set(el, g);
    return g;
  }

  function pseudoText(el, which) {
    const ps = getComputedStyle(el, "::" + which);
    if (ps.display === "none" || ps.visibility !== "visible" || ps.content === "none" || ps.content === "normal") return "";
    const words = contentWords(ps.content, el);
    if (!words) return "";
    const b = box(el);
    // (The element's zoom and transforms draw its pseudo-elements too.)
    const scale = glyphSize(el, b.style) / (parseFloat(b.style.fontSize) || 1);
    if (parseFloat(ps.fontSize) * scale < MIN_FONT) return "";
    const fill = rgba(ps.webkitTextFillColor) || rgba(ps.color);
    const alpha = (fill ? fill[3] : 1) * b.alpha * parseFloat(ps.opacity) * filterOpacity(ps.filter);
    if (alpha < 0.1 && ps.textShadow === "none") return "";
    if (fill && ps.textShadow === "none") {
      const bg = backdrop(el);
      const own = rgba(ps.backgroundColor);
      const under = own && own[3] >= 0.5 ? own : bg;
      if (under && contrast(over(fill, under, alpha), under) < FAINT) return "";
    }
    // Placed or indented far outside its element (the off-screen trick).
    if ((ps.position === "absolute" || ps.position === "fixed") &&
      (parseFloat(ps.left) < -999 || parseFloat(ps.top) < -999)) return "";
    if (parseFloat(ps.textIndent) < -999) return "";
    return words;
  }

  // ---- closed shadow roots ------------------------------------------------
  //
  // What a closed shadow root shows cannot be read by any script (the
  // engine's neither). What can be seen is a custom element with no open
  // root that has a box of its own size while none of its light DOM is
  // rendered: something inside it is drawing. Answers count such hosts
  // (`closedHosts`): a component there may hold more than its lines say.
  let closedHosts = new Set();  // hosts found by this call's renderings
  function closedHost(el) {
    if (!el.matches(":defined")) return false;
    for (let c = el.firstChild; c; c = c.nextSibling) {
      // (Light DOM that is rendered is slotted: the component shows it.)
      if (c.nodeType === 3 ? NON_SPACE.test(c.data) : c.nodeType === 1 && c.getClientRects().length > 0) return false;
    }
    const r = el.getBoundingClientRect();
    return r.width >= 1 && r.height >= 1 && !unseen(el, false);
  }

  // How many blocks of text this call left out, as a line for answers.
  function leftOutCount() {
    return leftOut.size;
  }

