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

  // The same for the walk, which asks once per element: an answer made
  // here is not kept (keeping one per element of a big page costs more
  // than the few that are asked again, see contentText).
  function hiddenOnce(el) {
    const h = hiddenOf.get(el);
    return h === undefined ? hiddenNow(el) : h;
  }

  function hiddenNow(el) {
    if (hiddenByMarkup(el)) return "all";
    return shownByStyle(el) ? "" : hiddenByStyle(el);
  }

  // Hidden with all it holds whatever its styles say: aria-hidden, or SVG
  // that is never drawn.
  function hiddenByMarkup(el) {
    return el.getAttribute("aria-hidden") === "true" || (el.namespaceURI === SVG_NS && svgUnrendered(el));
  }

  // Whether `el` has a box and is visible (then no element it is in hides
  // what it holds: see render()'s `unsure`).
  function shownByStyle(el) {
    return el.checkVisibility({ visibilityProperty: true });
  }

  // hiddenNow() of an element shownByStyle() said no to.
  function hiddenByStyle(el) {
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
    rgbaOf = new Map();
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
    textRects = new Map();
    ranges = new Map();
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
  // (`pos`: the style's position, when read already: each read of a
  // computed style's property costs about half a microsecond.)
  function clipsToNothing(s, cp, pos = s.position) {
    if (cp && cp !== "none") {
      const inset = /^inset\(\s*([\d.]+)(%|px)/.exec(cp);
      if (inset && inset[2] === "%" && Number(inset[1]) >= 50) return true;
      if (/^circle\(\s*0(px|%)?[\s)]/.test(cp) || /^polygon\((?:\s*0(?:px|%)?\s+0(?:px|%)?\s*,?)+\)$/.test(cp)) return true;
    }
    if (pos !== "absolute" && pos !== "fixed") return false;
    const clip = s.clip;
    if (clip && clip.startsWith("rect(")) {
      const v = clip.slice(5, -1).split(/[\s,]+/).map(parseFloat);
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

  // The computed style of `el`: the one box() holds when it looked at
  // `el` already (each getComputedStyle() makes a new object to read).
  function styleOf(el) {
    return boxes.get(el)?.style || getComputedStyle(el);
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
    const pos = s.position, display = s.display;
    const under = pos === "fixed" ? EVERYWHERE : pb ? (pos === "absolute" ? pb.clipAbs : pb.clip) : EVERYWHERE;
    b = { style: s, display, under, clip: under, scrolls: !!pb?.scrolls, clipAbs: pos === "fixed" ? EVERYWHERE : pb ? pb.clipAbs : EVERYWHERE, gone: pb?.gone || null, fixed: pos === "fixed" || pos === "sticky" || !!pb?.fixed, pinned: pos === "fixed" || !!pb?.pinned, alpha: pb ? pb.alpha : 1, scaled: !!pb?.scaled, styled: !!pb?.styled, pos, bg: undefined };
    if (!b.gone && display !== "contents") {
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
      if (opacity < 0.05 || b.alpha < 0.02 || clipsToNothing(s, clipPath, pos) || /opacity\(0(\.0*)?%?\)/.test(filter) || masksAll(mask)) {
        b.gone = el;
      } else {
        // overflow: hidden or clip cuts what is outside the box off for
        // good; auto and scroll let a person scroll to it (kept).
        // (A list box scrolls its options, whatever its style says.)
        const list = el.localName === "select" || el.localName === "textarea";
        const ox = list ? "" : s.overflowX, oy = list ? "" : s.overflowY;
        const cx = ox === "hidden" || ox === "clip";
        const cy = oy === "hidden" || oy === "clip";
        if (list || /auto|scroll/.test(ox + oy)) {
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

