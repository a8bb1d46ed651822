  // ---- the API Rust calls ------------------------------------------------------------

  function answer(lines, cut, more, frames, extra) {
    return { text: lines.join("\n") + (lines.length ? "\n" : ""), cut, more, frames, url: location.href, title: document.title, hidden: leftOutCount(), closedHosts: closedHosts.size, doubts: doubts.length, unjudged: unjudged.size, ...extra };
  }

  // Most outline a skeleton is made from (units, ~12k lines, ~100 ms on
  // this machine): past it, the skeleton covers the part of the page
  // before it and says so (browser_find still searches it all). (Units
  // of its lines as the walk makes them: past an answer's budget, without
  // names from content, states and values, see render().)
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

  // The skeleton's walk of the page: its lines and records. Lines past
  // `budget` and `small` units leave names from content, states and
  // values for later (see render()): the baseline below and a page
  // shown whole are made before that.
  function skeletonWalk(budget, small) {
    const recs = [];
    const r = render(document.documentElement, SKELETON_WALK, false, recs, false, null, Math.max(budget, small));
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
    // (Without what the walk left for later: a page with any of that is
    // over `small` already. The size a skeleton tells is the outline's
    // without it, a lower bound.)
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

