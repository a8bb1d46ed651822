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
        const walk = same ? lastSkeleton.walk : skeletonWalk(budget, opts.skeleton);
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
  // The first call also starts watching the document for changes (see
  // watch()).
  let depth = 0;
  for (const [key, f] of Object.entries(api)) {
    api[key] = function (...args) {
      if (depth === 0) { watch(document); fresh(); }
      depth++;
      try { return f.apply(this, args); } finally { depth--; }
    };
  }

  Object.defineProperty(globalThis, "__tabwire", { value: api });
  return api;
})()
