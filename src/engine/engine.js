// tabwire's in-page snapshot engine.
//
// Evaluated once per document in an isolated world named "tabwire" (the
// page's own scripts cannot see or change it, and its CSP does not apply).
// It walks the DOM, renders the outline a model reads, hands out refs for
// the elements it shows and resolves them again for actions, all inside
// the page: only the rendered text crosses the wire, and a walk stops as
// soon as its byte budget is spent, so its cost follows the answer, not
// the page.
//
// Line format (the same as tabwire's outlines before this engine):
//   - role "name" [state] [ref=e12]: value
//   - text: some words
//
// The value of the expression is the engine object; it is also kept on
// the isolated world's global, so later calls reuse its ref table.
(() => {
  if (globalThis.__tabwire) return globalThis.__tabwire;

  // ---- roles (WAI-ARIA + HTML-AAM, spelled as Chromium's AX tree does) --

  const ARIA_ROLES = new Set(("alert alertdialog application article banner blockquote button caption " +
    "cell checkbox code columnheader combobox complementary contentinfo definition deletion dialog " +
    "directory document emphasis feed figure form generic grid gridcell group heading image img " +
    "insertion link list listbox listitem log main mark marquee math menu menubar menuitem " +
    "menuitemcheckbox menuitemradio meter navigation none note option paragraph presentation " +
    "progressbar radio radiogroup region row rowgroup rowheader scrollbar search searchbox " +
    "separator slider spinbutton status strong subscript superscript switch tab table tablist " +
    "tabpanel term textbox time timer toolbar tooltip tree treegrid treeitem").split(" "));

  // Roles a person acts on: their lines carry refs.
  const INTERACTIVE = new Set(["button", "checkbox", "combobox", "link", "listbox", "menuitem",
    "menuitemcheckbox", "menuitemradio", "option", "radio", "searchbox", "slider", "spinbutton",
    "switch", "tab", "textbox", "treeitem", "DisclosureTriangle", "ColorWell", "Date", "DateTime",
    "InputTime"]);

  // Wrappers that add nothing when unnamed: their content moves up.
  const TRANSPARENT = new Set(["generic", "none", "presentation", "paragraph", "listitem",
    "group", "LabelText", "Section", "emphasis", "strong", "code", "mark", "Abbr", "time",
    "subscript", "superscript", "deletion", "insertion", "Figcaption", "Legend", "blockquote",
    "definition", "term", "DescriptionList", "rowgroup"]);

  // Roles whose name comes from their content (accname step 2F).
  // (Chromium names rows from their content too; an outline leaves that
  // out: the row's cells follow and say the same.)
  const NAME_FROM_CONTENT = new Set(["button", "cell", "checkbox", "columnheader", "gridcell",
    "heading", "link", "menuitem", "menuitemcheckbox", "menuitemradio", "option", "radio",
    "rowheader", "switch", "tab", "tooltip", "treeitem", "DisclosureTriangle", "term"]);

  // Roles that name a part of the page in a find result's section path.
  const LANDMARKS = new Set(["banner", "complementary", "contentinfo", "form", "main",
    "navigation", "region", "search", "dialog", "Iframe", "table", "article"]);

  // Elements never shown.
  // (Tag-name sets hold each name in both cases: `tagName` is upper case
  // for HTML elements and as written for SVG and MathML ones, and the walk
  // looks every element up, so it does not make an upper-case copy each time.)
  const bothCases = (names) => new Set(names.flatMap((n) => [n, n.toLowerCase()]));
  const SKIP = bothCases(["SCRIPT", "STYLE", "TEMPLATE", "NOSCRIPT", "HEAD", "META", "LINK",
    "TITLE", "BASE", "DATALIST", "PARAM", "SOURCE", "TRACK"]);

  // Inline elements: their text joins their neighbours' without a space.
  const INLINE = bothCases(["A", "ABBR", "B", "BDI", "BDO", "CITE", "CODE", "DATA", "DFN", "EM",
    "FONT", "I", "IMG", "KBD", "LABEL", "MARK", "Q", "S", "SAMP", "SMALL", "SPAN", "STRONG",
    "SUB", "SUP", "TIME", "U", "VAR", "INS", "DEL", "TT", "SLOT"]);

  const INPUT_ROLES = {
    button: "button", submit: "button", reset: "button", image: "button", file: "button",
    checkbox: "checkbox", radio: "radio", range: "slider", number: "spinbutton",
    color: "ColorWell", date: "Date", time: "InputTime", "datetime-local": "DateTime",
    month: "DateTime", week: "DateTime", hidden: "none",
  };

  const LANDMARK_SCOPES = "article, aside, main, nav, section";

  function implicitRole(el) {
    switch (el.localName) {
      case "a": case "area": return el.hasAttribute("href") ? "link" : "generic";
      case "button": return "button";
      case "input": {
        const type = (el.getAttribute("type") || "text").toLowerCase();
        if (INPUT_ROLES[type]) return INPUT_ROLES[type];
        if (el.hasAttribute("list")) return "combobox";
        return type === "search" ? "searchbox" : "textbox";
      }
      case "select": return el.multiple || el.size > 1 ? "listbox" : "combobox";
      case "option": return "option";
      case "optgroup": return "group";
      case "textarea": return "textbox";
      case "h1": case "h2": case "h3": case "h4": case "h5": case "h6": return "heading";
      case "img": return el.getAttribute("alt") === "" && !el.title ? "none" : "image";
      case "svg": return "image";
      case "nav": return "navigation";
      case "main": return "main";
      case "header": return el.parentElement?.closest(LANDMARK_SCOPES) ? "generic" : "banner";
      case "footer": return el.parentElement?.closest(LANDMARK_SCOPES) ? "generic" : "contentinfo";
      case "aside": return "complementary";
      case "form": return "form";
      case "section": return hasOwnLabel(el) ? "region" : "generic";
      case "article": return "article";
      case "ul": case "ol": case "menu": return "list";
      case "li": return "listitem";
      case "table": return "table";
      case "thead": case "tbody": case "tfoot": return "rowgroup";
      case "tr": return "row";
      case "td": return "cell";
      case "th": return el.closest("thead") || el.getAttribute("scope") === "col" || !el.parentElement?.querySelector("td") ? "columnheader" : "rowheader";
      case "dialog": return "dialog";
      case "details": return "group";
      case "summary": return "DisclosureTriangle";
      case "p": return "paragraph";
      case "blockquote": return "blockquote";
      case "code": return "code";
      case "label": return "LabelText";
      case "fieldset": return "group";
      case "legend": return "Legend";
      case "hr": return "separator";
      case "progress": return "progressbar";
      case "meter": return "meter";
      case "output": return "status";
      case "dl": return "DescriptionList";
      case "dt": case "dfn": return "term";
      case "dd": return "definition";
      case "figure": return "figure";
      case "figcaption": return "Figcaption";
      case "em": return "emphasis";
      case "strong": return "strong";
      case "iframe": case "frame": return "Iframe";
      case "abbr": return "Abbr";
      case "time": return "time";
      case "mark": return "mark";
      case "sub": return "subscript";
      case "sup": return "superscript";
      case "del": return "deletion";
      case "ins": return "insertion";
      case "address": case "hgroup": return "group";
      case "search": return "search";
      case "math": return "math";
      default: return "generic";
    }
  }

  function focusable(el) {
    // (The attribute first: most elements have none, and the tabIndex and
    // isContentEditable getters cost more than reading it.)
    return el.hasAttribute("tabindex") && el.tabIndex >= 0 || el.contentEditable === "true" && el.isContentEditable;
  }

  function roleOf(el) {
    const attr = el.getAttribute("role");
    if (attr) {
      for (const token of attr.trim().toLowerCase().split(/\s+/)) {
        if (!ARIA_ROLES.has(token)) continue;
        // A focusable element cannot be made presentational (ARIA 1.2).
        if ((token === "none" || token === "presentation") && focusable(el)) break;
        return token === "img" ? "image" : token;
      }
    }
    return (AX_INFO && internals(el)?.role) || implicitRole(el);
  }

  // ---- ElementInternals ---------------------------------------------------
  //
  // A custom element can take its role and name from its ElementInternals
  // (internals.role = "checkbox", internals.ariaLabel = "Subscribe"): no
  // attribute shows them, and the page's script alone holds the object.
  // Only Chromium's own accessibility computation reads them, which pages
  // see as Element.computedRole/computedName when Chromium runs with
  // --enable-blink-features=ComputedAccessibilityInfo. Each read builds
  // the document's accessibility tree afresh (over 100 ms on a page of 17k
  // elements, measured), so they are asked only of a focusable custom
  // element with no role attribute (the shape such controls take), and a
  // call stops asking once AX_SPEND ms went to them.
  const AX_INFO = "computedRole" in Element.prototype && "computedName" in Element.prototype;
  const AX_SPEND = 40;
  let axSpent = 0;              // ms spent on computedRole/Name (this call)
  let axOf = new Map();         // element -> {role, name} or null (this call)
  function internals(el) {
    if (!AX_INFO || !el.localName.includes("-") || !el.hasAttribute("tabindex") || el.hasAttribute("role")) return null;
    let v = axOf.get(el);
    if (v !== undefined) return v;
    v = null;
    if (axSpent < AX_SPEND) {
      const t0 = performance.now();
      const role = el.computedRole;
      if (role && role !== "generic" && ARIA_ROLES.has(role)) v = { role: role === "img" ? "image" : role, name: clean(el.computedName) };
      axSpent += performance.now() - t0;
    }
    axOf.set(el, v);
    return v;
  }

  // ---- visibility -------------------------------------------------------

  // Whether `el` and its subtree are left out of the outline, and whether
  // it is a box-less wrapper (display: contents) whose children still show.
  function hidden(el) {
    // (Asked again for the same element within one call: a name from
    // content looks at the children the walk then reaches.)
    let h = hiddenOf.get(el);
    if (h === undefined) hiddenOf.set(el, h = hiddenNow(el));
    return h;
  }

  function hiddenNow(el) {
    if (el.getAttribute("aria-hidden") === "true") return "all";
    if (el.namespaceURI === SVG_NS && svgUnrendered(el)) return "all";
    if (el.checkVisibility({ visibilityProperty: true })) return "";
    const style = getComputedStyle(el);
    if (style.display === "contents") return "";
    // visibility: hidden hides the element, not a child that sets visible.
    if (style.display !== "none" && style.visibility !== "visible") return "self";
    return "all";
  }

  // SVG that is never drawn where it stands: what a <defs> holds (unless
  // a <use> draws it), clip paths and masks.
  function svgUnrendered(el) {
    const name = el.localName;
    if (name === "clipPath" || name === "mask" || name === "symbol" && !usedById(el)) return true;
    return el.parentElement?.localName === "defs" && name !== "style" && !usedById(el);
  }

  function usedById(el) {
    if (!el.id) return false;
    const ref = `#${CSS.escape(el.id)}`;
    return !!el.getRootNode().querySelector?.(`use[href="${ref}"], use[*|href="${ref}"]`);
  }

  // ---- what a person can see ----------------------------------------------
  //
  // `hidden()` above leaves out what the browser does not render at all.
  // Text can also be rendered and still be invisible to a person: fully
  // transparent, too small to read, the colour of its background, placed
  // outside the area any scrolling reaches, clipped to nothing, or covered
  // by an opaque element. That is how pages hide instructions meant for an
  // agent, so such text never reaches an answer.
  //
  // Deciding it takes styles and boxes, which cost microseconds per element,
  // so it is decided lazily: only for the lines an answer is about to show
  // (and their ancestors), memoised for one engine call (`fresh()`).

  let hiddenOf = new Map();     // element -> hidden() (this call)
  let transforms = new Map();   // element -> its text-transform (this call)
  let boxes = new Map();        // element -> where it may paint (this call)
  let paints = new Map();       // element -> "" or why its text cannot be seen
  let leftOut = new Set();      // what this call left out (one per block)
  let hits = new Map();         // element -> covered by something opaque
  let area = null;              // the page's scrollable area, page coordinates
  function fresh() {
    if (doubts.length) pending = doubts;
    doubts = [];
    unjudged = new Set();
    doubtfulOf = new Map();
    blends = new Map();
    hiddenOf = new Map();
    transforms = new Map();
    boxes = new Map();
    paints = new Map();
    backdrops = new Map();
    painters = new Map();
    hostPaints = new Map();
    colourMemo = new Map();
    textClips = new Map();
    views = new Map();
    hits = new Map();
    generatedOf = new Map();
    cuts = new Map();
    offCovers = new Map();
    absKids = new Map();
    breaksOf = new Map();
    pseudoOf = new Map();
    anywhere = null;
    rects = new Map();
    clickables = new Map();
    leftOut = new Set();
    closedHosts = new Set();
    area = null;
    settled = null;
    frameHides = new Map();
    surfaces = new Map();
    overs = new Set();
    claimed = new Map();
    claimedShadows = new Set();
    claimedRoot = null;
    axSpent = 0;
    axOf = new Map();
  }

  const EVERYWHERE = { l: -Infinity, t: -Infinity, r: Infinity, b: Infinity };
  // Glyphs drawn smaller than this (CSS px, once transforms and zoom are
  // applied) cannot be read: at 5 px a lower-case letter stands under
  // 3 px tall, fewer pixels than letters need to be told apart.
  const MIN_FONT = 5;
  // Text whose contrast with what is behind it is under this ratio
  // (WCAG's formula; #e6e6e6 on white is 1.26) is too faint to read.
  // WCAG asks 4.5 of body text and 3 of large text for comfort; pages
  // dim secondary and disabled text to 2-3 (Material's disabled text is
  // 38 % black, 2.6 on white), and a person still reads that. Under
  // 1.25 the letters barely stand out from the page: a watermark, not
  // a sentence.
  const FAINT = 1.25;
  // Screen-reader-only text may name a control, at most this long.
  const SR_NAME = 80;

  // The parent a node is painted in: through slots and shadow roots.
  function paintParent(n) {
    if (n.assignedSlot) return n.assignedSlot;
    const p = n.parentNode;
    if (!p) return null;
    return p.nodeType === 11 ? p.host || null : p.nodeType === 1 ? p : null;
  }

  // What a slot shows: the nodes assigned to it, else its own children
  // (the fallback content a component renders from an attribute, as
  // <slot name=label>Home airport</slot> for label="Home airport").
  function slotted(slot) {
    const fill = slot.assignedNodes();
    return fill.length ? fill : slot.childNodes;
  }

  // The children `n` is painted with: its open shadow root's, a slot's
  // (see slotted()), else its own.
  function paintedChildren(n) {
    return n.shadowRoot ? n.shadowRoot.childNodes : n.localName === "slot" ? slotted(n) : n.childNodes;
  }

  function intersect(a, b) {
    return { l: Math.max(a.l, b.l), t: Math.max(a.t, b.t), r: Math.min(a.r, b.r), b: Math.min(a.b, b.b) };
  }

  // Viewport size and scroll offsets, read once per call and document.
  let views = new Map();
  function view(win) {
    let v = views.get(win);
    if (!v) views.set(win, v = { x: win.scrollX, y: win.scrollY, w: win.innerWidth, h: win.innerHeight });
    return v;
  }

  function pageRect(r, win) {
    const v = view(win);
    return { l: r.left + v.x, t: r.top + v.y, r: r.right + v.x, b: r.bottom + v.y };
  }

  // A clip-path or (absolutely positioned) clip that leaves nothing.
  function clipsToNothing(s, cp) {
    if (cp && cp !== "none") {
      const inset = /^inset\(\s*([\d.]+)(%|px)/.exec(cp);
      if (inset && inset[2] === "%" && Number(inset[1]) >= 50) return true;
      if (/^circle\(\s*0(px|%)?[\s)]/.test(cp) || /^polygon\((?:\s*0(?:px|%)?\s+0(?:px|%)?\s*,?)+\)$/.test(cp)) return true;
    }
    if ((s.position === "absolute" || s.position === "fixed") && s.clip && s.clip.startsWith("rect(")) {
      const v = s.clip.slice(5, -1).split(/[\s,]+/).map(parseFloat);
      if (v.length === 4 && v.every(Number.isFinite) && (v[1] - v[3] <= 1 || v[2] - v[0] <= 1)) return true;
    }
    return false;
  }

  // The opacity a filter leaves (`opacity(0.5)`, `opacity(40%)`), or 1.
  function filterOpacity(f) {
    if (!f || f === "none" || !f.includes("opacity(")) return 1;
    let a = 1;
    for (const m of f.matchAll(/opacity\(\s*([\d.]+)(%?)\s*\)/g)) a *= Math.min(1, parseFloat(m[1]) / (m[2] ? 100 : 1));
    return a;
  }

  // A mask made of gradients whose every stop is transparent: nothing
  // of the element shows.
  function masksAll(m) {
    if (!m || m === "none") return false;
    const stops = gradientStops(m);
    return !!stops && stops.every((c) => c[3] < 0.05);
  }

  // Where `el` and what it holds may paint: `under`, the clip of its
  // ancestors that applies to it; `clip`, what applies to its in-flow
  // content; `clipAbs`, to content positioned against an ancestor above
  // it. `gone`: the element whose clip leaves nothing (its content too).
  function box(el) {
    let b = boxes.get(el);
    if (b) return b;
    const up = paintParent(el);
    const pb = up ? box(up) : null;
    const s = getComputedStyle(el);
    const pos = s.position;
    const under = pos === "fixed" ? EVERYWHERE : pb ? (pos === "absolute" ? pb.clipAbs : pb.clip) : EVERYWHERE;
    b = { style: s, display: s.display, under, clip: under, scrolls: !!pb?.scrolls, clipAbs: pos === "fixed" ? EVERYWHERE : pb ? pb.clipAbs : EVERYWHERE, gone: pb?.gone || null, fixed: pos === "fixed" || pos === "sticky" || !!pb?.fixed, pinned: pos === "fixed" || !!pb?.pinned, alpha: pb ? pb.alpha : 1, scaled: !!pb?.scaled, styled: !!pb?.styled, pos };
    if (!b.gone && s.display !== "contents") {
      // (Nearly) transparent, clipped to nothing, or filtered to nothing.
      // An animation or transition under way is judged by where it ends.
      // What is left of opacity down the tree multiplies (`alpha`): two
      // halves make a quarter, which paint() weighs against the backdrop.
      // (Each property is read once: a computed style's read is not free.)
      const opacity = settledOpacity(el) ?? parseFloat(s.opacity);
      const filter = s.filter, transform = s.transform, clipPath = s.clipPath, mask = s.maskImage;
      if (filter !== "none") b.alpha *= filterOpacity(filter);
      b.alpha *= opacity;
      // Transforms change the size glyphs are drawn at (zoom: glyphSize).
      if (transform !== "none") b.scaled = true;
      // Paint the rules do not model: pixels decide (see pixelDoubt();
      // blend modes are looked for there, for the few texts it asks about).
      if (!b.styled && (filter !== "none" || mask !== "none" || clipPath !== "none" ||
        (transform !== "none" && !TRANSLATE.test(transform)))) b.styled = true;
      if (opacity < 0.05 || b.alpha < 0.02 || clipsToNothing(s, clipPath) || /opacity\(0(\.0*)?%?\)/.test(filter) || masksAll(mask)) {
        b.gone = el;
      } else {
        // overflow: hidden or clip cuts what is outside the box off for
        // good; auto and scroll let a person scroll to it (kept).
        // (A list box scrolls its options, whatever its style says.)
        const list = el.localName === "select" || el.localName === "textarea";
        const cx = !list && (s.overflowX === "hidden" || s.overflowX === "clip");
        const cy = !list && (s.overflowY === "hidden" || s.overflowY === "clip");
        if (list || /auto|scroll/.test(s.overflowX + s.overflowY)) {
          // A scroll box: a person scrolls to what is right of or below
          // its box (not to what is left of or above it), and what an
          // outer box would cut off comes into that one as it scrolls.
          const r = pageRect(el.getBoundingClientRect(), el.ownerDocument.defaultView);
          b.clip = { l: r.l, t: r.t, r: Infinity, b: Infinity };
          b.scrolls = true;
        } else if (cx || cy) {
          const r = pageRect(el.getBoundingClientRect(), el.ownerDocument.defaultView);
          b.clip = intersect(under, { l: cx ? r.l : -Infinity, r: cx ? r.r : Infinity, t: cy ? r.t : -Infinity, b: cy ? r.b : Infinity });
        }
      }
      if (pos !== "static" || transform !== "none") b.clipAbs = b.clip;
    }
    boxes.set(el, b);
    return b;
  }

  // ---- animations: judged by where they end ----------------------------
  //
  // Text that a CSS animation or transition fades out a moment after the
  // page is read would be read mid-fade; text fading in would be left
  // out. So an element whose opacity a finite animation is changing is
  // judged by the opacity it ends at: a transition's last keyframe, or an
  // animation's when it fills forwards. (One that does not fill ends at
  // the element's own style, which cannot be read while it runs: judged as
  // it is now.) Infinite ones (spinners, pulses) are judged as they are.
  let settled = null;   // document -> Map(element -> opacity) (this call)
  function settledOpacity(el) {
    const doc = el.ownerDocument;
    if (!settled) settled = new Map();
    let m = settled.get(doc);
    if (m === null) return undefined;
    if (!m) {
      m = new Map();
      for (const a of doc.getAnimations?.() || []) {
        const fx = a.effect;
        const target = fx?.target;
        if (!target || fx.pseudoElement || a.playState === "finished" || a.playState === "idle") continue;
        const timing = fx.getComputedTiming();
        if (!Number.isFinite(timing.endTime)) continue;
        const transition = a.constructor?.name === "CSSTransition" || "transitionProperty" in a;
        if (!transition && timing.fill !== "forwards" && timing.fill !== "both") continue;
        let frames;
        try { frames = fx.getKeyframes(); } catch { continue; }
        const last = frames[frames.length - 1];
        if (!last || (last.computedOffset ?? last.offset) !== 1 || last.opacity === undefined || last.opacity === "") continue;
        const o = parseFloat(last.opacity);
        if (Number.isFinite(o)) m.set(target, o);
      }
      // (Most pages animate nothing: one lookup per element then.)
      if (!m.size) m = null;
      settled.set(doc, m);
      if (!m) return undefined;
    }
    return m.get(el);
  }

  // The colour behind `el`, as [r, g, b], or null when an image or
  // gradient is behind it (then colour says nothing).
  let backdrops = new Map();
  function backdrop(el) {
    const stops = backdrops_(el);
    return stops && stops.length === 1 ? stops[0] : null;
  }

  // The colours behind the text of `el`: one, the stops of a gradient
  // (stops that are see-through show what is behind them), or null when
  // an image is behind it (then colour says nothing). Only an ancestor
  // whose box is where the text is counts: a label positioned above a
  // slider's red thumb is not on the thumb.
  function backdrops_(el) {
    if (!el) return [[255, 255, 255, 1]];
    let c = backdrops.get(el);
    if (c !== undefined) return c;
    c = [[255, 255, 255, 1]];
    let x, y;
    for (let n = painter(el); n; n = painter(paintParent(n))) {
      // (Boxes are measured only for ancestors that paint a background,
      // and not for the root's, which paints the whole canvas.)
      if (n !== el && n !== n.ownerDocument.body && n !== n.ownerDocument.documentElement) {
        if (x === undefined) {
          const r = rectOf(el);
          x = (r.left + r.right) / 2;
          y = (r.top + r.bottom) / 2;
        }
        const nr = rectOf(n);
        if (nr.width > 0 && nr.height > 0 && (x < nr.left || x > nr.right || y < nr.top || y > nr.bottom)) continue;
      }
      c = colours(n);
      break;
    }
    backdrops.set(el, c);
    return c;
  }

  // The colours `n` paints its background with (see backdrops_), or
  // white for none.
  const WHITE = [[255, 255, 255, 1]];
  let colourMemo = new Map();
  function colours(n) {
    if (!n) return WHITE;
    let c = colourMemo.get(n);
    if (c !== undefined) return c;
    const bs = box(n).style;
    const own = bs.backgroundImage === "none" ? rgba(bs.backgroundColor) : null;
    const drawn = !(own && own[3] >= 0.5) && hostPaint(n);
    if (drawn) c = [drawn];
    else if (bs.backgroundImage === "none") c = [own];
    else {
      const stops = gradientStops(bs.backgroundImage);
      const under = stops && backdrop(paintParent(n));
      c = stops ? stops.map((s) => s[3] >= 0.5 ? s : under || WHITE[0]) : null;
    }
    colourMemo.set(n, c);
    return c;
  }

  // The nearest of `el` and its ancestors that paints a background (an
  // image, or a colour at least half opaque), memoised for the call.
  let painters = new Map();
  function painter(el) {
    if (!el) return null;
    let p = painters.get(el);
    if (p !== undefined) return p;
    const bs = box(el).style;
    const own = bs.backgroundImage === "none" ? rgba(bs.backgroundColor) : null;
    p = bs.backgroundImage !== "none" || (own && own[3] >= 0.5) || hostPaint(el) ? el : painter(paintParent(el));
    painters.set(el, p);
    return p;
  }

  // The opaque colour a component paints its whole box with through a
  // pseudo-element of its host (":host::before { inset: 0; position:
  // absolute; background: … }") or a layer of its shadow root, or null.
  // Looked at only for shadow hosts with no background of their own.
  let hostPaints = new Map();
  function hostPaint(el) {
    if (!el.shadowRoot) return null;
    let c = hostPaints.get(el);
    if (c !== undefined) return c;
    c = null;
    for (const which of ["::before", "::after"]) {
      const ps = getComputedStyle(el, which);
      if (ps.content === "none" || ps.position !== "absolute") continue;
      if (ps.top !== "0px" || ps.left !== "0px" || ps.right !== "0px" || ps.bottom !== "0px") continue;
      const bg = ps.backgroundImage === "none" ? rgba(ps.backgroundColor) : null;
      if (bg && bg[3] >= 0.5 && ps.opacity !== "0" && ps.visibility === "visible") { c = bg; break; }
    }
    // Or through a layer of its shadow root laid under the rest (Material
    // Web's "<div class=background>", absolutely positioned, inset 0).
    if (!c) {
      let i = 0;
      for (const k of el.shadowRoot.children) {
        if (i++ > 8) break;
        const ks = getComputedStyle(k);
        if (ks.position !== "absolute" || ks.top !== "0px" || ks.left !== "0px" || ks.right !== "0px" || ks.bottom !== "0px") continue;
        const bg = ks.backgroundImage === "none" ? rgba(ks.backgroundColor) : null;
        if (bg && bg[3] >= 0.5 && ks.opacity !== "0" && ks.visibility === "visible" && ks.display !== "none") { c = bg; break; }
      }
    }
    hostPaints.set(el, c);
    return c;
  }

  // The colour stops of a background made of gradients only, or null.
  function gradientStops(image) {
    if (/url\(|image-set|element\(|cross-fade/i.test(image) || !/gradient\(/.test(image)) return null;
    const stops = [...image.matchAll(/rgba?\([^)]*\)/g)].map((m) => rgba(m[0])).filter(Boolean);
    return stops.length ? stops : null;
  }

  // The colour text of `fill` shows as over `bg` with a blend mode, or
  // null for a mode this does not work out.
  function blend(mode, fill, bg) {
    const each = (f) => [0, 1, 2].map((i) => 255 * f(fill[i] / 255, bg[i] / 255));
    switch (mode) {
      case "normal": case "": case undefined: return fill;
      case "multiply": return each((a, b) => a * b);
      case "screen": return each((a, b) => a + b - a * b);
      case "darken": return each(Math.min);
      case "lighten": return each(Math.max);
      case "difference": return each((a, b) => Math.abs(a - b));
      case "exclusion": return each((a, b) => a + b - 2 * a * b);
      default: return null;
    }
  }

  // Whether the text of `el` is painted by a background clipped to text
  // (gradient headings set a transparent colour and do this).
  let textClips = new Map();
  function textClip(el) {
    if (!el) return false;
    let t = textClips.get(el);
    if (t !== undefined) return t;
    const s = box(el).style;
    t = s.backgroundClip === "text" || s.webkitBackgroundClip === "text" || textClip(paintParent(el));
    textClips.set(el, t);
    return t;
  }

  function rgba(css) {
    const m = /rgba?\(([^)]+)\)/.exec(css || "");
    if (!m) return null;
    const v = m[1].split(/[\s,/]+/).filter(Boolean).map(parseFloat);
    return [v[0], v[1], v[2], v.length > 3 ? v[3] : 1];
  }

  // WCAG's contrast ratio of two colours ([r, g, b]).
  function contrast(x, y) {
    const a = luminance(x), b = luminance(y);
    return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
  }

  // The colour `fill` shows as when laid over `bg` at `alpha`.
  function over(fill, bg, alpha) {
    return [0, 1, 2].map((i) => fill[i] * alpha + bg[i] * (1 - alpha));
  }

  function luminance([r, g, b]) {
    const f = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  }

  // Why the text `el` itself holds cannot be seen ("" when it can):
  // transparent, too small, or the colour of what is behind it.
  function paint(el) {
    let p = paints.get(el);
    if (p !== undefined) return p;
    p = "";
    const s = box(el).style;
    // SVG text is drawn by its fill and stroke, not by `color`.
    const svg = el.namespaceURI === SVG_NS;
    const fill = svg ? svgPaint(s) : rgba(s.webkitTextFillColor) || rgba(s.color);
    if (s.visibility !== "visible") p = "invisible";
    // Its content is not rendered at all (only its box is).
    else if (s.contentVisibility === "hidden") p = "content not rendered";
    else if (svg && !fill) p = "no paint";
    else if (glyphSize(el, s) < MIN_FONT) p = "too small";
    // Indented out of its own box (the old image-replacement trick).
    else if (parseFloat(s.textIndent) < 0 && -parseFloat(s.textIndent) >= rectOf(el).width) p = "indented out of its box";
    else if (fill) {
      // What is left of the text's colour once every opacity on the way
      // up is applied: text drawn at a tenth of its colour or less shows
      // nothing a person reads, whatever the colour.
      const alpha = fill[3] * box(el).alpha;
      if (alpha < 0.1) p = textClip(el) ? "" : fill[3] < 0.1 ? "transparent" : "too faint";
      else {
        // Against every colour behind it (a gradient's stops): too faint
        // against all of them is unseen. The glyphs show as their colour
        // (blended as the page blends it) laid over the backdrop at
        // `alpha`; below FAINT contrast no one reads them.
        // (The nearest background first; only when the text is faint
        // against it, whether the text is really over it.)
        let mode;
        const faint = (bgs) => !!bgs && bgs.every((bg) => {
          if (mode === undefined) mode = s.mixBlendMode;
          const blended = blend(mode, fill, bg);
          return !!blended && contrast(over(blended, bg, alpha), bg) < FAINT;
        });
        if (faint(colours(painter(el))) && faint(backdrops_(el))) p = alpha < 0.9 || fill[3] < 0.9 ? "too faint" : "same colour as its background";
      }
      // A shadow or an outline shows the letters anyway (a shadow thrown
      // a thousand pixels away shows them nowhere near).
      if (p && (nearShadow(s.textShadow) || parseFloat(s.webkitTextStrokeWidth) > 0)) p = "";
    }
    paints.set(el, p);
    return p;
  }

  const SVG_NS = "http://www.w3.org/2000/svg";

  // The size (CSS px) the glyphs of `el` are drawn at: its font size,
  // times what transforms and zoom on the way up scale it by (measured
  // as its drawn box against its laid-out one).
  function glyphSize(el, s) {
    // (The font size a style reads is before zoom on the way up, which
    // currentCSSZoom says, cheaper than reading every element's zoom.)
    const zoom = el.currentCSSZoom ?? 1;
    const size = parseFloat(s.fontSize) * zoom;
    if (!box(el).scaled || !(size >= MIN_FONT)) return size;
    const laid = el.offsetHeight;
    if (!(laid > 0)) return size;
    // Drawn against laid-out height: zoom times every transform's scale.
    return size * Math.min(1, rectOf(el).height / laid / zoom);
  }

  // Whether a text-shadow draws letters near the text: one of its shadows
  // is of a colour that shows and lies within SHADOW_REACH px.
  const SHADOW_REACH = 1000;
  function nearShadow(shadow) {
    if (!shadow || shadow === "none") return false;
    return splitList(shadow).some((one) => {
      const c = rgba(one);
      if (c && c[3] < 0.1) return false;
      const px = (one.replace(/rgba?\([^)]*\)/, "").match(/-?[\d.]+px/g) || []).map(parseFloat);
      return Math.abs(px[0] || 0) < SHADOW_REACH && Math.abs(px[1] || 0) < SHADOW_REACH;
    });
  }

  // What an SVG text's glyphs are painted with, as [r, g, b, a], or null
  // when neither its fill nor its stroke paints anything (fill="none",
  // fill-opacity="0", a stroke of no width…). A gradient or pattern
  // counts as opaque black: colour says nothing about it.
  function svgPaint(s) {
    const one = (paint, opacity, width = 1) => {
      if (!paint || paint === "none" || !(width > 0)) return null;
      const c = paint.startsWith("url(") ? [0, 0, 0, 1] : rgba(paint);
      if (!c) return null;
      const a = c[3] * parseFloat(opacity);
      return a >= 0.1 ? [c[0], c[1], c[2], a] : null;
    };
    return one(s.fill, s.fillOpacity) || one(s.stroke, s.strokeOpacity, parseFloat(s.strokeWidth));
  }

  // The area any scrolling reaches, in page coordinates.
  function scrollArea(doc) {
    if (area && area.doc === doc) return area.rect;
    const se = doc.scrollingElement || doc.documentElement;
    const win = doc.defaultView;
    const rect = { l: 0, t: 0, r: Math.max(se.scrollWidth, win.innerWidth), b: Math.max(se.scrollHeight, win.innerHeight) };
    area = { doc, rect };
    return rect;
  }

  // Whether `hit` (from hit-testing) hides what is under it: something
  // opaque that scrolls with the page (fixed and sticky bars move away
  // when a person scrolls, dialogs' backdrops are see-through).
  // (One that is transparent itself hides nothing: a native control a
  // component lays over the field it paints, see surfaceOf().)
  function opaqueCover(hit) {
    // A cover paints with what opacity it and its ancestors leave it: a
    // white box of opacity 0 shows what is under it.
    if (box(hit).gone || box(hit).alpha < 0.9) return false;
    const s = box(hit).style;
    if (!(s.backgroundImage !== "none" || (rgba(s.backgroundColor)?.[3] ?? 0) >= 0.9 ||
      /^(IMG|VIDEO|CANVAS|IFRAME|OBJECT|EMBED)$/.test(hit.tagName))) return false;
    return !box(hit).fixed && !hit.closest("dialog, [role=dialog], [aria-modal=true]");
  }

  // Whether `el` is painted below its ancestor `hit` (a negative z-index
  // on the way up puts it under the ancestor's background).
  function behind(el, hit) {
    for (let n = el; n && n !== hit; n = paintParent(n)) {
      const s = box(n).style;
      if (s.position !== "static" && parseInt(s.zIndex, 10) < 0) return true;
    }
    return false;
  }

  function within(a, b) {
    for (let n = a; n; n = paintParent(n)) if (n === b) return true;
    return false;
  }

  // The element behind `node` (text or element) when a person cannot see
  // it, else null. Counted once per such element in `leftOut`.
  // The element that paints `node` (text or element): itself or the
  // nearest ancestor with a box of its own (not display: contents).
  function painting(node) {
    let el = node.nodeType === 3 ? paintParent(node) : node;
    while (el && box(el).display === "contents") el = paintParent(el);
    return el;
  }

  function unseen(node, count = true) {
    const el = painting(node);
    if (!el) return null;
    let why = unseenWhy(node, el);
    // Text drawn in ways the rules cannot vouch for: what the pixels said.
    if (!why && node.nodeType === 3 && !naming && !quick) why = pixelDoubt(node, el);
    // A control operated through a surface drawn around it is seen there.
    if (why && node.nodeType === 1 && lastWhy !== "covered" && surfaceOf(el)) { why = null; lastWhy = ""; }
    // Nothing in a frame is seen when its frame element is not.
    if (!why) why = frameHiding(el.ownerDocument);
    if (why && count) leftOut.add(why);
    return why;
  }

  // The (same-origin) frame element a person cannot see that holds `doc`,
  // or null: a transparent, tiny, off-page, clipped or covered iframe
  // hides everything in it. (A frame of another origin is judged from
  // its parent: Rust reaches only the frames a snapshot showed.)
  let frameHides = new Map();   // document -> its hiding frame or null
  function frameHiding(doc) {
    // (The engine's own document is in no frame it can judge: the hot path.)
    if (doc === document) return null;
    let h = frameHides.get(doc);
    if (h !== undefined) return h;
    h = null;
    let owner = null;
    try { owner = doc.defaultView?.frameElement || null; } catch { /* another origin */ }
    if (owner) {
      const saved = lastWhy;
      h = hidden(owner) === "all" || unseen(owner, false) ? owner : null;
      lastWhy = saved;
    }
    frameHides.set(doc, h);
    return h;
  }

  // ---- controls behind a drawn surface ---------------------------------------
  //
  // Code editors (CodeMirror 5, Ace, Monaco) take typing through an input
  // they keep invisible (a textarea clipped to a 3x0 box, one of opacity 0,
  // an EditContext element of no width) behind the text they draw; custom
  // sliders keep a visually hidden <input type=range> under the thumb
  // they draw. A person operates the drawn surface, so the control is
  // seen there: its line stands where the surface is, with the proxy's
  // ref, and (for text) the surface's text as its value.
  //
  // The surface is the nearest ancestor, at most SURFACE_UP levels up
  // (wrappers under SURFACE_MIN px not counted), that a person can see,
  // that holds no other control, and whose visible part, not the hidden
  // branch with the proxy, takes the pointer at its centre. A control
  // merely covered by something else does not qualify, nor one whose
  // surface holds other controls (a honeypot field in a form), nor one
  // whose surface is a label a person presses (Material's palette toggle:
  // the label shown is for the other, hidden radio).
  //
  // A surface can also be under the control: component libraries lay a
  // real <input type=range>, checkbox or <select> of opacity 0 over the
  // track, box or field they paint (Shoelace, Material web), so the
  // pointer reaches the native control. Such a control (a native one:
  // an element with an ARIA role draws itself) is seen on the surface
  // when it takes the pointer at its centre and the surface paints
  // something where it lies, as a control does (a box no bigger than a
  // few of the control's): a transparent field over nothing stays out.
  // Actions aim at the control itself then (the API's surfaceOf says
  // null).
  const SURFACE_UP = 3, SURFACE_MIN = 8;
  const PROXY_ROLES = new Set(["textbox", "searchbox", "slider", "spinbutton", "combobox", "checkbox", "radio", "switch"]);
  const TEXT_PROXY_ROLES = new Set(["textbox", "searchbox"]);
  const PROXIES = "textarea, input:not([type=hidden]), select, [contenteditable], [role=textbox], [role=searchbox], " +
    "[role=slider], [role=spinbutton], [role=combobox], [role=checkbox], [role=radio], [role=switch]";
  const OPERABLE = "input:not([type=hidden]), textarea, select, button, a[href], [tabindex], [contenteditable], [role]";
  const STRUCTURE = "h1, h2, h3, h4, h5, h6, [role=heading], main, nav, article, section, header, footer, form, table";
  let surfaces = new Map();   // control -> its surface or null (this call)
  let overs = new Set();      // controls laid over their surface (this call)
  let claimed = new Map();    // surface -> the control drawn there (this call)
  let claimedRoot = null;     // the root `claimed` was found under

  function surfaceOf(el) {
    let s = surfaces.get(el);
    if (s !== undefined) return s;
    s = null;
    surfaces.set(el, s);
    const role = roleOf(el);
    if (PROXY_ROLES.has(role) && (INTERACTIVE.has(role) || focusable(el)) && !el.disabled) {
      let child = el;
      let gone = 0;         // ancestors passed in the control's transparent branch
      let faded = 0;        // of them, the transparent ones (not clipped away)
      let pointer;          // whether the control takes the pointer itself
      for (let a = paintParent(el), i = 0; a && i < SURFACE_UP; child = a, a = paintParent(a), i++) {
        if (box(a).display === "contents") { i--; continue; }
        // (A field that fades in on focus, its wrapper transparent at
        // rest: the surface is above that wrapper.)
        if (box(a).gone) {
          if (++gone > SURFACE_UP) break;
          // (A visually-hidden wrapper, clipped to nothing, hides the
          // control under what it draws, as a slider's thumb does: only a
          // transparent one lays it over what is painted.)
          if (box(a).gone === a && !clipsToNothing(box(a).style, box(a).style.clipPath)) faded++;
          i--;
          continue;
        }
        const r = a.getBoundingClientRect();
        if (r.width < SURFACE_MIN || r.height < SURFACE_MIN) continue;
        if (unseenWhy(a, a)) break;
        // A surface is a widget's, never a part of the page's structure
        // (its subtree stands behind one line).
        if (a.querySelector(STRUCTURE)) break;
        const others = [...a.querySelectorAll(OPERABLE)].filter((o) => o !== el && hidden(o) !== "all" &&
          (INTERACTIVE.has(roleOf(o)) || (focusable(o) && o.tabIndex >= 0)) &&
          o.getAttribute("aria-hidden") !== "true" && (o.offsetWidth > 0 || o.offsetHeight > 0) &&
          !(o.localName === "textarea" && o.readOnly && o.tabIndex < 0));
        // (Other controls a person sees there: a form's part, not this
        // widget's. Transparent ones may share a surface laid over:
        // the two handles of a range.)
        if (others.some((o) => !box(o).gone)) break;
        const shared = others.length > 0 || faded > 0;
        const v = view(a.ownerDocument.defaultView);
        const l = Math.max(r.left, 0), rr = Math.min(r.right, v.w), t = Math.max(r.top, 0), bb = Math.min(r.bottom, v.h);
        let ok;
        if (rr - l >= 1 && bb - t >= 1) {
          const root = a.getRootNode();
          const hit = root.elementFromPoint?.((l + rr) / 2, (t + bb) / 2);
          // (Light DOM slotted into `a` is hit as its shadow root's host.)
          const inside = !!hit && (within(hit, a) || hit === root.host && [...a.querySelectorAll("slot")].some((s) => s.assignedNodes().length));
          // (A label there is what a person presses: a label of a hidden
          // control is a clickable of its own, see clickable(), unless it
          // is this control's: a custom checkbox's box and text.)
          const label = hit?.closest("label");
          // (Once the control took the pointer itself, only a surface it
          // is laid over will do.)
          ok = !shared && !pointer && inside && !within(hit, child) && !(label && label.control !== el);
          if (!ok) {
            if (pointer === undefined) pointer = takesPointer(el, others);
            if (!pointer) break;
            ok = paintedUnder(el, a);
            if (ok) overs.add(el);
          }
        } else {
          // (Not hit-tested outside the viewport: a transparent field of
          // a size of its own needs a painted surface there too.)
          ok = shared || pointer ? paintedUnder(el, a) : drawnFor(el, a);
        }
        // (Laid over what an ancestor further up paints, a text field's
        // outline or a slider's track: looked for there.)
        if (!ok) { if (pointer || shared) continue; break; }
        s = a;
        break;
      }
    }
    surfaces.set(el, s);
    return s;
  }

  // Whether `el`, a native control of a size of its own, takes the
  // pointer at its centre (when that is in the viewport): it, not what it
  // covers, gets a person's press there. (Or one of `others` laid over
  // the same surface does: a range's handles take turns on top.)
  function takesPointer(el, others) {
    if (!/^(input|select|textarea)$/.test(el.localName)) return false;
    const r = rectOf(el);
    if (r.width < 2 || r.height < 2) return false;
    const v = view(el.ownerDocument.defaultView);
    const x = (r.left + r.right) / 2, y = (r.top + r.bottom) / 2;
    if (x < 0 || y < 0 || x >= v.w || y >= v.h) return true;
    const hit = el.getRootNode().elementFromPoint?.(x, y);
    return !!hit && (within(hit, el) || others.some((o) => within(hit, o)));
  }

  // Whether a control that takes no part in hit-testing here (outside the
  // viewport) may stand for surface `a`: a visually hidden one (a box of
  // a few pixels, or none), one with something painted under it, or a
  // text field under an editor's drawn text. (A transparent field over
  // nothing stays out wherever it is.)
  function drawnFor(el, a) {
    const r = rectOf(el);
    if (r.width < SURFACE_MIN || r.height < SURFACE_MIN) return true;
    if (!/^(input|select|textarea)$/.test(el.localName) || paintedUnder(el, a, Infinity)) return true;
    return TEXT_PROXY_ROLES.has(roleOf(el)) && !!surfaceText(a);
  }

  // Whether `a`, or an element in it other than `el`, paints a box that
  // lies under `el`, no bigger than `area` times it (PAINTED_AREA: a
  // track, thumb, box or field drawn for the control, not a page's
  // painted area a field merely stands in).
  const PAINTED_AREA = 4, PAINTED_MAX = 40;
  function paintedUnder(el, a, area = PAINTED_AREA) {
    const r = rectOf(el);
    const most = area * Math.max(r.width * r.height, 1);
    const under = (n) => {
      const b = rectOf(n);
      return b.width > 0 && b.height > 0 && b.width * b.height <= most &&
        b.left < r.right && b.right > r.left && b.top < r.bottom && b.bottom > r.top;
    };
    if (under(a) && paintsBox(a)) return true;
    let k = 0;
    for (const d of a.querySelectorAll("*")) {
      if (++k > PAINTED_MAX) break;
      if (d === el || el.contains(d) || !under(d) || !paintsBox(d)) continue;
      if (!box(d).gone && d.checkVisibility({ visibilityProperty: true })) return true;
    }
    return false;
  }

  // Whether `n` paints its box: a background, a border, a shadow, or an
  // image of its own.
  const SIDES = ["Top", "Right", "Bottom", "Left"];
  function paintsBox(n) {
    const s = box(n).style;
    if (s.backgroundImage !== "none" || (rgba(s.backgroundColor)?.[3] ?? 0) >= 0.1 || s.boxShadow !== "none") return true;
    if (/^(img|svg|canvas|video)$/.test(n.localName)) return true;
    return SIDES.some((side) => parseFloat(s[`border${side}Width`]) > 0 && s[`border${side}Style`] !== "none" &&
      (rgba(s[`border${side}Color`])?.[3] ?? 0) >= 0.1);
  }

  // A control a person cannot see where it is (unseen, or a box of no
  // size) but operates through a surface: that surface, else null.
  function proxySurface(el) {
    if (hidden(el) === "all" || el.getAttribute("aria-hidden") === "true") return null;
    const r = el.getBoundingClientRect();
    const invisible = !(r.width >= 1 && r.height >= 1) || unseenWhy(el, el);
    if (!invisible || lastWhy === "covered") return null;
    return surfaceOf(el);
  }

  // Finds the controls drawn on surfaces under `root` for this render.
  // Only a control with no size, a tiny box around it or no opacity can
  // be a proxy: that cheap look keeps the cost off big pages' forms.
  function claimSurfaces(root) {
    // (Once per engine call and root: a call can render several times.)
    if (claimedRoot === root) return;
    claimedRoot = root;
    claimed = new Map();
    claimedShadows = new Set();
    claimIn(root.nodeType === 1 ? root : document);
  }

  // (A surface two controls are drawn on, a range's two handles, is
  // claimed by neither: each shows where it is.)
  function claimIn(scope) {
    const shared = new Set();
    for (const el of scope.querySelectorAll(PROXIES)) {
      if (!mayBeProxy(el)) continue;
      const s = proxySurface(el);
      if (!s) continue;
      if (claimed.has(s)) shared.add(s);
      else claimed.set(s, el);
    }
    for (const s of shared) claimed.delete(s);
  }

  // The same for an open shadow root the walk enters (a query does not
  // reach into one), once per rendering's claims.
  let claimedShadows = new Set();
  function claimShadow(shadow) {
    if (claimedShadows.has(shadow)) return;
    claimedShadows.add(shadow);
    claimIn(shadow);
  }

  function mayBeProxy(el) {
    for (let a = el, i = 0; a && i <= 2; a = a.parentElement, i++) {
      const r = a.getBoundingClientRect();
      if (r.width < SURFACE_MIN || r.height < SURFACE_MIN) return true;
    }
    return parseFloat(getComputedStyle(el).opacity) < 0.05;
  }

  // The text a person sees on an editor's surface, line by line; line
  // numbers (digits the editor places in a gutter of their own, absolutely
  // positioned beside the lines) are not part of it.
  function surfaceText(surface) {
    const gutter = (n) => /^[\d\s]+$/.test(n.textContent) && box(n).style.position === "absolute";
    let out = "";
    const walk = (n) => {
      if (n.nodeType === 3) {
        // (Spaces between highlighted words are text nodes of their own.)
        if (!NON_SPACE.test(n.data)) out += " ";
        else if (!unseen(n, false)) out += n.data.replace(/\s+/g, " ");
        return;
      }
      if (n.nodeType !== 1 || SKIP.has(n.tagName)) return;
      // (Editors hide their drawn lines from screen readers, which read
      // the proxy instead: aria-hidden does not hide them from a person.)
      if (n.getAttribute("aria-hidden") === "true" ? !n.checkVisibility({ visibilityProperty: true }) : hidden(n) === "all") return;
      if (n.localName === "textarea" || n.localName === "input" || gutter(n)) return;
      const block = BLOCKS.has(n.tagName.toUpperCase());
      if (block && !out.endsWith("\n")) out += "\n";
      for (const c of paintedChildren(n)) walk(c);
      if (block && !out.endsWith("\n")) out += "\n";
    };
    for (const c of paintedChildren(surface)) walk(c);
    return out.split("\n").map((l) => l.trim()).filter(Boolean).join("\n");
  }

  // What a field holds as a person sees it: an editor's drawn text for a
  // text control behind a surface, else its value or its text.
  function fieldValue(el) {
    const sec = secretOf(el);
    if (sec) return sec;
    if (el.localName === "input" && el.type === "password") return el.value ? PASSWORD_MASK : "";
    if (TEXT_PROXY_ROLES.has(roleOf(el)) && !el.isContentEditable) {
      const s = proxySurface(el);
      // (A field laid over its surface shows what it holds.)
      if (s && !overs.has(el)) return surfaceText(s);
    }
    if ("value" in el && typeof el.value === "string" && (el.localName === "input" || el.localName === "textarea")) return el.value;
    return el.isContentEditable ? el.innerText : valueOf(el, roleOf(el));
  }

  // Set while lines left out before are looked at again (see changes()):
  // the cheap checks only.
  let quick = false;

  // Why the last unseen() said a node cannot be seen: "covered" (decided
  // by hit-testing, so only in the viewport), or "".
  let lastWhy = "";

  // An element's box, once per call.
  let rects = new Map();
  function rectOf(el) {
    let r = rects.get(el);
    if (!r) rects.set(el, r = el.getBoundingClientRect());
    return r;
  }

  // The box of a text node (its text's) or of an element.
  function nodeRect(node) {
    if (node.nodeType !== 3) return node.getBoundingClientRect();
    const range = node.ownerDocument.createRange();
    range.selectNodeContents(node);
    return range.getBoundingClientRect();
  }

  // The box of the text unseenWhy() looked at last (for pixelDoubt()).
  let textRect = null;
  function unseenWhy(node, el) {
    lastWhy = "";
    textRect = null;
    const b = box(el);
    if (b.gone) return b.gone;
    const doc = el.ownerDocument;
    const win = doc.defaultView;
    let vr;
    if (node.nodeType === 3 && (naming || quick)) {
      // Text inside a name whose element was checked already, or a line
      // looked at again: its style and its parent's box (a text range and
      // a hit test per word of every link would double a snapshot's time).
      if (paint(el)) return el;
      vr = rectOf(el);
      if (vr.width < 1 || vr.height < 1) return el;
    } else if (node.nodeType === 3) {
      vr = textRect = nodeRect(node);
      // Scaled to nothing, or a box of no size.
      if (vr.width < 1 || vr.height < 1) return el;
      if (paint(el)) return el;
    } else {
      vr = el.getBoundingClientRect();
      if (!(vr.width > 0 && vr.height > 0)) return null;
      // An image or control a pixel wide says nothing to a person.
      if ((vr.width < 2 || vr.height < 2) && /^(img|svg|canvas|video|input|select|textarea|button|iframe)$/.test(el.localName)) return el;
    }
    const r = pageRect(vr, win);
    // Outside what any scrolling reaches, or outside what clips it.
    const all = scrollArea(doc);
    if (!b.fixed && (r.r <= all.l || r.b <= all.t || (!b.scrolls && (r.l >= all.r || r.t >= all.b)))) return el;
    const v = view(win);
    // Fixed to the viewport and outside it: no scrolling brings it in.
    if (b.pinned && (vr.right <= 0 || vr.bottom <= 0 || vr.left >= v.w || vr.top >= v.h)) return el;
    const c = node.nodeType === 3 ? b.clip : b.under;
    const iw = Math.min(r.r, c.r) - Math.max(r.l, c.l), ih = Math.min(r.b, c.b) - Math.max(r.t, c.t);
    if (iw < 1 || ih < 1) return el;
    // Cut down to a window of a few pixels, which shows no readable text
    // (a narrow glyph that is not cut, like "i", is a few pixels wide).
    const part = iw < r.r - r.l - 0.5 || ih < r.b - r.t - 0.5;
    if (part && (iw < 4 || ih < 4)) return el;
    // Text its box shows only the start of (an ellipsis, a clamp, a box
    // shorter than its text): what is shown is read, the rest is not.
    if (part && node.nodeType === 3 && !naming && !quick) {
      const k = shownUpTo(node, c, win);
      if (k === 0) return el;
      if (k < node.data.length) { cuts.set(node, k); leftOut.add(node); }
    }
    // Covered: hit-test what is in the viewport, in the middle and at a
    // quarter from each side (a badge over a button's middle does not
    // hide the button); once per element: hit-testing a big page costs
    // tens of microseconds.
    if (naming || quick) return null;
    const l = Math.max(vr.left, 0), rr = Math.min(vr.right, v.w);
    const t = Math.max(vr.top, 0), bb = Math.min(vr.bottom, v.h);
    if (rr - l >= 1 && bb - t >= 1) {
      let covered = hits.get(el);
      if (covered === undefined) {
        const root = el.getRootNode();
        const coveredAt = (x, y) => {
          const hit = (root.elementFromPoint?.(x, y)) || doc.elementFromPoint(x, y);
          return !!hit && !within(hit, el) && (!within(el, hit) || behind(el, hit)) && opaqueCover(hit);
        };
        const y = (t + bb) / 2;
        covered = coveredAt((l + rr) / 2, y) && coveredAt(l + (rr - l) / 4, y) && coveredAt(rr - (rr - l) / 4, y);
        if (!covered && node.nodeType === 3) covered = pseudoCovers(el);
        hits.set(el, covered);
      }
      if (covered) { lastWhy = "covered"; return el; }
    } else if (coveredOffView(el, vr)) {
      lastWhy = "covered";
      return el;
    }
    return null;
  }

  // ---- pixels decide what the rules cannot vouch for --------------------------
  //
  // The rules above judge plain text well: a colour on a background, an
  // opacity, a size, a box. CSS has more ways to draw text than any list
  // of rules: filters, blend modes, masks, transforms, shadows, images
  // behind it, colours near the backdrop's. Text drawn so, in the top
  // document's viewport, is a doubt: Rust takes a screenshot of where the
  // doubts are, another with them painted transparent (a CSS custom
  // highlight: no layout change, no DOM mutation), and tells the engine
  // which changed legibly (see src/page/pixels.rs and judge()); the
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
        const pos = (boxes.get(c)?.style || getComputedStyle(c)).position;
        if (pos === "absolute") list.push(c);
        // (An image in a static wrapper of its own.)
        else if (pos === "static" && c.childElementCount === 1) {
          const g = c.firstElementChild;
          if ((boxes.get(g)?.style || getComputedStyle(g)).position === "absolute") list.push(g);
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

  // ---- names (accname, the steps pages use) -------------------------------

  const NON_SPACE = /\S/;

  // Whitespace other than single spaces (tabs, newlines, runs, NBSP…).
  const UNCLEAN = /[^\S ]| {2}/;
  function clean(s) {
    if (!s) return "";
    const t = s.trim();
    // Most names and texts are clean already: no new string for them.
    return UNCLEAN.test(t) ? t.replace(/\s+/g, " ") : t;
  }

  function hasOwnLabel(el) {
    return !!(clean(el.getAttribute("aria-label")) || el.hasAttribute("aria-labelledby") || el.title);
  }

  // (Ids do not cross a shadow root's boundary: an element inside one is
  // labelled by elements of the same root only, as Chromium does.)
  function byIds(el, attr) {
    const ids = (el.getAttribute(attr) || "").trim().split(/\s+/).filter(Boolean);
    const root = el.getRootNode();
    const shadow = root.nodeType === 11;
    return ids.map((id) => root.getElementById?.(id) || (shadow ? null : document.getElementById(id))).filter(Boolean);
  }

  // Text as CSS shows it: names follow text-transform, as Chromium's do.
  function transformed(el, text) {
    if (!NON_SPACE.test(text)) return text;
    let how = transforms.get(el);
    if (how === undefined) transforms.set(el, how = getComputedStyle(el).textTransform);
    switch (how) {
      case "uppercase": return text.toUpperCase();
      case "lowercase": return text.toLowerCase();
      case "capitalize": return text.replace(/(^|\s)(\S)/g, (m, a, b) => a + b.toUpperCase());
      default: return text;
    }
  }

  // The text an element contributes to a name computed from content.
  // (A slot is walked as what it shows: its assigned nodes, each named
  // as the element it is, or its fallback content.)
  function contentText(el, depth, skip) {
    if (depth > 12) return "";
    let out = "";
    const piece = (n) => {
      if (n.nodeType === 3) {
        if (!naming || !NON_SPACE.test(n.data) || !unseen(n, false)) out += transformed(el, n.data);
        return;
      }
      if (n.nodeType !== 1 || n === skip || SKIP.has(n.tagName)) return;
      if (hidden(n) === "all") return;
      const part = embeddedName(n, depth, skip);
      out += INLINE.has(n.tagName) ? part : ` ${part} `;
    };
    const fill = el.localName === "slot" ? el.assignedNodes() : null;
    if (fill && fill.length) for (const n of fill) piece(n);
    else for (let n = el.shadowRoot ? el.shadowRoot.firstChild : el.firstChild; n; n = n.nextSibling) piece(n);
    return out;
  }

  function embeddedName(el, depth, skip) {
    const label = clean(el.getAttribute("aria-label"));
    if (label) return label;
    switch (el.localName) {
      case "img": case "area": return el.getAttribute("alt") || el.title || "";
      case "input": {
        const role = implicitRole(el);
        if (role === "button") return buttonName(el);
        return role === "textbox" || role === "searchbox" || role === "combobox" || role === "spinbutton" ? el.value : "";
      }
      case "select": return el.selectedOptions?.[0]?.label || "";
      case "textarea": return el.value;
      case "svg": return el.querySelector(":scope > title")?.textContent || "";
    }
    return contentText(el, depth + 1, skip);
  }

  function buttonName(el) {
    const type = (el.getAttribute("type") || "").toLowerCase();
    if (type === "image") return el.getAttribute("alt") || el.value || el.title || "Submit";
    if (type === "file") return "Choose File";
    if (el.hasAttribute("value")) return el.value;
    return type === "submit" ? "Submit" : type === "reset" ? "Reset" : "";
  }

  function labelsText(el) {
    const labels = el.labels ? [...el.labels] : [];
    return labels.map((l) => contentText(l, 0, el)).join(" ");
  }

  function nativeName(el, role) {
    switch (el.localName) {
      case "input": {
        if (role === "button") return clean(labelsText(el)) || buttonName(el);
        return clean(labelsText(el)) || el.title || el.placeholder || clean(el.getAttribute("aria-placeholder"));
      }
      case "select": case "textarea": case "meter": case "progress": case "output":
        return clean(labelsText(el)) || el.title || el.placeholder || "";
      case "button": return clean(labelsText(el)) || "";
      case "img": case "area": return el.getAttribute("alt") || "";
      case "fieldset": return clean(el.querySelector(":scope > legend")?.textContent);
      case "figure": return clean(el.querySelector(":scope > figcaption")?.textContent);
      case "table": return clean(el.querySelector(":scope > caption")?.textContent);
      case "svg": return clean(el.querySelector(":scope > title")?.textContent);
      case "iframe": case "frame": return el.title || "";
      case "optgroup": return el.label || "";
      case "option": return el.label || "";
      case "dfn": return "";
    }
    return "";
  }

  function nameOf(el, role) {
    // (The name a custom element gives itself through its internals.)
    const ax = AX_INFO && internals(el);
    if (ax && ax.name && ax.role === role) return ax.name;
    if (el.hasAttribute("aria-labelledby")) {
      // (A part named twice, as when a control lists itself and its
      // group that share a label, is said once.)
      const parts = byIds(el, "aria-labelledby").map((r) => clean(clean(r.getAttribute("aria-label")) || contentText(r, 0)));
      const n = clean([...new Set(parts)].join(" "));
      if (n) return n;
    }
    const label = clean(el.getAttribute("aria-label"));
    if (label) return label;
    const native = clean(nativeName(el, role));
    if (native) return native;
    if (NAME_FROM_CONTENT.has(role) || el.localName === "dfn") {
      const c = clean(ownContent(el, role));
      if (c) return c;
    }
    return clean(el.title) || hostLabel(el, role);
  }

  // A form control inside a component's shadow root, unnamed there, takes
  // the name of the <label> that labels its host (a form-associated custom
  // element, like Material's md-checkbox inside "<label>… Travel
  // insurance</label>"), as Chromium names the host.
  const FORM_ROLES = new Set(["checkbox", "radio", "switch", "textbox", "searchbox", "slider", "spinbutton", "combobox"]);
  function hostLabel(el, role) {
    if (!FORM_ROLES.has(role)) return "";
    const root = el.getRootNode();
    const host = root && root.host;
    if (!host) return "";
    let label = host.closest("label");
    if (!label && host.id) label = host.getRootNode().querySelector?.(`label[for="${CSS.escape(host.id)}"]`);
    return label ? clean(contentText(label, 0, host)) : "";
  }

  // The text a name from content takes: a tree item's leaves out the
  // group of items nested in it (their names are their own), as
  // Chromium's does.
  function ownContent(el, role) {
    return contentText(el, 0, role === "treeitem" ? el.querySelector(":scope > [role=group], :scope > ul, :scope > ol") : undefined);
  }

  // Set while a name is computed for an answer: text a person cannot see
  // is left out of it.
  let naming = false;

  // The name `el` takes from the elements its aria-labelledby points at,
  // from what a person sees of them only (`seen`), and the first of them
  // whose words were left out for that (`dropped`). (An accessible name
  // takes hidden elements' text too: a page can name a visible button
  // with hidden instructions so.)
  function labelledSeen(el) {
    const parts = [];
    let dropped = null;
    const was = naming;
    naming = true;
    try {
      for (const r of byIds(el, "aria-labelledby")) {
        const label = clean(r.getAttribute("aria-label"));
        const all = label || clean(contentTextAll(r));
        const seen = label ? (hidden(r) === "all" || unseen(r, false) ? "" : label) : clean(contentText(r, 0));
        if (seen) parts.push(seen);
        if (all && seen !== all && !dropped) dropped = r;
      }
    } finally { naming = was; }
    return { seen: clean([...new Set(parts)].join(" ")), dropped };
  }

  // contentText with every node counted, seen or not.
  function contentTextAll(el) {
    const was = naming;
    naming = false;
    try { return contentText(el, 0); } finally { naming = was; }
  }

  // The name an answer shows for `el`: a name from content keeps only what
  // a person can see; what only a screen reader reads (an icon button's
  // hidden label, aria-label, title) may name it, cut to SR_NAME.
  function seenName(el, role, name) {
    if (!name) return name;
    const short = (n) => n.length > SR_NAME ? n.slice(0, SR_NAME) + "…" : n;
    if (el.hasAttribute("aria-labelledby")) {
      const { seen, dropped } = labelledSeen(el);
      if (seen) return cut(seen);
      if (dropped) {
        // Every element it names itself by is hidden: its own visible
        // text names it; an icon-only control keeps what a screen reader
        // says, short (as an icon button's hidden label does).
        leftOut.add(dropped);
        naming = true;
        let own;
        try { own = clean(ownContent(el, role)) || clean(nativeName(el, role)); } finally { naming = false; }
        return own ? cut(own) : NAME_FROM_CONTENT.has(role) ? short(name) : "";
      }
    }
    if (el.hasAttribute("aria-labelledby") || clean(el.getAttribute("aria-label")) || internals(el)?.name === name) return short(name);
    if ((NAME_FROM_CONTENT.has(role) || el.localName === "dfn") && !clean(nativeName(el, role))) {
      naming = true;
      let v;
      try { v = clean(ownContent(el, role)); } finally { naming = false; }
      return v ? cut(v) : short(name);
    }
    if (!clean(nativeName(el, role)) && name === clean(el.title)) return short(name);
    return name;
  }

  // ---- states and values --------------------------------------------------

  function states(el, role) {
    const out = [];
    const aria = (a) => el.getAttribute(a);
    const checked = "checked" in el && (el.type === "checkbox" || el.type === "radio")
      ? (el.indeterminate ? "mixed" : el.checked ? "true" : "false")
      : aria("aria-checked");
    if (checked === "true") out.push("[checked]");
    else if (checked === "mixed") out.push("[checked=mixed]");
    // (Also by a disabled fieldset, an ancestor's aria-disabled, inert.)
    if (el.disabled === true || aria("aria-disabled") === "true" || el.matches(":disabled") ||
      (INTERACTIVE.has(role) && disabled(el))) out.push("[disabled]");
    const expanded = el.localName === "summary" ? String(!!el.parentElement?.open) : aria("aria-expanded");
    if (expanded === "true") out.push("[expanded]");
    if (role === "option" ? el.selected === true || aria("aria-selected") === "true" : aria("aria-selected") === "true") out.push("[selected]");
    if (el.required === true || aria("aria-required") === "true") out.push("[required]");
    if (((el.localName === "textarea" || el.localName === "input") && el.readOnly) || aria("aria-readonly") === "true" ||
      (el.localName !== "input" && el.localName !== "textarea" && aria("contenteditable") === "false" && (role === "textbox" || role === "searchbox"))) out.push("[readonly]");
    if (aria("aria-pressed") === "true") out.push("[pressed]");
    if (role === "heading") {
      const level = Number(aria("aria-level")) || Number(el.localName.slice(1)) || 2;
      out.unshift(`[level=${level}]`);
    }
    return out;
  }

  // Whether a person's press or typing does nothing on `el`: disabled
  // itself or by its fieldset, under aria-disabled, or inside inert.
  function disabled(el) {
    return el.matches(":disabled") || !!el.closest("[aria-disabled=true], [inert]");
  }

  // Fields that received a named secret (serve --secrets): read as
  // `<secret NAME>` while they hold the value typed. A password field's
  // value is never read (its length neither: a fixed mask).
  const secretMarks = new WeakMap();   // element -> {name, value} (kept across calls)
  function secretOf(el) {
    const m = secretMarks.get(el);
    return m && ("value" in el ? el.value : el.innerText) === m.value ? `<secret ${m.name}>` : null;
  }
  const PASSWORD_MASK = "••••••••";

  function valueOf(el, role) {
    if (el.localName === "select" && role === "combobox") return el.selectedOptions?.[0]?.label || "";
    const sec = secretOf(el);
    if (sec) return sec;
    if (el.localName === "textarea" || el.localName === "input") {
      const t = el.type;
      if (t === "checkbox" || t === "radio" || t === "button" || t === "submit" || t === "reset" || t === "image" || t === "file" || t === "hidden") return "";
      if (t === "password") return el.value ? PASSWORD_MASK : "";
      return el.value;
    }
    if (el.isContentEditable && el.contentEditable === "true") return el.innerText;
    // A text box drawn as a region that is not editable now (read-only).
    if ((role === "textbox" || role === "searchbox") && el.hasAttribute("contenteditable")) return el.innerText;
    const now = el.getAttribute("aria-valuetext") || el.getAttribute("aria-valuenow");
    return now || "";
  }

  // ---- controls without a role ------------------------------------------------

  // How many elements a person acts on the walk is inside (what is in a
  // link or button is part of it, not a control of its own).
  let inControl = 0;

  const PLAIN = new Set(["generic", "none", "presentation", "LabelText", "image", "listitem", "paragraph"]);

  // Whether `el`, whose role says nothing, is something a person clicks
  // ("clickable") or drags ("draggable"), else "": an onclick attribute,
  // a label of a control the page hides (custom checkboxes and menu
  // toggles) and does not draw on a surface of its own (see surfaceOf),
  // draggable="true" (a sortable list's item), or the outermost element
  // under a pointer cursor, or a grab or move one (a drag handle).
  // (Listeners added from script cannot be seen from here; the cursor is
  // how pages tell people what clicks.)
  const GRAB = /^(-webkit-)?grab$|^move$/;
  function clickable(el, role) {
    if (el.localName === "body" || el.localName === "html" || !PLAIN.has(role)) return "";
    // (Images and links drag by default: only the attribute says so.)
    if (el.getAttribute("draggable") === "true") return "draggable";
    if (el.hasAttribute("onclick")) return "clickable";
    if (el.localName === "label") {
      const c = el.control;
      if (c && !c.checkVisibility({ visibilityProperty: true, opacityProperty: true }) && !proxySurface(c)) return "clickable";
    }
    // Big containers with a pointer cursor (a whole card) act through the
    // links and buttons in them.
    if (el.childElementCount > 4) return "";
    const cursor = getComputedStyle(el).cursor;
    const kind = cursor === "pointer" ? "clickable" : GRAB.test(cursor) ? "draggable" : "";
    if (!kind) return "";
    const up = paintParent(el);
    return !up || getComputedStyle(up).cursor !== cursor ? kind : "";
  }

  // ---- parts of widgets ---------------------------------------------------------

  // Parts of composite widgets a person operates whatever their tabindex
  // (a roving tabindex leaves all items but one at -1): a small element
  // with a tabindex, grid cells and the cells of a grid or treegrid (not
  // its headers: a calendar's weekdays are read, not pressed), sortable
  // column headers, selectable rows. Attributes only: asked of every
  // line a walk makes.
  const GRIDS = "[role=grid], [role=treegrid]";
  const GRID_PARTS = new Set(["gridcell", "cell", "columnheader", "row"]);
  function widgetPart(el, role) {
    switch (role) {
      case "gridcell": return true;
      case "cell": return tabbed(el, role) || !!el.closest(GRIDS);
      case "columnheader": return tabbed(el, role) || el.hasAttribute("aria-sort");
      case "row": return el.hasAttribute("tabindex") || el.hasAttribute("aria-selected") || el.hasAttribute("aria-checked");
      default: return tabbed(el, role);
    }
  }

  // Whether `el` has a tabindex (-1: the focusable ones have their refs)
  // as an item a person operates: a small element holding no control,
  // not a landmark or heading. Those, big containers and wrappers of a
  // control with tabindex=-1 are where a script moves the focus to (a
  // skip link's target, a page's main content after a route change, an
  // editor's scroller), which a person does not operate.
  const FOCUS_TARGETS = new Set([...LANDMARKS, "heading", "alertdialog", "document", "application", "tabpanel", "feed"]);
  function tabbed(el, role) {
    return el.hasAttribute("tabindex") && el.childElementCount <= 4 && !FOCUS_TARGETS.has(role) && !el.querySelector(CONTROLS);
  }

  // Such an item whose role says nothing (a date picker's day, a chip)
  // gets a line of its own when it says something.
  function rovingLeaf(el, role) {
    return tabbed(el, role) && NON_SPACE.test(el.textContent);
  }

  // Table parts and headings a person clicks (a date picker's <td>, a
  // data grid's sortable <div role=columnheader>): an onclick attribute,
  // or a pointer cursor of their own. A row with one stands for its
  // cells; cells under a pointer that the whole table has are each one.
  // (A style read: asked of the lines an answer shows only.)
  const POINTER_PARTS = new Set(["cell", "gridcell", "columnheader", "rowheader", "row", "heading"]);
  function pointerPart(el, role) {
    if (!POINTER_PARTS.has(role)) return false;
    if (el.hasAttribute("onclick")) return true;
    if (getComputedStyle(el).cursor !== "pointer") return false;
    if (role === "row" || role === "heading") {
      const up = paintParent(el);
      return !up || getComputedStyle(up).cursor !== "pointer";
    }
    const row = el.parentElement && roleOf(el.parentElement) === "row" ? el.parentElement : ancestorWith(el, ROW);
    return !row || !pointerPart(row, "row");
  }

  const CONTROLS = "a[href], button, input, select, textarea, summary, [tabindex], [contenteditable], " +
    "[role=button], [role=link], [role=checkbox], [role=tab], [role=menuitem], [role=option], [role=switch], " +
    "[role=gridcell], [role=treeitem], [role=radio], [role=menuitemcheckbox], [role=menuitemradio]";

  // The clickable element (see clickable()) a text or image line of a
  // rendering made without that check belongs to: itself or one of its
  // three nearest ancestors; null when there is none, it is inside a
  // control, or an earlier line stood for it already (`done`).
  let clickables = new Map();   // element -> clickable() (this call)
  function clickableAround(node, done) {
    let el = node.nodeType === 3 ? paintParent(node) : node;
    for (let i = 0; el && i < 4; i++, el = paintParent(el)) {
      if (done.has(el)) return null;
      let c = clickables.get(el);
      if (c === undefined) clickables.set(el, c = clickable(el, roleOf(el)));
      // (Inside a link or button it is part of that control.)
      if (c) return el.closest(CONTROLS) ? null : el;
    }
    return null;
  }

  // The best name for a clickable element with none of its own: what it
  // says, an icon's title or alt text, its title; else a guess from the
  // id or class of it (or of the control it labels), said to be one.
  function clickName(el) {
    const said = clean(contentText(el, 0));
    if (said) return said;
    for (const d of el.querySelectorAll("svg title, img[alt], [aria-label], [title]")) {
      const n = d.localName === "title" ? d.textContent : d.getAttribute("alt") || d.getAttribute("aria-label") || d.getAttribute("title");
      if (clean(n)) return clean(n);
    }
    if (clean(el.title)) return clean(el.title);
    const from = el.control || el;
    // (The class attribute: an SVG element's className is an object.)
    const word = (from.id || from.getAttribute("name") || from.getAttribute("class") || "").split(/\s+/)[0];
    const guess = clean(word.replace(/[_-]+/g, " ").replace(/([a-z])([A-Z])/g, "$1 $2"));
    return guess ? `${guess} (name guessed from its ${from.id ? "id" : from.getAttribute("name") ? "name" : "class"})` : "";
  }

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

  function quote(s) {
    return `"${s.replace(/"/g, '\\"')}"`;
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

  // `see`: leave out what a person cannot see as lines are made (budgeted
  // walks); the skeleton's big walk leaves it to the lines it shows.
  function render(root, budget, count = true, recs = null, see = true, ctx = null) {
    inControl = 0;
    lastSkeleton = null;
    claimSurfaces(root);
    const lines = [];
    let used = 0;
    let full = false;
    const frames = [];
    // A node whose walk the budget stopped: elements from it on are counted.
    let stoppedAt = null;

    function emit(line, depth, role, node, name, pn, tn) {
      if (used + line.length + 1 > budget) {
        full = true;
        return false;
      }
      lines.push(line);
      if (recs) recs.push({ depth, role, node, name, pn, tn });
      used += line.length + 1;
      return true;
    }

    // (`ownTextHidden`: the parent's own text is invisible, not that of
    // a child element that sets visibility: visible.)
    function walkChildren(parent, depth, parentName, textIsName, ownTextHidden = false) {
      // An open shadow root is what the page shows in place of the light
      // DOM (slots bring light children back in).
      const shadow = parent.shadowRoot;
      if (shadow) { watch(shadow); claimShadow(shadow); }
      // Text its stylesheet generates stands before and after what it
      // holds (not when its text is its name: the name says it).
      const gen = !textIsName && !ownTextHidden && parent.nodeType === 1 && (frameDepth > 0 || wordsAnywhere()) ? generated(parent) : null;
      if (gen?.before) emitGenerated(gen.before, parent, depth, parentName);
      const first = shadow ? shadow.firstChild : parent.firstChild;
      for (let n = first; n && !full; n = n.nextSibling) {
        if (ownTextHidden && n.nodeType === 3) continue;
        walk(n, depth, parentName, textIsName);
      }
      if (gen?.after && !full) emitGenerated(gen.after, parent, depth, parentName);
    }

    function emitGenerated(words, el, depth, parentName) {
      words = words.trim();
      if (words === parentName) return;
      if (!emit(`${"  ".repeat(depth)}- text: ${cut(words)}`, depth, "text", el, undefined, parentName, false)) stoppedAt = el;
    }

    function walk(node, depth, parentName, textIsName) {
      if (full) return;
      if (node.nodeType === 3) {
        // Most text nodes of a big page are the blanks between tags.
        if (textIsName || !NON_SPACE.test(node.data)) return;
        const whole = clean(node.data);
        if (whole === parentName || (see && unseen(node))) return;
        // (Line breaks a person sees make lines of their own.)
        if (!(node.data.includes("\n") && keepsBreaks(node.parentElement)) && !cuts.has(node)) {
          if (!emit(`${"  ".repeat(depth)}- text: ${cut(whole)}`, depth, "text", node, undefined, parentName, textIsName)) stoppedAt = node;
          return;
        }
        for (const t of textLines(node)) {
          if (!emit(`${"  ".repeat(depth)}- text: ${cut(t)}`, depth, "text", node, undefined, parentName, textIsName)) { stoppedAt = node; break; }
        }
        return;
      }
      if (node.nodeType !== 1) return;
      const el = node;
      if (SKIP.has(el.tagName)) return;
      if (el.localName === "slot") {
        const fill = el.assignedNodes();
        if (fill.length) for (const a of fill) walk(a, depth, parentName, textIsName);
        else walkChildren(el, depth, parentName, textIsName);
        return;
      }
      const h = hidden(el);
      if (h === "all") return;
      // Its own text is invisible too; a child that sets visible shows.
      if (h === "self") { walkChildren(el, depth, parentName, textIsName, true); return; }
      if (el.localName.includes("-") && !el.shadowRoot && closedHost(el)) closedHosts.add(el);
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
        let line = `${"  ".repeat(depth)}- ${role}`;
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
      let name = cut(nameOf(el, role));
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
      if ((role === "none" || role === "presentation" || TRANSPARENT.has(role)) && !name && !isFocusable && !(part && !inControl && rovingLeaf(el, role))) {
        walkChildren(el, depth, parentName, textIsName);
        return;
      }
      if (see) {
        if (unseen(el)) return;
        name = seenName(el, role, name);
      }
      let line = `${"  ".repeat(depth)}- ${role}`;
      if (name) line += ` ${quote(name)}`;
      const st = states(el, role);
      if (st.length) line += " " + st.join(" ");
      const acts = INTERACTIVE.has(role) || isFocusable || !!click || part || (see && !inControl && pointerPart(el, role));
      if (acts) line += ` [ref=${refFor(el)}]`;
      const value = clean(valueOf(el, role));
      if (value && value !== name) line += `: ${cut(value)}`;
      if (!emit(line, depth, role, el, name, parentName, textIsName)) { stoppedAt = el; return; }

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
      if (el.localName === "select") {
        for (const o of el.querySelectorAll("option")) {
          if (full) continue;
          if (o.hidden || getComputedStyle(o).display === "none") { if (see) leftOut.add(o); continue; }
          let opt = `${"  ".repeat(depth + 1)}- option ${quote(cut(nameOf(o, "option")))}`;
          const ost = states(o, "option");
          if (ost.length) opt += " " + ost.join(" ");
          if (!emit(`${opt} [ref=${refFor(o)}]`, depth + 1, "option", o)) stoppedAt = o;
        }
        return;
      }
      if (el.localName === "textarea" || el.localName === "input") return;
      // An editable region (CodeMirror 6, a rich text box) shows its text
      // as its value, once.
      if (value && el.hasAttribute("contenteditable") && (role === "textbox" || role === "searchbox")) return;
      const nameIsText = (NAME_FROM_CONTENT.has(role) || click) && !!name && !el.hasAttribute("aria-label") && !el.hasAttribute("aria-labelledby") && !(AX_INFO && internals(el)?.name);
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
    if (k === undefined) breaksOf.set(el, k = BROKEN.test((boxes.get(el)?.style || getComputedStyle(el)).whiteSpace));
    return k;
  }

  // Elements with refs' kinds that follow `node` in the document (inside
  // `root`): what a cut outline leaves out, counted natively.
  function countAfter(node, root) {
    if (!node) return 0;
    const scope = root === document.documentElement || root === document.body ? document : root;
    let n = 0;
    for (const el of scope.querySelectorAll("a[href], button, input:not([type=hidden]), select, textarea, [role], [tabindex], summary")) {
      if (node.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING) n++;
    }
    return n;
  }

  // ---- skeletons ------------------------------------------------------------------

  // A big page's default answer is its skeleton: the parts a model needs to
  // act at once stay whole, the rest folds into one line per run that says
  // what it holds and which ref expands it (browser_snapshot target=…).
  //
  // Kept whole wherever they are: landmarks, headings, alerts, frames, form
  // controls (and buttons in forms) except those in the rows of a long
  // table, which fold with their rows. Kept whole: every line the viewport
  // shows (what a person sees first). Kept for context: the ancestors of
  // all of those.
  // Everything else, per run of siblings between kept lines: short runs as
  // they are; a long run of look-alike siblings (list items, table rows) as
  // its first two and a count; any other run as its first words and a
  // count of what it holds.
  const FORM_CONTROLS = new Set(["textbox", "searchbox", "combobox", "checkbox", "radio",
    "switch", "slider", "spinbutton", "listbox", "ColorWell", "Date", "DateTime", "InputTime"]);
  const KEPT_ROLES = new Set([...LANDMARKS, "heading", "alert", "alertdialog", "status"]);
  // A run of at most this many lines is shown as it is.
  const SHORT_RUN = 4;
  // Look-alike siblings: this many or more fold, after the first two.
  const LIKE_RUN = 5;
  const SHOWN_OF_LIKE_RUN = 2;
  const EXCERPT = 80;

  // Where `node` is against the viewport: VIEW_IN, VIEW_OUT (a box beside
  // or above it), VIEW_BELOW (a box wholly below it), VIEW_NO_BOX.
  const VIEW_IN = 0, VIEW_OUT = 1, VIEW_BELOW = 2, VIEW_NO_BOX = 3;
  function placeOf(node) {
    const r = nodeRect(node);
    const win = node.ownerDocument.defaultView;
    if (!(r.width > 0 && r.height > 0)) return VIEW_NO_BOX;
    if (r.top >= win.innerHeight) return VIEW_BELOW;
    return r.bottom > 0 && r.right > 0 && r.left < win.innerWidth ? VIEW_IN : VIEW_OUT;
  }

  // Siblings in a row wholly below the viewport after which the rest of
  // a list is taken to be below too (normal flow goes down the page).
  const BELOW_RUN = 12;

  function keptAnywhere(line, role, node) {
    if (KEPT_ROLES.has(role) || FORM_CONTROLS.has(role) || line.includes(" [frame=")) return true;
    return role === "button" && !!(node.form || node.closest?.("form"));
  }

  // What lines from..to-1 hold, counted: "23 links, 2 buttons, 14 lines of text".
  // (`skip`: a line already shown.)
  function tally(lines, recs, from, to, skip = -1) {
    let links = 0, buttons = 0, controls = 0, texts = 0, other = 0;
    for (let i = from; i < to; i++) {
      if (i === skip) continue;
      const role = recs[i].role;
      if (role === "link") links++;
      else if (role === "button") buttons++;
      else if (lines[i].includes("[ref=")) controls++;
      else if (role === "text") texts++;
      else other++;
    }
    const parts = [];
    const say = (k, one, many) => { if (k) parts.push(`${k} ${k === 1 ? one : many}`); };
    say(links, "link", "links");
    say(buttons, "button", "buttons");
    say(controls, "other control", "other controls");
    say(texts, "line of text", "lines of text");
    if (!parts.length) say(other, "line", "lines");
    return parts.join(", ");
  }

  // The innermost element holding both `a` and `b` (crossing shadow roots),
  // at most `limit`: what expands a folded run with the least around it.
  function commonAncestor(a, b, limit) {
    const up = (n) => n.parentNode?.nodeType === 11 ? n.parentNode.host : n.parentNode;
    const seen = new Set();
    for (let n = a; n; n = up(n)) {
      seen.add(n);
      if (n === limit) break;
    }
    for (let n = b; n; n = up(n)) {
      if (seen.has(n)) return n.nodeType === 1 && n !== document.documentElement ? n : limit;
    }
    return limit;
  }

  // The skeleton of a rendering (lines + recs); `folds` counts folded runs.
  function skeleton(lines, recs) {
    const n = lines.length;
    // Lines are in document order with depths: the parent of a line is the
    // nearest line above it one level up (-1: the page itself).
    const parent = new Int32Array(n);
    const open = [];
    for (let i = 0; i < n; i++) {
      const d = recs[i].depth;
      open.length = d;
      parent[i] = d > 0 && open[d - 1] !== undefined ? open[d - 1] : -1;
      open[d] = i;
    }
    // end[i]: the line after i's subtree.
    const end = new Int32Array(n);
    for (let i = n - 1; i >= 0; i--) {
      if (end[i] < i + 1) end[i] = i + 1;
      const p = parent[i];
      if (p >= 0 && end[p] < end[i]) end[p] = end[i];
    }
    const kids = Array.from({ length: n + 1 }, () => []);
    for (let i = 0; i < n; i++) kids[parent[i] < 0 ? n : parent[i]].push(i);
    // A control in a row of a long table (a row's selection checkbox) is
    // row content: it folds with its row like the row's links.
    const manyRows = new Map();
    function inLongTable(i) {
      let p = parent[i];
      while (p >= 0 && recs[p].role !== "row") p = parent[p];
      if (p < 0) return false;
      const table = parent[p];
      if (!manyRows.has(table)) {
        const rows = kids[table < 0 ? n : table].filter((c) => recs[c].role === "row").length;
        manyRows.set(table, rows >= LIKE_RUN);
      }
      return manyRows.get(table);
    }
    const keep = new Uint8Array(n);
    const mark = (i) => { for (let j = i; j >= 0 && !keep[j]; j = parent[j]) keep[j] = 1; };
    for (let i = 0; i < n; i++) {
      const { role, node } = recs[i];
      if (keptAnywhere(lines[i], role, node) && !(FORM_CONTROLS.has(role) && inLongTable(i))) mark(i);
    }
    // What the viewport shows, without measuring every line of a long
    // page: a box wholly above or below the viewport is not entered (what
    // it holds is there too), and a list stops being measured after a run
    // of siblings below it. Top-level lines are all measured: fixed
    // banners and dialogs live there. (Boxless lines are entered.)
    function scanView(p) {
      let below = 0;
      for (const c of kids[p < 0 ? n : p]) {
        if (p >= 0 && below >= BELOW_RUN) return;
        const place = placeOf(recs[c].node);
        below = place === VIEW_BELOW ? below + 1 : 0;
        if (place === VIEW_IN) mark(c);
        if (end[c] > c + 1 && (place === VIEW_IN || place === VIEW_NO_BOX)) scanView(c);
      }
    }
    scanView(-1);

    const out = [];
    let folds = 0;
    const signature = (i) => recs[i].role + "/" + (end[i] > i + 1 ? recs[i + 1].role : "");
    // `out` holds line numbers (shown as they are, if a person can see
    // them) and made lines ({text, depth}); `shown` decides at the end.
    function fold(p, run) {
      const from = run[0], to = end[run[run.length - 1]];
      if (to - from <= SHORT_RUN) {
        for (let i = from; i < to; i++) out.push(i);
        return;
      }
      folds++;
      const owner = p < 0 ? document.body : recs[p].node;
      const part = commonAncestor(recs[from].node, recs[to - 1].node, owner);
      const expand = part ? ` [expand=${refFor(part)}]` : "";
      const indent = "  ".repeat(recs[from].depth);
      const sig = signature(run[0]);
      if (run.length >= LIKE_RUN && !sig.startsWith("text/") && run.every((c) => signature(c) === sig)) {
        for (const c of run.slice(0, SHOWN_OF_LIKE_RUN)) {
          for (let i = c; i < Math.min(end[c], c + SHORT_RUN); i++) out.push(i);
        }
        const rest = run[SHOWN_OF_LIKE_RUN];
        const more = run.length - SHOWN_OF_LIKE_RUN;
        out.push({ depth: recs[from].depth, text: `${indent}- … ${more} more like these (${tally(lines, recs, rest, to)})${expand}` });
        return;
      }
      // Prose: its first words a person can see, then what else the run holds.
      let first = from;
      while (first < to && (recs[first].role !== "text" || unseen(recs[first].node))) first++;
      if (first === to) {
        out.push({ depth: recs[from].depth, text: `${indent}- … ${tally(lines, recs, from, to)}${expand}` });
        return;
      }
      const words = lines[first].slice(lines[first].indexOf("- text: ") + 8);
      const rest = to - from > 1 ? tally(lines, recs, from, to, first) : "";
      out.push({ depth: recs[from].depth, text: `${indent}- text: ${words.length > EXCERPT ? words.slice(0, EXCERPT) : words}… ` +
        `(+ ${rest})${expand}` });
    }
    function children(p) {
      let run = [];
      for (const c of kids[p < 0 ? n : p]) {
        if (keep[c]) {
          if (run.length) { fold(p, run); run = []; }
          out.push(c);
          children(c);
        } else {
          run.push(c);
        }
      }
      if (run.length) fold(p, run);
    }
    children(-1);
    return { lines: shown(lines, recs, out), folds };
  }

  // The lines of `items` (line numbers of a rendering made with see =
  // false, or made lines) a person can see: a line that cannot be seen
  // goes with everything under it; names keep only what can be seen.
  function shown(lines, recs, items) {
    const out = [];
    const cutDone = new Set();
    const clicked = new Set();
    let gone = -1;   // depth of the line that went, while under it
    for (const item of items) {
      const depth = typeof item === "number" ? recs[item].depth : item.depth;
      if (gone >= 0 && depth > gone) continue;
      gone = -1;
      if (typeof item !== "number") { out.push(item.text); continue; }
      const { node, role, name } = recs[item];
      if (unseen(node)) { gone = depth; unseenLines.set(node, lastWhy); continue; }
      told.set(node, true);
      let line = lines[item];
      // A text its box cuts: the part shown (see shownUpTo).
      // (A walk that did not judge sight made its lines from all of it.)
      if (role === "text" && cuts.has(node)) {
        if (cutDone.has(node)) continue;
        cutDone.add(node);
        const indent = line.slice(0, line.length - line.trimStart().length);
        for (const t of textLines(node)) out.push(`${indent}- text: ${cut(t)}`);
        continue;
      }
      if (role === "text" || role === "image") {
        const c = clickableAround(node, clicked);
        if (c) {
          clicked.add(c);
          const indent = line.slice(0, line.length - line.trimStart().length);
          const n = cut(nameOf(c, "generic") || clickName(c));
          out.push(`${indent}- ${clickables.get(c)}${n ? " " + quote(n) : ""} [ref=${refFor(c)}]`);
          continue;
        }
      }
      // (Its ref was left to the lines shown: see pointerPart().)
      if (POINTER_PARTS.has(role) && !line.includes(" [ref=") && pointerPart(node, role)) line = withRef(line, node);
      if (name && node.nodeType === 1) {
        const seen = seenName(node, role, name);
        if (seen !== name) line = line.replace(quote(name), quote(seen));
      }
      out.push(line);
    }
    return out;
  }

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
  watch(document);
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

  // ---- page text ------------------------------------------------------------------------

  // Elements whose text starts on a line of its own.
  const BLOCKS = new Set(["ADDRESS", "ARTICLE", "ASIDE", "BLOCKQUOTE", "DD", "DETAILS", "DIALOG", "DIV",
    "DL", "DT", "FIELDSET", "FIGCAPTION", "FIGURE", "FOOTER", "FORM", "H1", "H2", "H3", "H4", "H5", "H6",
    "HEADER", "HR", "LI", "MAIN", "NAV", "OL", "P", "PRE", "SECTION", "SUMMARY", "TABLE", "TR", "UL",
    "CAPTION", "LEGEND", "OPTION", "BR"]);

  function visibleText(root, max) {
    let out = "";
    let inFrame = 0;   // same-origin frames entered (see generated())
    const walk = (n) => {
      if (out.length > max) return;
      if (n.nodeType === 3) {
        // (Blanks between inline elements keep their words apart.)
        if (!NON_SPACE.test(n.data)) { if (n.data && !out.endsWith(" ") && !out.endsWith("\n")) out += " "; return; }
        if (!unseen(n)) {
          // Line breaks a person sees stay (pre, pre-wrap, pre-line: a
          // poem, an address); other white space collapses.
          const keep = keepsBreaks(n.parentElement);
          const data = shownData(n);
          out += keep ? data.replace(/[^\S\n]+/g, " ") : data.replace(/\s+/g, " ");
        }
        return;
      }
      if (n.nodeType !== 1 || SKIP.has(n.tagName)) return;
      if (n.localName === "slot") { for (const a of slotted(n)) walk(a); return; }
      const h = hidden(n);
      if (h === "all") return;
      if (n.localName === "input" || n.localName === "textarea" || n.localName === "select") return;
      // A frame of the same origin a person sees: its text, in place.
      if (n.localName === "iframe" || n.localName === "frame") {
        let doc = null;
        try { doc = n.contentDocument; } catch { /* another origin */ }
        if (doc?.body && !unseen(n, false)) {
          if (!out.endsWith("\n")) out += "\n";
          inFrame++;
          walk(doc.body);
          inFrame--;
        }
        return;
      }
      const block = BLOCKS.has(n.tagName.toUpperCase());
      if (block && !out.endsWith("\n")) out += "\n";
      if (n.localName === "td" || n.localName === "th") out += "\t";
      // A button or an inline box stands apart on screen: two side by
      // side are two words, not one.
      const apart = !block && (n.localName === "button" || box(n).display.startsWith("inline-"));
      if (apart) out += " ";
      // (Generated text, see generated(), where its element is seen.)
      const gen = inFrame > 0 || wordsAnywhere() ? generated(n) : NO_GENERATED;
      const genSeen = (gen.before || gen.after) && !unseen(n, false);
      if (genSeen && gen.before) out += gen.before;
      for (let c = n.shadowRoot ? n.shadowRoot.firstChild : n.firstChild; c; c = c.nextSibling) walk(c);
      if (genSeen && gen.after) out += gen.after;
      if (apart) out += " ";
      if (block && !out.endsWith("\n")) out += "\n";
    };
    walk(root);
    return out.split("\n").map((l) => l.replace(/[ \t]+/g, (m) => m.includes("\t") ? "\t" : " ").trim()).filter(Boolean).join("\n");
  }

  // The open shadow roots in `doc`, those inside others too.
  const SHADOW_SCAN = 250;
  function shadowRootsIn(doc) {
    const out = [];
    const scan = (scope) => {
      for (const el of scope.querySelectorAll("*")) {
        const r = el.shadowRoot;
        if (r) { out.push(r); scan(r); }
      }
    };
    scan(doc);
    return out;
  }

  // ---- the API Rust calls ------------------------------------------------------------

  function answer(lines, cut, more, frames, extra) {
    return { text: lines.join("\n") + (lines.length ? "\n" : ""), cut, more, frames, url: location.href, title: document.title, hidden: leftOutCount(), closedHosts: closedHosts.size, doubts: doubts.length, unjudged: unjudged.size, ...extra };
  }

  // Most outline a skeleton is made from (units, ~12k lines, ~100 ms on
  // this machine): past it, the skeleton covers the part of the page
  // before it and says so (browser_find still searches it all).
  const SKELETON_WALK = 500000;

  // A page too long to walk whole: the lines of what a skeleton keeps
  // that come after `after`, found without walking there (form controls,
  // and the links, buttons and other controls the viewport shows).
  const LATE_CONTROLS = "input:not([type=hidden]), select, textarea, [contenteditable=true], " +
    "[role=textbox], [role=searchbox], [role=combobox], [role=checkbox], [role=radio], " +
    "[role=switch], [role=slider], [role=spinbutton]";
  const LATE_ACTIONS = "a[href], button, summary, [role=button], [role=link], [role=tab], [role=menuitem]";
  const MAX_LATE = 200;
  function lateLines(after) {
    const out = [];
    if (!after) return out;
    // What the viewport shows, by hit-testing a grid over it (a link is
    // wider than 40 px and taller than 12 px): measuring every link of
    // such a page would cost as much as walking it.
    const shown = new Set();
    for (let y = 6; y < innerHeight; y += 12) {
      for (let x = 20; x < innerWidth; x += 40) {
        const hit = document.elementFromPoint(x, y)?.closest(LATE_ACTIONS);
        if (hit) shown.add(hit);
      }
    }
    const candidates = [...document.querySelectorAll(LATE_CONTROLS), ...shown]
      .sort((a, b) => a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1);
    for (const el of candidates) {
      if (!(after.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING)) continue;
      const r = render(el, 2000, false);
      if (r.lines.length) out.push(`  ${r.lines[0].trimStart()}`);
      if (out.length >= MAX_LATE) break;
    }
    return out;
  }

  // How many of `lines` fit in `budget` units, as a budgeted walk counts.
  function fitting(lines, budget) {
    let used = 0, k = 0;
    while (k < lines.length && used + lines[k].length + 1 <= budget) used += lines[k++].length + 1;
    return k;
  }

  // The skeleton's walk of the page: its lines and records.
  function skeletonWalk(budget) {
    const recs = [];
    const r = render(document.documentElement, SKELETON_WALK, false, recs, false);
    lastFrames = r.frames;
    // What `changes` compares with: the rendering a budgeted walk makes
    // (what a person can see of it, decided when it is needed).
    const upTo = fitting(r.lines, budget);
    setBaseline(r.lines.slice(0, upTo), recs.slice(0, upTo), r.full || upTo < r.lines.length);
    r.recs = recs;
    return r;
  }

  // The skeleton of a walk: what the viewport shows and what a person can
  // see are decided here, after the walk, so a walk can be reused when
  // only the viewport's height changed.
  function skeletonOf(r, budget, small) {
    const recs = r.recs;
    const size = r.lines.reduce((a, l) => a + l.length + 1, 0);
    if (size <= small) return answer(shown(r.lines, recs, [...r.lines.keys()]), false, 0, r.frames.length);
    const sk = skeleton(r.lines, recs);
    let lines = sk.lines, cut = false, more = 0;
    if (r.full) {
      const late = lateLines(r.stoppedAt);
      if (late.length) {
        lines.push(`- … past the first ${SKELETON_WALK / 1000} KB of the outline (not shown), its form controls and what the viewport shows:`);
        lines = lines.concat(late);
      }
    }
    const k = fitting(lines, budget);
    if (k < lines.length) {
      cut = true;
      more = lines.slice(k).filter((l) => l.includes("[ref=")).length;
      lines = lines.slice(0, k);
    }
    return answer(lines, cut, more, r.frames.length, { folds: sk.folds, outline: size, partial: r.full });
  }

  // ---- find: a ref and a place for every hit ----------------------------------------

  // The element a find hit's line stands for: its own, or for a line of
  // text the nearest element with a box that holds the words (what a
  // click on them lands on).
  function hitElement(node) {
    if (node.nodeType === 1) return node;
    let el = paintParent(node);
    while (el && box(el).display === "contents") el = paintParent(el);
    return el;
  }

  // The head of an outline line: "- role", its quoted name, its [states].
  // (A name ends at the first unescaped quote before " [", ": " or the end
  // of the line; quote() does not escape backslashes, so a name ending in
  // one still ends there.)
  const LINE_HEAD = /^(\s*- [^\s:"]+(?: "(?:[^"\\]|\\.|\\)*?"(?=$| \[|: ))?)((?: \[[^\]]*\])*)/;

  // `line` with a ref for `el` after its states (before ": value"), unless
  // it has one: a hit a person clicks on (a heading with a listener, a
  // cell, words in a span) needs a ref as much as a button does.
  function withRef(line, el) {
    const m = LINE_HEAD.exec(line);
    if (!m || !el || m[2].includes("[ref=")) return line;
    return `${m[0]} [ref=${refFor(el)}]${line.slice(m[0].length)}`;
  }

  // A hit in a table or grid is placed by its column and row headers, not
  // by the heading above it in page order (in a calendar, the last day's
  // label comes before every event in the DOM).
  const CELL_ROLES = new Set(["cell", "gridcell", "columnheader", "rowheader"]);
  const TABLE_ROLES = new Set(["table", "grid", "treegrid"]);
  const HEADER_TEXT = 60;
  // Longer than this, what stands above a hit in a CSS grid is content,
  // not its column's label.
  const LABEL_TEXT = 40;

  // What a header says as a person sees it.
  function headerText(el) {
    return seenName(el, "cell", nameOf(el, "cell"));
  }

  function headerCut(s) {
    return s.length > HEADER_TEXT ? s.slice(0, HEADER_TEXT) + "…" : s;
  }

  // The nearest ancestor of `el` whose role is in `roles`.
  function ancestorWith(el, roles) {
    for (let n = el.parentElement; n; n = n.parentElement) if (roles.has(roleOf(n))) return n;
    return null;
  }

  const ROW = new Set(["row"]);

  // The cells of a table or ARIA grid as a person reads them: row(r)
  // lists {cell, c, span, own} by column (a cell that spans rows is in
  // each, `own` in its first), rowOf(cell) is the row a cell starts in,
  // `heads` counts the header rows at the top. Rows are placed when asked
  // (a hit in row 9,000 of a long table needs its own row and the head),
  // except in an HTML table with cells spanning rows: placing a row then
  // takes all rows above it, so all are placed at once.
  function tableLayout(table) {
    const html = table.localName === "table";
    const trs = html ? table.rows
      // (The rows of this grid only, not of one inside it.)
      : [...table.querySelectorAll("[role=row]")].filter((tr) => ancestorWith(tr, TABLE_ROLES) === table);
    const spanned = html && table.querySelector("[rowspan]") ? spannedRows(trs) : null;
    const made = [];
    const row = (r) => made[r] ??= spanned ? spanned[r] : html ? htmlRow(trs[r]) : ariaRow(trs[r]);
    const rowOf = (cell) => {
      const tr = html ? cell.parentElement : ancestorWith(cell, ROW);
      const r = !tr ? -1 : html ? (tr.localName === "tr" ? tr.rowIndex : -1) : trs.indexOf(tr);
      return r >= 0 && trs[r] === tr ? r : undefined;
    };
    // Header rows: the table's head, or rows at the top that hold column
    // headers and nothing else with text.
    const isHead = (r) => {
      if (html && trs[r].parentElement?.localName === "thead") return true;
      const own = row(r).filter((x) => x.own);
      return own.some((x) => roleOf(x.cell) === "columnheader") &&
        own.every((x) => roleOf(x.cell) === "columnheader" || !NON_SPACE.test(x.cell.textContent));
    };
    let heads = 0;
    while (heads < trs.length && isHead(heads)) heads++;
    return { row, rowOf, heads };
  }

  const colSpan = (cell) => Math.min(Math.max(cell.colSpan, 1), 1000);

  function htmlRow(tr) {
    let c = 0;
    return [...tr.cells].map((cell) => {
      const x = { cell, c, span: colSpan(cell), own: true };
      c += x.span;
      return x;
    });
  }

  function ariaRow(tr) {
    const row = [];
    let c = 0;
    for (const cell of tr.querySelectorAll("[role=cell], [role=gridcell], [role=columnheader], [role=rowheader]")) {
      if (ancestorWith(cell, ROW) !== tr) continue;
      // (A grid that draws only the rows and columns in view numbers them.)
      const index = parseInt(cell.getAttribute("aria-colindex"), 10);
      if (index >= 1) c = index - 1;
      const span = Math.max(parseInt(cell.getAttribute("aria-colspan"), 10) || 1, 1);
      row.push({ cell, c, span, own: true });
      c += span;
    }
    return row;
  }

  // All rows of an HTML table whose cells span rows and columns.
  function spannedRows(trs) {
    const rows = [], taken = [];
    for (let r = 0; r < trs.length; r++) {
      rows[r] ??= [];
      let c = 0;
      for (const cell of trs[r].cells) {
        while (taken[r]?.[c]) c++;
        const span = colSpan(cell);
        // (rowspan=0 spans the rest.)
        const down = Math.min(cell.rowSpan > 0 ? cell.rowSpan : trs.length, trs.length - r);
        for (let i = 0; i < down; i++) {
          (rows[r + i] ??= []).push({ cell, c, span, own: i === 0 });
          const t = (taken[r + i] ??= []);
          for (let j = 0; j < span; j++) t[c + j] = true;
        }
        c += span;
      }
    }
    // (Cells carried down from rows above came first.)
    for (const row of rows) row.sort((a, b) => a.c - b.c);
    return rows;
  }

  // The path entries of a hit inside a table or ARIA grid (`column "…"`,
  // `row "…"`; none found: []), or null when it is in none. `memo` keeps
  // layouts for one find call.
  function tablePlace(el, memo) {
    let cell = null;
    for (let n = el; n && n.nodeType === 1 && n !== document.body; n = paintParent(n)) {
      const role = roleOf(n);
      if (CELL_ROLES.has(role)) { cell = n; break; }
      // (A caption, or a row's own line.)
      if (TABLE_ROLES.has(role) || role === "row") return [];
    }
    if (!cell) return null;
    const table = cell.localName === "td" || cell.localName === "th"
      ? cell.closest("table")
      : ancestorWith(ancestorWith(cell, ROW) || cell, TABLE_ROLES);
    // (A layout table's cells say nothing of columns.)
    if (!table || !TABLE_ROLES.has(roleOf(table))) return null;
    let layout = memo.get(table);
    if (!layout) memo.set(table, layout = tableLayout(table));
    const r = layout.rowOf(cell);
    if (r === undefined || r < layout.heads) return [];
    const cells = layout.row(r);
    const me = cells.find((x) => x.cell === cell);
    if (!me) return [];
    const out = [];
    const cols = [];
    for (let h = 0; h < layout.heads; h++) {
      const x = layout.row(h).find((x) => x.c <= me.c && me.c < x.c + x.span);
      const t = x ? headerCut(headerText(x.cell)) : "";
      if (t && !cols.includes(t)) cols.push(t);
    }
    // (Header rows above one another: "H1 / Q2".)
    if (cols.length) out.push(`column ${quote(cols.join(" / "))}`);
    if (roleOf(cell) !== "rowheader") {
      let head = cells.find((x) => x.cell !== cell && roleOf(x.cell) === "rowheader");
      const first = cells[0];
      if (!head && first && first.cell !== cell && first.cell.localName === "th") head = first;
      const t = head ? headerCut(headerText(head.cell)) : "";
      if (t) out.push(`row ${quote(t)}`);
    }
    return out;
  }

  // A CSS grid laid out as a table without saying so (a week calendar:
  // day labels along the top, hours down the left, events placed by
  // grid-column): its labels are found by where they are. The labels
  // along the top are the grid's items that lie within its first row
  // track, those down the side the ones within its first column track;
  // two or more of them, or none (a page layout's banner or sidebar
  // stands alone there, or spans more than one track).
  function gridBands(grid) {
    const s = box(grid).style;
    const row1 = parseFloat(s.gridTemplateRows), col1 = parseFloat(s.gridTemplateColumns);
    const r = rectOf(grid);
    const top = r.top + grid.clientTop + parseFloat(s.paddingTop) - grid.scrollTop;
    const left = r.left + grid.clientLeft + parseFloat(s.paddingLeft) - grid.scrollLeft;
    const items = [];
    const collect = (p) => {
      for (const c of p.localName === "slot" ? p.assignedElements() : (p.shadowRoot || p).children) {
        if (SKIP.has(c.tagName)) continue;
        const b = box(c);
        if (b.display === "contents") collect(c);
        // (What is positioned out of the grid's flow can be anywhere.)
        else if (b.style.position !== "absolute" && b.style.position !== "fixed") items.push(c);
      }
    };
    collect(grid);
    const tops = [], sides = [];
    const EPS = 2;
    for (const it of items) {
      const b = rectOf(it);
      if (!(b.width > 0 && b.height > 0)) continue;
      if (b.top >= top - EPS && b.bottom <= top + row1 + EPS) tops.push(it);
      if (b.left >= left - EPS && b.right <= left + col1 + EPS) sides.push(it);
    }
    // The distance between side labels: a label stands for what is level
    // with it, or below it by less than that.
    const at = sides.map((s) => rectOf(s).top).sort((a, b) => a - b);
    let pitch = Infinity;
    for (let i = 1; i < at.length; i++) if (at[i] - at[i - 1] > EPS) pitch = Math.min(pitch, at[i] - at[i - 1]);
    return { tops: tops.length >= 2 ? tops : [], sides: sides.length >= 2 ? sides : [], pitch };
  }

  // The path entries of a hit inside such a grid, or null. The column's
  // label is the topmost top label over the hit's centre and above it;
  // the row's, the side label level with the hit's top (an event from
  // 10:00 to 12:00 starts at "10:00"), else the nearest one less than a
  // label's pitch above that (a label only as tall as its text), left of
  // the hit. A label must be short and must not look like the
  // hit's own item (same tag and class): in a grid of alike cards, the
  // card above is no header. The three nearest grids are tried.
  function gridPlace(el, memo) {
    const hr = rectOf(el);
    if (!(hr.width > 0 && hr.height > 0)) return null;
    const cx = (hr.left + hr.right) / 2, y = hr.top + 1;
    const EPS = 2;
    const sig = (n) => n.localName + "." + (n.getAttribute("class") || "");
    const label = (n, item) => {
      if (sig(n) === sig(item)) return "";
      const t = headerText(n);
      return t.length <= LABEL_TEXT ? t : "";
    };
    let item = el, grids = 0;
    for (let n = paintParent(el); n && n.nodeType === 1 && n !== document.documentElement; n = paintParent(n)) {
      const d = box(n).display;
      if (d === "grid" || d === "inline-grid") {
        let bands = memo.get(n);
        if (!bands) memo.set(n, bands = gridBands(n));
        const out = [];
        if (!bands.tops.includes(item)) {
          let best = null;
          for (const h of bands.tops) {
            const b = rectOf(h);
            if (b.left <= cx && cx < b.right && b.bottom <= hr.top + EPS && (!best || b.top < rectOf(best).top)) best = h;
          }
          const t = best && label(best, item);
          if (t) out.push(`column ${quote(t)}`);
        }
        if (!bands.sides.includes(item)) {
          let level = null, above = null;
          for (const s of bands.sides) {
            const b = rectOf(s);
            if (b.right > hr.left + EPS) continue;
            if (b.top <= y && y < b.bottom) { if (!level || b.left < rectOf(level).left) level = s; }
            else if (b.top <= y && y < b.top + bands.pitch && (!above || b.top > rectOf(above).top)) above = s;
          }
          const s = level || above;
          const t = s && label(s, item);
          if (t) out.push(`row ${quote(t)}`);
        }
        if (out.length) return out;
        if (++grids === 3) return null;
      }
      if (d !== "contents") item = n;
    }
    return null;
  }

  const api = {
    // Sets the ref prefix once ("e" for a document reached directly,
    // "f2e" for a frame's own context). Later calls cannot change it.
    configure(opts) {
      if (nextRef === 1 && opts && typeof opts.prefix === "string") prefix = opts.prefix;
      return prefix;
    },

    // The outline of the page (or of `root`), at most `budget` units.
    // With `opts.skeleton` (a size), a whole page whose outline is bigger
    // answers with its skeleton instead (see skeleton()).
    snapshot(opts, root) {
      const budget = opts?.budget ?? 40000;
      const whole = !root;
      const changed = whole && changedSinceRender();
      if (whole && opts?.skeleton) {
        // Nothing changed since the last skeleton (the usual navigate, then
        // snapshot): the same answer, without walking the page again.
        const key = `${budget} ${opts.skeleton} ${scrollX} ${scrollY} ${innerWidth}`;
        const same = !changed && lastSkeleton?.key === key;
        if (same && lastSkeleton.height === innerHeight) return lastSkeleton.answer;
        // Only the viewport's height changed: Chrome slides its "started
        // debugging this browser" bar out and in again after every
        // navigation of a tab an extension debugs (about 150 ms, measured
        // headless and headed), and a browser bar or the window can come
        // and go. Nothing the walk read changed (no mutation, no control
        // input), so what the viewport shows is worked out again from the
        // same walk.
        const walk = same ? lastSkeleton.walk : skeletonWalk(budget);
        const answer = skeletonOf(walk, budget, opts.skeleton);
        lastSkeleton = { key, height: innerHeight, walk, answer };
        return answer;
      }
      if (!whole) {
        const r = render(root, budget);
        return answer(r.lines, r.full, r.more, r.frames.length);
      }
      const recs = [];
      const r = render(document.documentElement, budget, true, recs, false);
      lastFrames = r.frames;
      setBaseline(r.lines, recs, r.full);
      return answer(shown(r.lines, recs, [...r.lines.keys()]), r.full, r.more, r.frames.length);
    },

    // What changed since the last whole-page snapshot of this document,
    // then that rendering becomes the new baseline. null: no baseline.
    // `opts.pointer`: the pointer moved (what :hover rules restyle is
    // looked at again); `opts.force`: anything CSS shows may have changed
    // (walk the whole page). `walked` in the answer: whether it did.
    changes(opts) {
      if (!baseline) return null;
      const budget = opts?.budget ?? 40000;
      if (observer.takeRecords().length) dirty = moved = true;
      const hoverNow = hoverChain();
      let r = null;
      let walked = false;
      if (!dirty && !opts?.force) {
        // Nothing changed the DOM: only what CSS restyled is rendered again.
        let roots = [...restyled];
        if (opts?.pointer) {
          const more = hoverRoots(hoverNow);
          roots = more && roots.concat(more);
        }
        // (A snapshot's skeleton is made again after it.)
        if (roots?.length) moved = true;
        if (roots) {
          const again = roots.length ? regionLines(roots, budget) : { lines: baseline.lines, recs: baseline.recs };
          if (again) r = { lines: again.lines, recs: again.recs, frames: lastFrames };
        }
      }
      if (!r) {
        const recs = [];
        r = render(document.documentElement, budget, false, recs, false);
        r.recs = recs;
        walked = true;
        walks++;
        lastFrames = r.frames;
      }
      dirty = mutated = false;
      restyled = new Set();
      const recs = r.recs;
      const d = diff(baseline.lines, r.lines);
      // What a person can see of it: added lines are checked now; a
      // removed line is told when an answer showed it or it can be seen.
      // Lines that were there but unseen and can be seen now count as added.
      const items = new Set(d.added);
      for (let j = 0; j < r.lines.length; j++) {
        const node = recs[j].node;
        if (items.has(j) || !unseenLines.has(node)) continue;
        let end = j + 1;
        while (end < r.lines.length && recs[end].depth > recs[j].depth) end++;
        // (Covering is only seen in the viewport: what was covered stays
        // left out while it is outside it.)
        if (unseenLines.get(node) === "covered" && placeOf(node) !== VIEW_IN) { j = end - 1; continue; }
        quick = true;
        let back;
        try { back = !unseen(node, false); } finally { quick = false; }
        if (back) {
          unseenLines.delete(node);
          for (let k = j; k < end; k++) items.add(k);
        }
        j = end - 1;
      }
      const added = shown(r.lines, recs, [...items].sort((a, b) => a - b));
      const removed = d.removed.filter((i) => {
        const node = baseline.recs[i].node;
        return told.has(node) || (node.isConnected && !unseen(node, false));
      }).map((i) => baseline.lines[i]);
      setBaseline(r.lines, recs, walked ? r.full : baseline.full, hoverNow);
      return { added, removed, frames: r.frames.length, url: location.href, title: document.title, hidden: leftOutCount(), closedHosts: closedHosts.size, walked };
    },

    // Lines of the whole page (no budget) whose text contains `opts.text`
    // (any case) and whose role is `opts.role` (if given), in page order,
    // each with a ref for what it stands for and its section path: the
    // landmarks around it, then its column and row headers when it is in
    // a table or grid, else the headings above it. At most `opts.limit`;
    // `total` counts them all.
    find(opts) {
      const want = String(opts?.text ?? "").toLowerCase();
      const role = opts?.role ? String(opts.role) : null;
      const limit = opts?.limit ?? 20;
      const recs = [];
      const r = render(document.documentElement, Infinity, false, recs, false);
      const found = [];
      let total = 0;
      // Table layouts and grid bands, made once for all hits in them.
      const places = new Map();
      // Enclosing landmarks, innermost last, each with the headings seen
      // inside it so far (by level).
      const around = [{ indent: -1, label: null, headings: [] }];
      for (let i = 0; i < r.lines.length; i++) {
        let line = r.lines[i];
        const indent = line.length - line.trimStart().length;
        const m = /^\s*- (\S+)(?: "((?:[^"\\]|\\.)*)")?/.exec(line);
        if (!m) continue;
        const [, lineRole, name = ""] = m;
        while (around.length > 1 && around[around.length - 1].indent >= indent) around.pop();
        const here = around[around.length - 1];
        let hit = (!role || lineRole === role) && (!want || line.toLowerCase().includes(want))
          && !line.includes("[frame=");
        // (What a person cannot see is not found; names lose what is unseen.)
        if (hit) {
          const seen = shown(r.lines, recs, [i]);
          line = seen[0] || "";
          hit = !!line && (!want || line.toLowerCase().includes(want));
        }
        if (hit) {
          total++;
          if (found.length < limit) {
            const el = hitElement(recs[i].node);
            let cells = el && tablePlace(el, places);
            if (cells === null && el) cells = gridPlace(el, places);
            const path = [...around.slice(1).map((a) => a.label), ...(cells?.length ? cells : here.headings.filter(Boolean))];
            found.push({ line: withRef(line, el).trim(), path });
          }
        }
        if (lineRole === "heading" && !unseen(recs[i].node, false)) {
          const level = Number(/\[level=(\d)\]/.exec(line)?.[1] || 2);
          here.headings.length = level - 1;
          here.headings[level - 1] = name;
        } else if (LANDMARKS.has(lineRole)) {
          around.push({ indent, label: name ? `${lineRole} "${name}"` : lineRole, headings: [] });
        }
      }
      return { found, total, url: location.href, title: document.title, hidden: leftOutCount() };
    },

    // Runs a reader (get_text, read_markdown, extract_links: a function
    // that calls `seen(node)` on what it keeps) on `root` (the page when
    // null) with `arg`; returns its value and how many blocks of text it
    // left out because a person cannot see them; with the page's title
    // and URL for the answer's page line (one call instead of two).
    read(reader, arg, root) {
      const value = reader.call(root || null, arg);
      return { value, hidden: leftOutCount(), url: location.href, title: document.title, doubts: doubts.length, unjudged: unjudged.size };
    },

    // Whether a person can see `node` (a text node or an element that
    // holds no text of its own, like an image); for readers.
    seen(node) {
      return !unseen(node);
    },

    // The field `el` now holds the named secret `name`, typed as `value`
    // (see secretOf()).
    markSecret(el, name, value) {
      secretMarks.set(el, { name: String(name), value: String(value) });
      return true;
    },

    // Pixels for the doubts of the last call (see pixelDoubt()): where
    // they are, painted transparent or not, and what the pixels said.
    doubtRects() {
      return doubtRects();
    },
    veil(on) {
      return veil(!!on);
    },
    judge(seen) {
      return judge(seen || []);
    },

    // The text of a text node `seen` judged visible, as a person reads
    // it: the part its box shows when the box cuts it (see shownUpTo).
    shownText(node) {
      return shownData(node);
    },

    // The visible text of `root` (the body when null), block by block, at
    // most `max` characters: innerText without what a person cannot see.
    text(root, max) {
      // (A reader called without an element gets the global object as `this`.)
      const el = root && root.nodeType === 1 ? root : document.body || document.documentElement;
      return visibleText(el, max);
    },

    // Resolves to true once `opts.text` is in what a person sees of the
    // document and its same-origin frames (with `opts.gone`: once it is
    // not), re-checked on DOM changes and every 250 ms, or to whether it
    // holds after `opts.ms` ms. Each look starts from nothing memoised.
    waitText(opts) {
      const want = String(opts?.text ?? "");
      const gone = !!opts?.gone;
      // Shadow roots found by the looks so far, each observed once; a
      // document's are looked for again after SHADOW_SCAN ms (a scan
      // costs as much as innerText on a big page).
      const roots = new Set();
      const scans = new Map();   // document -> {at, roots}
      const rootsOf = (d) => {
        let s = scans.get(d);
        if (!s || performance.now() - s.at > SHADOW_SCAN) scans.set(d, s = { at: performance.now(), roots: shadowRootsIn(d) });
        return s.roots;
      };
      let obs = null;
      const holds = () => {
        fresh();
        // innerText holds all the visible text and more: a cheap first
        // look. It leaves out what open shadow roots show (slotted light
        // DOM aside), so their text (all of it, a superset too) is looked
        // at when innerText says no.
        const somewhere = (d) => (d.body?.innerText ?? "").includes(want) ||
          rootsOf(d).some((r) => { observe(r); return r.isConnected && r.textContent.includes(want); });
        const docs = [];
        const reach = (d) => {
          docs.push(d);
          for (const f of d.querySelectorAll("iframe, frame")) {
            try { if (f.contentDocument) reach(f.contentDocument); } catch { /* another origin */ }
          }
        };
        reach(document);
        // (The visible text takes in the frames a person sees.)
        const seen = docs.some(somewhere) && visibleText(document.body || document.documentElement, Infinity).includes(want);
        return gone ? !seen : seen;
      };
      // (Changes inside a shadow root reach no observer of the document.)
      const observe = (r) => {
        if (!obs || roots.has(r)) return;
        roots.add(r);
        obs.observe(r, { subtree: true, childList: true, characterData: true, attributes: true });
      };
      return new Promise((resolve) => {
        let poll = 0, timer = 0;
        obs = new MutationObserver(() => { if (holds()) done(true); });
        const done = (v) => { obs.disconnect(); clearInterval(poll); clearTimeout(timer); resolve(v); };
        if (holds()) return resolve(true);
        obs.observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
        for (const r of rootsOf(document)) observe(r);
        poll = setInterval(() => { if (holds()) done(true); }, 250);
        timer = setTimeout(() => done(holds()), Math.max(0, opts?.ms ?? 0));
      });
    },

    // The iframe element behind `[frame=N]` of the last rendering.
    frameOwner(n) {
      return lastFrames[n - 1] || null;
    },

    // Sizes of what the engine keeps between calls, for tests and the
    // soak bench (serve shows them in browser_status with
    // TABWIRE_DEBUG_COUNTS=1): entries of the ref table, refs made so
    // far, sweeps of the table, lines of the last rendering kept for
    // change reports, change reports that walked the whole page.
    stats() {
      return { refs: elementOf.size, made: nextRef - 1, sweeps, baseline: baseline ? baseline.lines.length : 0, walks };
    },

    resolve,
    // A navigation's last look at its page, after the tasks queued before
    // it (a posted message, which the page's timers do not overtake): the
    // document's state, the delay of a `<meta>` refresh to another URL
    // (-1: none) and the URL. With `opts.snapshot` (a snapshot's options),
    // a complete document without a refresh within `opts.follow` seconds
    // also answers with its snapshot: the answer's outline comes in the
    // same round trip.
    loaded(opts) {
      return new Promise((r) => {
        const c = new MessageChannel();
        c.port1.onmessage = () => r();
        c.port2.postMessage(0);
      }).then(() => {
        let refresh = -1;
        const m = document.querySelector('meta[http-equiv="refresh" i]');
        if (m) {
          const c = m.content || "";
          const d = parseFloat(c);
          if (d >= 0 && /url\s*=/i.test(c)) refresh = d;
        }
        const out = { state: document.readyState, refresh, url: location.href };
        if (opts?.snapshot && out.state === "complete" && !(refresh >= 0 && refresh <= opts.follow)) {
          out.snapshot = api.snapshot(opts.snapshot);
        }
        return out;
      });
    },
    // A page that has loaded but shows nothing yet, whose scripts may
    // still draw it (an app such as JupyterLab shows its shell a moment
    // after its load event): takes `opts.snapshot` (a snapshot's options)
    // every 50 ms and answers {snapshot} with the first that shows
    // something, {} after `opts.timeout` ms, or null at once when the page
    // has no script that could draw it.
    firstContent(opts) {
      const until = performance.now() + (opts?.timeout ?? 2500);
      return new Promise((r) => {
        if (!document.scripts.length) return r(null);
        const look = () => {
          const snapshot = api.snapshot(opts?.snapshot);
          if (snapshot.text) return r({ snapshot });
          if (performance.now() >= until) return r({});
          setTimeout(look, 50);
        };
        look();
      });
    },
    // `f` (a function of one element, as `this`) on what `target` names,
    // in one call: reading a field back after an action needs no handle.
    at(target, f, arg) {
      return f.call(resolve(target), arg);
    },
    // After an action, once the page has run what it queued: waits (at
    // most 400 ms) for the finite animations running in the shadow roots
    // the engine has seen (a component's popup opening or closing; the
    // document's own are waited for before this), so the answer reports
    // where they come to rest. Then, with `opts.look`, when nothing has
    // changed since the last answer, waits (at most `opts.ms`) for the
    // change a timer or an animation frame the action scheduled makes,
    // and for the DOM to be quiet for 25 ms (at most 300 ms more).
    // Resolves to whether such a change came; a page with nothing moving
    // that changed already (the action's own work) answers at once.
    settle(opts) {
      const inShadow = shadowAnimations().filter((a) => Number.isFinite(a.effect?.getComputedTiming().endTime));
      const rest = inShadow.length
        ? Promise.race([Promise.all(inShadow.map((a) => a.finished.catch(() => 0))), new Promise((r) => setTimeout(r, 400))])
        : null;
      const look = () => {
        if (!opts?.look) return false;
        if (observer.takeRecords().length) dirty = mutated = true;
        if (mutated || restyled.size) return false;
        return lookAhead(opts.ms);
      };
      return rest ? rest.then(look) : look();
    },
    // The animations running in the document and in the shadow roots the
    // engine has seen (a component's popup fading out, a branch opening).
    running() {
      return document.getAnimations().filter((a) => a.playState === "running").concat(shadowAnimations());
    },
    // Whether `inner` is `outer` or inside it, through slots and shadow
    // hosts (an option slotted into a component's popup is inside it).
    within,
    roleOf,
    nameOf,
    // What a field holds as a person sees it (an editor's drawn text).
    fieldValue,
    disabled,
    // The surface a control hidden behind one is operated through, or null
    // (also for one laid over its surface: it is pressed where it is).
    surfaceOf(el) {
      const s = proxySurface(el);
      return s && !overs.has(el) ? s : null;
    },
  };

  // The memos of fresh() hold for one call. Every entry point starts with
  // them empty (this is the one place that empties them), unless it runs
  // inside another call (a reader's T.text() inside read()): Rust's own
  // scripts call nameOf, roleOf and text directly, and a page that changed
  // since the last call must not be judged by what that call saw.
  let depth = 0;
  for (const [key, f] of Object.entries(api)) {
    api[key] = function (...args) {
      if (depth === 0) fresh();
      depth++;
      try { return f.apply(this, args); } finally { depth--; }
    };
  }

  Object.defineProperty(globalThis, "__tabwire", { value: api });
  return api;
})()
