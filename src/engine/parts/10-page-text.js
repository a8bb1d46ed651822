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

