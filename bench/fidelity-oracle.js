// bench/fidelity.py's oracles, run in the "tabwire" isolated world next to
// the engine (globalThis.__tabwire). Nothing here changes the page's DOM:
// text is made invisible for a screenshot with a CSS custom highlight.
(() => {
  const T = globalThis.__tabwire;
  const HL = "tabwire-fidelity";
  // Text the pixels cannot show: not rendered as text, or drawn by the
  // browser itself (a select's options, a text area's value).
  const CONTAINERS = new Set(["script", "style", "noscript", "template", "title", "head"]);
  const DRAWN = new Set(["select", "option", "optgroup", "datalist", "textarea"]);
  const F = { nodes: [], refs: new Set(), surfaces: new Set(), sheets: new Map() };

  const up = (n) => {
    if (n.assignedSlot) return n.assignedSlot;
    const p = n.parentNode;
    return p && p.nodeType === 11 ? p.host || null : p && p.nodeType === 1 ? p : null;
  };
  const within = (a, b) => { for (let n = a; n; n = up(n)) if (n === b) return true; return false; };

  function path(el) {
    const parts = [];
    for (let e = el; e && e.nodeType === 1 && parts.length < 7; e = up(e)) {
      let p = e.localName;
      if (e.id && /^[A-Za-z][\w-]*$/.test(e.id)) { parts.unshift(`${p}#${e.id}`); break; }
      const cls = [...e.classList].slice(0, 2).map((c) => "." + CSS.escape(c)).join("");
      const par = e.parentElement;
      if (par) {
        const same = [...par.children].filter((c) => c.localName === e.localName);
        if (same.length > 1) p += `:nth-of-type(${same.indexOf(e) + 1})`;
      }
      parts.unshift(p + cls);
    }
    return parts.join(" > ");
  }

  // Where a node's document sits in the top viewport (same-origin frames).
  function offset(doc) {
    let x = 0, y = 0;
    for (let w = doc.defaultView; w && w.frameElement; w = w.frameElement.ownerDocument.defaultView) {
      const fe = w.frameElement, r = fe.getBoundingClientRect(), s = getComputedStyle(fe);
      x += r.left + fe.clientLeft + parseFloat(s.paddingLeft);
      y += r.top + fe.clientTop + parseFloat(s.paddingTop);
    }
    return [x, y];
  }

  function textRect(n) {
    const range = n.ownerDocument.createRange();
    range.selectNodeContents(n);
    const r = range.getBoundingClientRect();
    const [x, y] = offset(n.ownerDocument);
    return { l: r.left + x, t: r.top + y, r: r.right + x, b: r.bottom + y, w: r.width, h: r.height };
  }

  function collect(root, out) {
    const doc = root.ownerDocument || root;
    const w = doc.createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
    for (let n = w.nextNode(); n; n = w.nextNode()) {
      if (n.nodeType === 3) { if (/\S/.test(n.data)) out.push(n); continue; }
      if (n.shadowRoot) collect(n.shadowRoot, out);
      if (n.localName === "iframe" || n.localName === "frame") {
        let d = null;
        try { d = n.contentDocument; } catch { /* another origin */ }
        if (d && d.documentElement) collect(d.documentElement, out);
      }
    }
  }

  // Why the pixels cannot show a text node, or "" (then it is tested).
  function untestable(n, r) {
    let child = n;
    for (let e = up(n); e; child = e, e = up(e)) {
      const name = e.localName;
      if (CONTAINERS.has(name)) return "container";
      if (DRAWN.has(name)) return "closed";
      if (name === "details" && !e.open && !(child.localName === "summary")) return "closed";
    }
    if (!(r.w >= 1 && r.h >= 1)) return "zero";
    return "";
  }

  function rgba(css) {
    const m = /rgba?\(([^)]+)\)/.exec(css || "");
    if (!m) return null;
    const v = m[1].split(/[\s,/]+/).filter(Boolean).map(parseFloat);
    return [v[0], v[1], v[2], v.length > 3 ? v[3] : 1];
  }
  function lum([r, g, b]) {
    const f = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  }

  // What in the styles may have made the engine leave a text node out
  // (the engine does not say; this is the oracle's reading, for misses).
  function reason(n) {
    const el = n.nodeType === 3 ? up(n) : n;
    if (!el) return "?";
    const out = [];
    const s = getComputedStyle(el);
    if (s.visibility !== "visible") out.push(`visibility: ${s.visibility}`);
    if (parseFloat(s.fontSize) < 4) out.push(`font-size ${s.fontSize}`);
    if (parseFloat(s.textIndent) < 0) out.push(`text-indent ${s.textIndent}`);
    const fill = rgba(s.webkitTextFillColor) || rgba(s.color);
    if (fill && fill[3] < 0.1) out.push(`transparent colour ${s.color}`);
    else if (fill) {
      let bg = null;
      for (let e = el; e; e = up(e)) {
        const cs = getComputedStyle(e);
        if (cs.backgroundImage !== "none") break;
        const c = rgba(cs.backgroundColor);
        if (c && c[3] >= 0.5) { bg = c; break; }
      }
      if (!bg && !el.ownerDocument.defaultView.frameElement) bg = [255, 255, 255, 1];
      if (bg) {
        const a = lum(fill), b = lum(bg);
        const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
        if (ratio < 1.5) out.push(`contrast ${ratio.toFixed(2)} (${s.color} on rgb(${bg.slice(0, 3).join(", ")}))`);
      }
    }
    let r = textRect(n);
    if (n.nodeType === 1) {
      const b = n.getBoundingClientRect(), [x, y] = offset(n.ownerDocument);
      r = { l: b.left + x, t: b.top + y, r: b.right + x, b: b.bottom + y, w: b.width, h: b.height };
    }
    for (let e = el; e && e.nodeType === 1; e = up(e)) {
      const cs = getComputedStyle(e);
      if (parseFloat(cs.opacity) < 0.05) out.push(`opacity ${cs.opacity} on ${path(e)}`);
      if (cs.clipPath !== "none") out.push(`clip-path ${cs.clipPath} on ${path(e)}`);
      if (cs.clip && cs.clip !== "auto") out.push(`clip ${cs.clip} on ${path(e)}`);
      if (cs.display !== "contents" && /hidden|clip/.test(cs.overflowX + cs.overflowY) && e !== el.ownerDocument.documentElement && e !== el.ownerDocument.body) {
        const b = e.getBoundingClientRect();
        const iw = Math.min(r.r, b.right) - Math.max(r.l, b.left), ih = Math.min(r.b, b.bottom) - Math.max(r.t, b.top);
        if (iw < r.w - 0.5 || ih < r.h - 0.5) out.push(`cut to ${Math.max(0, iw).toFixed(0)}x${Math.max(0, ih).toFixed(0)} px by overflow of ${path(e)}`);
      }
    }
    const v = el.ownerDocument.defaultView;
    if (r.r + v.scrollX <= 0 || r.b + v.scrollY <= 0) out.push(`off the page (${r.l.toFixed(0)}, ${r.t.toFixed(0)})`);
    if (r.r > 0 && r.b > 0 && r.l < v.innerWidth && r.t < v.innerHeight) {
      const x = (Math.max(r.l, 0) + Math.min(r.r, v.innerWidth)) / 2, y = (Math.max(r.t, 0) + Math.min(r.b, v.innerHeight)) / 2;
      const root = el.getRootNode();
      const hit = (root.elementFromPoint && root.elementFromPoint(x, y)) || el.ownerDocument.elementFromPoint(x, y);
      if (hit && !within(hit, el) && !within(el, hit)) out.push(`under ${path(hit)} at its middle`);
    } else out.push("outside the first viewport");
    return out.join("; ") || "no style found";
  }

  // Every non-blank text node the engine judges unseen, sorted into what
  // can be tested with pixels and what cannot (with why).
  F.scan = () => {
    const all = [];
    collect(document.documentElement, all);
    const judged = T.read(() => all.map((n) => T.seen(n)), null).value;
    const res = { texts: all.length, seen: 0, zero: 0, container: 0, closed: 0, cands: [] };
    F.nodes = [];
    for (let i = 0; i < all.length; i++) {
      if (judged[i]) { res.seen++; continue; }
      const n = all[i], r = textRect(n), u = untestable(n, r);
      if (u) { res[u]++; continue; }
      const el = up(n);
      F.nodes.push(n);
      res.cands.push({
        text: n.data.replace(/\s+/g, " ").trim().slice(0, 80),
        kind: `${el.localName}.${el.classList[0] || ""}`,
      });
    }
    return res;
  };

  // The reason and path of candidates `idx` (at the engine's scroll place).
  F.describe = (idx) => idx.map((i) => ({ reason: reason(F.nodes[i]), path: path(up(F.nodes[i])) }));

  // Brings candidate i into the viewport, scrolling what a person scrolls
  // with the wheel: the boxes around it whose overflow is auto or scroll
  // (not hidden or clip), then the window. A fixed box stays put.
  F.scrolled = new Map();  // box -> [left, top] before, for F.unscroll()
  F.bring = (i) => {
    const n = F.nodes[i];
    if (n.ownerDocument === document) {
      for (let a = up(n); a && a !== document.body && a !== document.documentElement; a = up(a)) {
        const s = getComputedStyle(a);
        const sx = /auto|scroll/.test(s.overflowX) && a.scrollWidth > a.clientWidth;
        const sy = /auto|scroll/.test(s.overflowY) && a.scrollHeight > a.clientHeight;
        if (!sx && !sy) continue;
        const r = textRect(n), b = a.getBoundingClientRect();
        const dy = sy && (r.t < b.top || r.b > b.top + a.clientHeight) ? r.t - b.top - Math.min(20, a.clientHeight / 4) : 0;
        const dx = sx && (r.l < b.left || r.r > b.left + a.clientWidth) ? r.l - b.left - 20 : 0;
        if (dx || dy) {
          if (!F.scrolled.has(a)) F.scrolled.set(a, [a.scrollLeft, a.scrollTop]);
          a.scrollBy(dx, dy);
        }
      }
    }
    const r = textRect(n);
    if (r.t < 0 || r.b > innerHeight) scrollBy(0, r.t - innerHeight * 0.1);
    if (r.l < 0 || r.r > innerWidth) scrollBy(r.l - 20, 0);
    return [scrollX, scrollY];
  };
  F.unscroll = () => {
    for (const [a, [l, t]] of F.scrolled) { a.scrollLeft = l; a.scrollTop = t; }
    F.scrolled = new Map();
    scrollTo(0, 0);
  };

  // For candidates `idx`: the part of each text's box in the viewport
  // (top-viewport coordinates) or null; and the window's scroll offsets.
  F.places = (idx) => ({
    x: scrollX, y: scrollY, w: innerWidth, h: innerHeight,
    rects: idx.map((i) => {
      const n = F.nodes[i];
      if (!n.isConnected) return null;
      const r = textRect(n);
      const l = Math.max(r.l, 0), t = Math.max(r.t, 0), rr = Math.min(r.r, innerWidth), b = Math.min(r.b, innerHeight);
      return rr - l >= 1 && b - t >= 1 ? [l, t, rr, b] : null;
    }),
  });

  function sheetFor(root) {
    let sheet = F.sheets.get(root);
    const doc = root.ownerDocument || root;
    if (!sheet) {
      sheet = new doc.defaultView.CSSStyleSheet();
      sheet.replaceSync(`::highlight(${HL}) { color: transparent; -webkit-text-fill-color: transparent; ` +
        "text-shadow: none; text-decoration-color: transparent; -webkit-text-stroke-color: transparent; }");
      F.sheets.set(root, sheet);
    }
    if (!root.adoptedStyleSheets.includes(sheet)) root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
  }

  // Makes the text of candidates `idx` invisible (nothing else changes:
  // no layout, no DOM mutation); F.show() undoes it.
  F.hide = (idx) => {
    const byDoc = new Map();
    for (const i of idx) {
      const n = F.nodes[i];
      sheetFor(n.getRootNode());
      const range = n.ownerDocument.createRange();
      range.selectNodeContents(n);
      const doc = n.ownerDocument;
      if (!byDoc.has(doc)) byDoc.set(doc, []);
      byDoc.get(doc).push(range);
    }
    for (const [doc, ranges] of byDoc) {
      const H = doc.defaultView.Highlight;
      const h = new H(...ranges);
      h.priority = 1e6;
      doc.defaultView.CSS.highlights.set(HL, h);
    }
  };
  F.show = () => {
    const docs = new Set([document, ...F.nodes.map((n) => n.ownerDocument)]);
    for (const d of docs) d.defaultView?.CSS.highlights.delete(HL);
  };

  // ---- operable controls -------------------------------------------------

  // The elements behind the refs of one snapshot's text.
  F.loadRefs = (text) => {
    F.refs = new Set();
    F.surfaces = new Set();
    let bad = 0;
    T.read(() => {
      for (const m of text.matchAll(/\[ref=(e\d+)\]/g)) {
        let el;
        try { el = T.resolve(m[1]); } catch { bad++; continue; }
        F.refs.add(el);
        const s = T.surfaceOf(el);
        if (s) F.surfaces.add(s);
      }
    }, null);
    return { refs: F.refs.size, unresolved: bad, surfaces: F.surfaces.size };
  };

  // Whether the engine gives `el` a ref: on it, on an ancestor or a
  // descendant within 2 levels, on its label, or as the control drawn on
  // it (a hidden proxy's ref stands where its surface is).
  F.hasRef = (el) => {
    const has = (e) => F.refs.has(e) || F.surfaces.has(e);
    if (has(el)) return true;
    for (let a = up(el), i = 0; a && i < 2; a = up(a), i++) if (has(a)) return true;
    const kids = (e) => [...(e.shadowRoot ? e.shadowRoot.children : []), ...e.children];
    for (const c of kids(el)) {
      if (has(c)) return true;
      for (const g of kids(c)) if (has(g)) return true;
    }
    for (const l of el.labels || []) if (has(l)) return true;
    for (const id of (el.getAttribute("aria-labelledby") || "").split(/\s+/).filter(Boolean)) {
      const l = el.getRootNode().getElementById?.(id);
      if (l && has(l)) return true;
    }
    const s = T.surfaceOf(el);
    return !!(s && has(s));
  };

  // Whether a person can operate `el`: a box of at least 2x2 px that takes
  // the pointer at its centre once scrolled into view (scrolling only what
  // a person can scroll: overflow hidden/clip boxes are put back).
  // A control fully transparent at rest (Material for MkDocs' heading
  // permalinks appear on hover) is not counted: a person cannot see it
  // until the pointer finds it, and transparency is the commonest way to
  // hide a link from people (the engine leaves such links out by design).
  F.operable = (el) => {
    const r0 = el.getBoundingClientRect();
    if (!(r0.width >= 2 && r0.height >= 2)) return { ok: false, why: `box ${r0.width.toFixed(1)}x${r0.height.toFixed(1)}` };
    let opacity = 1;
    for (let a = el; a; a = up(a)) opacity *= parseFloat(getComputedStyle(a).opacity);
    if (opacity < 0.05) return { ok: false, why: "transparent-at-rest (shown on hover or focus)" };
    const kept = [];
    for (let a = up(el); a; a = up(a)) {
      const s = getComputedStyle(a);
      if (/hidden|clip/.test(s.overflowX + s.overflowY) && !/auto|scroll/.test(s.overflowX + s.overflowY)) kept.push([a, a.scrollLeft, a.scrollTop]);
    }
    el.scrollIntoView({ block: "center", inline: "center" });
    for (const [a, l, t] of kept) { a.scrollLeft = l; a.scrollTop = t; }
    const r = el.getBoundingClientRect();
    const v = el.ownerDocument.defaultView;
    const x = r.left + r.width / 2, y = r.top + r.height / 2;
    if (x < 0 || y < 0 || x >= v.innerWidth || y >= v.innerHeight) return { ok: false, why: "centre outside the viewport" };
    const root = el.getRootNode();
    const hit = (root.elementFromPoint && root.elementFromPoint(x, y)) || el.ownerDocument.elementFromPoint(x, y);
    if (!hit) return { ok: false, why: "nothing at its centre" };
    if (within(hit, el) || [...(el.labels || [])].some((l) => within(hit, l))) return { ok: true };
    return { ok: false, why: `under ${path(hit)}` };
  };
  F.path = path;
  // For a control without a ref: whether the engine judges it seen, and
  // the oracle's reading of its styles.
  F.aboutControl = (el) => ({ seen: T.seen(el), reason: reason(el) });

  Object.defineProperty(globalThis, "__fid", { value: F });
  return true;
})()
