//! The page side of page tools (tools a page declares for agents through
//! `navigator.modelContext`): the registry installed in every document
//! where the browser has none, and the scripts that list and call them.

/// Installed on every new document of a tab tabwire drives: provides
/// `navigator.modelContext` (registerTool / unregisterTool / provideContext
/// / clearContext) when the browser has none, keeping the tools where
/// [`LIST`] and [`CALL`] find them.
pub const REGISTRY_SHIM: &str = r#"(() => {
  if ('modelContext' in navigator) return;
  const tools = new Map();
  const add = t => {
    if (!t || typeof t.name !== 'string' || typeof t.execute !== 'function')
      throw new TypeError('a tool needs a name and an execute function');
    tools.set(t.name, t);
  };
  const api = {
    registerTool(t) { add(t); return {unregister: () => tools.delete(t.name)}; },
    unregisterTool(name) { tools.delete(name); },
    provideContext(ctx) { tools.clear(); for (const t of (ctx && ctx.tools) || []) add(t); },
    clearContext() { tools.clear(); },
  };
  Object.defineProperty(navigator, 'modelContext', {value: api, configurable: true});
  Object.defineProperty(window, Symbol.for('tabwire.pageTools'), {value: tools});
})()"#;

/// `{tools: [{name, description, inputSchema}]}` or `{error}`.
pub const LIST: &str = r#"async () => {
  const shim = window[Symbol.for('tabwire.pageTools')];
  if (shim) return {tools: [...shim.values()].map(t => ({name: t.name,
    description: t.description || '', inputSchema: t.inputSchema || null}))};
  const testing = navigator.modelContextTesting;
  if (testing && testing.listTools) {
    const list = await testing.listTools();
    return {tools: list.map(t => ({name: t.name, description: t.description || '',
      inputSchema: typeof t.inputSchema === 'string' ? JSON.parse(t.inputSchema || 'null') : t.inputSchema}))};
  }
  if ('modelContext' in navigator)
    return {error: 'the page uses the browser\'s own navigator.modelContext, which this browser does not let tabwire list'};
  return {tools: []};
}"#;

/// Runs a page tool with `a.args`; `{result}` (text) or `{error}`.
pub const CALL: &str = r#"async (a) => {
  const text = r => {
    if (r && Array.isArray(r.content))
      return r.content.map(c => c.type === 'text' ? c.text : JSON.stringify(c)).join('\n');
    return typeof r === 'string' ? r : JSON.stringify(r === undefined ? null : r);
  };
  const shim = window[Symbol.for('tabwire.pageTools')];
  try {
    if (shim) {
      const t = shim.get(a.name);
      if (!t) return {missing: [...shim.keys()]};
      const client = {requestUserInteraction: async cb => cb()};
      return {result: text(await t.execute(a.args, client))};
    }
    const testing = navigator.modelContextTesting;
    if (testing && testing.executeTool)
      return {result: text(await testing.executeTool(a.name, JSON.stringify(a.args)))};
    return {missing: []};
  } catch (e) {
    return {error: String(e && e.message || e)};
  }
}"#;
