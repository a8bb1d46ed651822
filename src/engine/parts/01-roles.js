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

  // The role an element's name gives it whatever its attributes say: one
  // lookup (the walk asks it of every element, and a switch compares the
  // name with its cases one by one). null: the role depends on the
  // element's attributes or place, see implicitRole(); a name not here
  // is generic.
  const ROLE_OF_NAME = new Map(Object.entries({
    a: null, area: null, input: null, select: null, img: null, header: null, footer: null,
    section: null, th: null,
    button: "button", option: "option", optgroup: "group", textarea: "textbox",
    h1: "heading", h2: "heading", h3: "heading", h4: "heading", h5: "heading", h6: "heading",
    svg: "image", nav: "navigation", main: "main", aside: "complementary", form: "form",
    article: "article", ul: "list", ol: "list", menu: "list", li: "listitem", table: "table",
    thead: "rowgroup", tbody: "rowgroup", tfoot: "rowgroup", tr: "row", td: "cell",
    dialog: "dialog", details: "group", summary: "DisclosureTriangle", p: "paragraph",
    blockquote: "blockquote", code: "code", label: "LabelText", fieldset: "group",
    legend: "Legend", hr: "separator", progress: "progressbar", meter: "meter",
    output: "status", dl: "DescriptionList", dt: "term", dfn: "term", dd: "definition",
    figure: "figure", figcaption: "Figcaption", em: "emphasis", strong: "strong",
    iframe: "Iframe", frame: "Iframe", abbr: "Abbr", time: "time", mark: "mark",
    sub: "subscript", sup: "superscript", del: "deletion", ins: "insertion",
    address: "group", hgroup: "group", search: "search", math: "math",
  }));

  function implicitRole(el) {
    const name = el.localName;
    const fixed = ROLE_OF_NAME.get(name);
    if (fixed !== null) return fixed ?? "generic";
    switch (name) {
      case "a": case "area": return el.hasAttribute("href") ? "link" : "generic";
      case "input": {
        const type = (el.getAttribute("type") || "text").toLowerCase();
        if (INPUT_ROLES[type]) return INPUT_ROLES[type];
        if (el.hasAttribute("list")) return "combobox";
        return type === "search" ? "searchbox" : "textbox";
      }
      case "select": return el.multiple || el.size > 1 ? "listbox" : "combobox";
      case "img": return el.getAttribute("alt") === "" && !el.title ? "none" : "image";
      case "header": return el.parentElement?.closest(LANDMARK_SCOPES) ? "generic" : "banner";
      case "footer": return el.parentElement?.closest(LANDMARK_SCOPES) ? "generic" : "contentinfo";
      case "section": return hasOwnLabel(el) ? "region" : "generic";
      case "th": return el.closest("thead") || el.getAttribute("scope") === "col" || !el.parentElement?.querySelector("td") ? "columnheader" : "rowheader";
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

