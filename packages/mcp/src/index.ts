// Anything exported here is public API of @conch/mcp: Conch's tools as an MCP server, on stdio and on
// Streamable HTTP. What a process does around it (signals, its parent, its stderr, listening, a console)
// is the app's: conchd and `conch mcp`.
export { createDaemon, type Daemon, type DaemonHost } from "./daemon.js";
export { type HttpAddress, MCP_PATH } from "./http/http-guard.js";
export { createMcpHttp, type McpHttp, type McpHttpOptions, replyError } from "./http/mcp-http.js";
export { CALL_LIMIT_MS } from "./mcp-tools.js";
export { type ServeFlags, type ServeOptions, serveOptionsFromFlags } from "./options.js";
export { type StdioServing, type StdioStreams, serveOnStdio } from "./stdio/serve-stdio.js";
