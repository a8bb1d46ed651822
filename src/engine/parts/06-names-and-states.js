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
    if (how === undefined) transforms.set(el, how = styleOf(el).textTransform);
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

  // Whether contentText(el, depth, skip) has a word in it (outside a
  // name's computation: `naming` is off), found at the first one. It
  // follows contentText and embeddedName step for step; a case changed
  // there must change here.
  function says(el, depth, skip) {
    if (depth > 12) return false;
    const fill = el.localName === "slot" ? el.assignedNodes() : null;
    if (fill && fill.length) return fill.some((n) => pieceSays(n, depth, skip));
    for (let n = el.shadowRoot ? el.shadowRoot.firstChild : el.firstChild; n; n = n.nextSibling) if (pieceSays(n, depth, skip)) return true;
    return false;
  }
  function pieceSays(n, depth, skip) {
    if (n.nodeType === 3) return NON_SPACE.test(n.data);
    if (n.nodeType !== 1 || n === skip || SKIP.has(n.tagName) || hidden(n) === "all") return false;
    if (clean(n.getAttribute("aria-label"))) return true;
    switch (n.localName) {
      case "img": case "area": case "input": case "select": case "textarea": case "svg":
        return NON_SPACE.test(embeddedName(n, depth, skip));
    }
    return says(n, depth + 1, skip);
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

  // The elements nativeName() has a case for.
  const NATIVELY_NAMED = new Set(["input", "select", "textarea", "meter", "progress", "output",
    "button", "img", "area", "fieldset", "figure", "table", "svg", "iframe", "frame", "optgroup",
    "option", "dfn"]);

  function nativeName(el, role) {
    // (Most elements have no name of their own kind: one lookup for them,
    // not a comparison with each case.)
    const tag = el.localName;
    if (!NATIVELY_NAMED.has(tag)) return "";
    switch (tag) {
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
    return ownName(el, role) ?? contentName(el, role);
  }

  // The name of `el` as far as it comes from anything but its content;
  // null when its content comes next (accname's order).
  function ownName(el, role) {
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
    if (NAME_FROM_CONTENT.has(role) || el.localName === "dfn") return null;
    return clean(el.title) || hostLabel(el, role);
  }

  // The name of an element whose ownName() is null: from its content.
  function contentName(el, role) {
    return clean(ownContent(el, role)) || clean(el.title) || hostLabel(el, role);
  }

  // Whether contentName() would be anything, without building it (no
  // text-transform read, no string made, done at the first word): what
  // the skeleton's walk needs to know of a name it leaves for later.
  function hasContentName(el, role) {
    return says(el, 0, contentSkip(el, role)) || !!clean(el.title) || !!hostLabel(el, role);
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
    return contentText(el, 0, contentSkip(el, role));
  }
  function contentSkip(el, role) {
    return role === "treeitem" ? el.querySelector(":scope > [role=group], :scope > ul, :scope > ol") : undefined;
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
    // (Also by a disabled fieldset, an ancestor's aria-disabled, inert:
    // disabled() without its :disabled, which was just asked.)
    if (el.disabled === true || aria("aria-disabled") === "true" || el.matches(":disabled") ||
      (INTERACTIVE.has(role) && !!el.closest(DISABLING))) out.push("[disabled]");
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
  const DISABLING = "[aria-disabled=true], [inert]";
  function disabled(el) {
    return el.matches(":disabled") || !!el.closest(DISABLING);
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
    const cursor = styleOf(el).cursor;
    const kind = cursor === "pointer" ? "clickable" : GRAB.test(cursor) ? "draggable" : "";
    if (!kind) return "";
    const up = paintParent(el);
    return !up || styleOf(up).cursor !== cursor ? kind : "";
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
    if (styleOf(el).cursor !== "pointer") return false;
    if (role === "row" || role === "heading") {
      const up = paintParent(el);
      return !up || styleOf(up).cursor !== "pointer";
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

