//! Page tools where the browser has no registry of its own: a small one,
//! installed in the page's main world before its scripts run (every new
//! document of a tab tabwire drives), and the scripts tabwire lists, calls
//! and cancels its tools with.
//!
//! It offers today's API, `document.modelContext.registerTool(tool,
//! {signal})` (a promise; aborting the signal withdraws the tool;
//! `execute(input, {signal})`; `toolchange`, `toolactivated` and
//! `toolcancel` events), where the browser has no `document.modelContext`
//! (no WebMCP, or a page that is not a secure context), and the older
//! `navigator.modelContext` (`registerTool` returning `{unregister}`,
//! `unregisterTool`, `provideContext`, `clearContext`), which the browser
//! dropped, for pages written against it. Both keep their tools in one map.

/// Installed on every new document; see the module's description.
pub const REGISTRY_SHIM: &str = r#"(() => {
  const KEY = Symbol.for('tabwire.pageTools');
  if (window[KEY]) return;
  const tools = new Map();
  const calls = new Map();
  Object.defineProperty(window, KEY, {value: {tools, calls}});
  const hints = a => ({
    readOnly: !!(a && a.readOnlyHint),
    consequential: !!(a && a.consequentialHint),
    untrustedContent: !!(a && a.untrustedContentHint),
  });
  const checked = t => {
    if (!t || typeof t.name !== 'string' || !/^[A-Za-z0-9_.-]{1,128}$/.test(t.name))
      throw new TypeError('a tool needs a name of letters, digits, _ . or -');
    if (typeof t.execute !== 'function') throw new TypeError('a tool needs an execute function');
    return {name: t.name, description: String(t.description || ''),
      inputSchema: t.inputSchema || null, annotations: hints(t.annotations), execute: t.execute};
  };
  if (!('modelContext' in document)) {
    const target = new EventTarget();
    const changed = () => target.dispatchEvent(new Event('toolchange'));
    const api = {
      registerTool(t, options) {
        try {
          const tool = checked(t);
          if (typeof t.description !== 'string') throw new TypeError('a tool needs a description');
          if (tools.has(tool.name)) throw new DOMException('Duplicate tool name', 'InvalidStateError');
          const signal = options && options.signal;
          if (signal && signal.aborted) return Promise.resolve();
          tools.set(tool.name, tool);
          if (signal) signal.addEventListener('abort', () => {
            if (tools.get(tool.name) === tool) { tools.delete(tool.name); changed(); }
          });
          changed();
          return Promise.resolve();
        } catch (e) {
          return Promise.reject(e);
        }
      },
      getTools() {
        return Promise.resolve([...tools.values()].map(t => ({name: t.name,
          description: t.description, inputSchema: t.inputSchema || undefined})));
      },
      addEventListener: target.addEventListener.bind(target),
      removeEventListener: target.removeEventListener.bind(target),
      dispatchEvent: target.dispatchEvent.bind(target),
      tabwireShim: true,
    };
    for (const kind of ['toolchange', 'toolactivated', 'toolcancel']) {
      let handler = null;
      Object.defineProperty(api, 'on' + kind, {
        get: () => handler,
        set: h => {
          if (handler) target.removeEventListener(kind, handler);
          handler = typeof h === 'function' ? h : null;
          if (handler) target.addEventListener(kind, handler);
        },
      });
    }
    Object.defineProperty(document, 'modelContext', {value: api, configurable: true});
  }
  if (!('modelContext' in navigator)) {
    const add = t => { const tool = checked(t); tools.set(tool.name, tool); return tool; };
    Object.defineProperty(navigator, 'modelContext', {configurable: true, value: {
      registerTool(t) { const tool = add(t); return {unregister: () => { if (tools.get(tool.name) === tool) tools.delete(tool.name); }}; },
      unregisterTool(name) { tools.delete(name); },
      provideContext(ctx) { tools.clear(); for (const t of (ctx && ctx.tools) || []) add(t); },
      clearContext() { tools.clear(); },
    }});
  }
})()"#;

/// What the page offers: `{native}` (whether `document.modelContext` is
/// the browser's own) and the shim's tools `[{name, description,
/// inputSchema, annotations}]`.
pub const LIST: &str = r#"() => {
  const reg = window[Symbol.for('tabwire.pageTools')];
  const mc = document.modelContext;
  return {
    native: !!mc && !mc.tabwireShim,
    tools: reg ? [...reg.tools.values()].map(t => ({name: t.name, description: t.description,
      inputSchema: t.inputSchema, annotations: t.annotations})) : [],
  };
}"#;

/// Runs the shim's tool `a.name` with `a.args` under call id `a.id`:
/// `{output}` (a string, or the value as JSON) or `{error}`, or
/// `{missing: true}` when it is gone. Cancelled by [`CANCEL`].
pub const CALL: &str = r#"async (a) => {
  const reg = window[Symbol.for('tabwire.pageTools')];
  const t = reg && reg.tools.get(a.name);
  if (!t) return {missing: true};
  const abort = new AbortController();
  reg.calls.set(a.id, {abort, name: a.name});
  const mc = document.modelContext;
  const tell = kind => { try { if (mc && mc.tabwireShim) {
    const e = new Event(kind); e.toolName = a.name; mc.dispatchEvent(e); } } catch (_) { /* a listener threw */ } };
  tell('toolactivated');
  const cancelled = new Promise(r => abort.signal.addEventListener('abort', () => r({cancelled: true})));
  try {
    const run = Promise.resolve(t.execute(a.args, {signal: abort.signal,
      requestUserInteraction: async cb => cb()}));
    const r = await Promise.race([run, cancelled]);
    if (r && r.cancelled === true && abort.signal.aborted) return r;
    if (r && Array.isArray(r.content))
      return {output: r.content.map(c => c.type === 'text' ? c.text : JSON.stringify(c)).join('\n')};
    return {output: typeof r === 'string' ? r : JSON.stringify(r === undefined ? null : r)};
  } catch (e) {
    return {error: String(e && e.message || e)};
  } finally {
    reg.calls.delete(a.id);
  }
}"#;

/// Cancels the shim's call `a.id` (its `execute` sees its signal abort,
/// the page a `toolcancel` event).
pub const CANCEL: &str = r#"(a) => {
  const reg = window[Symbol.for('tabwire.pageTools')];
  const c = reg && reg.calls.get(a.id);
  if (!c) return false;
  c.abort.abort();
  const mc = document.modelContext;
  try { if (mc && mc.tabwireShim) { const e = new Event('toolcancel'); e.toolName = c.name; mc.dispatchEvent(e); } } catch (_) { /* a listener threw */ }
  return true;
}"#;
