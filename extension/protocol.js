// Mirror of src/protocol.rs: change both together and bump PROTOCOL_VERSION.

export const PROTOCOL_VERSION = 1;
export const HOST_NAME = "com.tabwire.host";

// Methods a tabwire server may call.
export const METHOD = Object.freeze({
  HELLO: "hello",
  TABS_LIST: "tabs.list",
  TABS_CREATE: "tabs.create",
  TABS_CLOSE: "tabs.close",
  TABS_SELECT: "tabs.select",
  CDP_SEND: "cdp.send",
  CDP_BATCH: "cdp.batch",
  NOTE: "note",
});

// In a cdp.batch, a command's frameId of this value stands for the top
// frame's id from a Page.getFrameTree answered earlier in the same batch.
export const MAIN_FRAME = "$mainFrame";
// In a cdp.batch, an objectId of this value stands for the handle the
// batch's first Runtime.evaluate answered (src/protocol.rs EARLIER_HANDLE).
export const EARLIER_HANDLE = "$handle";

// Error codes the Rust side maps to its own errors.
export const ERROR = Object.freeze({
  NO_SUCH_TAB: "no_such_tab",
  DEBUGGER_BUSY: "debugger_busy",
  CDP: "cdp",
  BAD_REQUEST: "bad_request",
  VERSION: "version",
  POLICY: "policy",
  // The user stopped browser control (Cancel on the browser's debugging
  // bar, or Stop in the popup); only the user can resume it.
  STOPPED: "stopped_by_user",
  // The user said no to a site for this client (serve --confirm-sites), or
  // did not answer in time.
  SITE_DENIED: "site_denied",
});

// Host → extension envelopes: {c, m} | {c, chunk:{id,i,n,data}} | {c, gone:true}.
// Extension → host: {c, m} where m is a response {id, result|error} or an
// event {event:"cdp"|"tabClosed"|"detached"|"tabOpened", tabId, ...}, or
// {event:"control", stopped: null | {scope:"all"|"client", cause, since}}
// whenever the user stops or resumes this client (hello's answer carries
// `stopped` too), or {event:"waiting", waiting: "the user to allow …"|null}
// while a call waits for the user's answer about a site, or
// {event:"browser", params:{browserLabel, newTabsHere: ms|null}} when the user
// renames this browser or marks it "Agents open new tabs here" (hello's
// answer carries browserId, browserLabel and newTabsHere too).
