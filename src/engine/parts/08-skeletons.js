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
  const NO_KIDS = Object.freeze([]);

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
    // (The role first: a line is a rope of the pieces it was joined from,
    // and searching it makes it one string, which for every line of a big
    // page was most of this function's time.)
    if (KEPT_ROLES.has(role) || FORM_CONTROLS.has(role) || role === "Iframe" && line.includes(" [frame=")) return true;
    return role === "button" && !!(node.form || node.closest?.("form"));
  }

  // What lines from..to-1 hold, counted: "23 links, 2 buttons, 14 lines of text".
  // (`skip`: a line already shown. A line the walk left unfinished, see
  // render()'s namesAfter, has its role and ref: all this reads.)
  function tally(lines, recs, from, to, skip = -1) {
    let links = 0, buttons = 0, controls = 0, texts = 0, other = 0;
    for (let i = from; i < to; i++) {
      if (i === skip) continue;
      const role = recs[i].role;
      if (role === "link") links++;
      else if (role === "button") buttons++;
      // (Text first: most folded lines are text, and searching a line
      // makes the rope it was joined from one string, see keptAnywhere().)
      else if (role === "text") texts++;
      else if (lines[i].includes("[ref=")) controls++;
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
    // (A list only for the lines that have children: most have none.)
    const kids = new Array(n + 1);
    for (let i = 0; i < n; i++) (kids[parent[i] < 0 ? n : parent[i]] ||= []).push(i);
    const kidsOf = (p) => kids[p < 0 ? n : p] || NO_KIDS;
    // A control in a row of a long table (a row's selection checkbox) is
    // row content: it folds with its row like the row's links.
    const manyRows = new Map();
    function inLongTable(i) {
      let p = parent[i];
      while (p >= 0 && recs[p].role !== "row") p = parent[p];
      if (p < 0) return false;
      const table = parent[p];
      if (!manyRows.has(table)) {
        const rows = kidsOf(table).filter((c) => recs[c].role === "row").length;
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
      for (const c of kidsOf(p)) {
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
      for (const c of kidsOf(p)) {
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
  // (A line the walk left unfinished is finished here: nameLine().)
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
      const { node, role } = recs[item];
      if (unseen(node)) { gone = depth; unseenLines.set(node, lastWhy); continue; }
      told.set(node, true);
      let line = nameLine(lines, recs, item);
      const name = recs[item].name;
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

