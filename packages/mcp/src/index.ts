// Anything exported here is public API of @conch/mcp: Conch's tools as an MCP server, which conchd
// serves on stdio and HTTP and `conch mcp` on stdio.
export { createDaemon, type Daemon, say, watchParent } from "./daemon.js";
export { CALL_LIMIT_MS } from "./mcp-tools.js";
export { type ServeFlags, type ServeOptions, serveOptionsFromFlags } from "./options.js";
export { serveOnStdio } from "./serve-stdio.js";
