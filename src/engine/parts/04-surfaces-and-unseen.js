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
  // A wider net than PROXIES that a query casts faster (a list of simple
  // selectors is matched cheaper than one with attribute values, on every
  // element of a big page); what it catches is then matched to PROXIES.
  const MAYBE_PROXIES = "textarea, input, select, [contenteditable], [role]";
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
    const { image, own } = background(n);
    if (image !== "none" || (own?.[3] ?? 0) >= 0.1 || s.boxShadow !== "none") return true;
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
    for (const el of scope.querySelectorAll(MAYBE_PROXIES)) {
      if (!el.matches(PROXIES) || !mayBeProxy(el)) continue;
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

  // The box of a text node (its text's) or of an element, once per call
  // (the skeleton measures a line's box to place it, then to judge it),
  // text measured with one range per document and call (a new range
  // costs as much again as the measure).
  let textRects = new Map();
  let ranges = new Map();   // document -> its range (this call)
  function nodeRect(node) {
    if (node.nodeType !== 3) return rectOf(node);
    let r = textRects.get(node);
    if (!r) {
      const doc = node.ownerDocument;
      let range = ranges.get(doc);
      if (!range) ranges.set(doc, range = doc.createRange());
      range.selectNodeContents(node);
      textRects.set(node, r = range.getBoundingClientRect());
    }
    return r;
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
      vr = rectOf(el);
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

