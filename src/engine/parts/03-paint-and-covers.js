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
    const { image, own } = background(n);
    const drawn = !(own && own[3] >= 0.5) && hostPaint(n);
    if (drawn) c = [drawn];
    else if (image === "none") c = [own];
    else {
      const stops = gradientStops(image);
      const under = stops && backdrop(paintParent(n));
      c = stops ? stops.map((s) => s[3] >= 0.5 ? s : under || WHITE[0]) : null;
    }
    colourMemo.set(n, c);
    return c;
  }

  // What `el` paints its background with: `image`, its background-image,
  // and `own`, its colour as rgba() gives it when there is no image (else
  // null). Read once per element and call (painter(), colours() and the
  // covers all ask, and a computed style's read is not free).
  function background(el) {
    const b = box(el);
    if (b.bg === undefined) {
      const image = b.style.backgroundImage;
      b.bg = { image, own: image === "none" ? rgba(b.style.backgroundColor) : null };
    }
    return b.bg;
  }

  // The nearest of `el` and its ancestors that paints a background (an
  // image, or a colour at least half opaque), memoised for the call.
  let painters = new Map();
  function painter(el) {
    if (!el) return null;
    let p = painters.get(el);
    if (p !== undefined) return p;
    const { image, own } = background(el);
    p = image !== "none" || (own && own[3] >= 0.5) || hostPaint(el) ? el : painter(paintParent(el));
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

  // (A page uses a few colours for thousands of elements: each is parsed
  // once per call. The array returned is shared: read, never changed.)
  let rgbaOf = new Map();
  function rgba(css) {
    let c = rgbaOf.get(css);
    if (c !== undefined) return c;
    const m = /rgba?\(([^)]+)\)/.exec(css || "");
    if (m) {
      const v = m[1].split(/[\s,/]+/).filter(Boolean).map(parseFloat);
      c = [v[0], v[1], v[2], v.length > 3 ? v[3] : 1];
    } else c = null;
    rgbaOf.set(css, c);
    return c;
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
    const { image, own } = background(hit);
    if (!(image !== "none" || (own?.[3] ?? 0) >= 0.9 ||
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

