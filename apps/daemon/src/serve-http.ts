import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { Duplex } from "node:stream";
import { fileURLToPath } from "node:url";
import { createDaemon, type Daemon, type ServeOptions, say, watchParent } from "@conch/mcp";
import { visibleText } from "@conch/protocol";
import { type NodeIncomingMessageLike, toNodeHandler } from "@modelcontextprotocol/node";
import {
  createMcpHandler,
  isInitializeRequest,
  isJSONRPCRequest,
  isLegacyRequest,
  type McpServer,
  type RequestId,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import type { HttpAddress } from "./args.js";
import { createConsole } from "./console/console-server.js";
import { refuseUpgrade } from "./console/websocket.js";
import { StartError } from "./errors.js";
import { createGuard, MCP_PATH } from "./http-guard.js";
import { loadToken } from "./token.js";

const STOP_SIGNALS = ["SIGTERM", "SIGINT"] as const;

/**
 * A 2025-era MCP session with no request or stream open for this long is closed: its client is gone (a
 * connected one holds its GET stream open, kept alive every 15 s). Conch's sessions are not touched.
 */
const LEGACY_SESSION_IDLE_MS = 60 * 60_000;
const LEGACY_SWEEP_MS = 60_000;

function jsonRpcError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status });
}

/** The JSON-RPC messages of a POST body, or none when it is not JSON (the transport answers that). */
async function messagesOf(request: Request): Promise<unknown[]> {
  if (request.method !== "POST") return [];
  try {
    const body: unknown = JSON.parse(await request.clone().text());
    return Array.isArray(body) ? body : [body];
  } catch {
    return [];
  }
}

interface LegacySession {
  readonly server: McpServer;
  readonly transport: WebStandardStreamableHTTPServerTransport;
  /** HTTP exchanges (POSTs, the GET stream) still open. */
  open: number;
  lastActive: number;
}

/**
 * 2025-era clients (`initialize`, then `Mcp-Session-Id`): one server instance per MCP session, so that
 * what a client sends after its request (notifications/cancelled, the answer to an elicitation) reaches
 * the instance serving that request. The SDK's stateless fallback would hand each POST to a new one.
 * Every instance shares the daemon's one runtime: an MCP session holds no Conch session.
 */
class LegacySessions {
  readonly #sessions = new Map<string, LegacySession>();
  readonly #newServer: () => McpServer;
  readonly #onerror: (error: Error) => void;
  readonly #sweep: NodeJS.Timeout;

  constructor(newServer: () => McpServer, onerror: (error: Error) => void) {
    this.#newServer = newServer;
    this.#onerror = onerror;
    this.#sweep = setInterval(() => this.#closeIdle(), LEGACY_SWEEP_MS);
    this.#sweep.unref();
  }

  async fetch(request: Request): Promise<Response> {
    const messages = await messagesOf(request);
    const id = request.headers.get("mcp-session-id");
    if (id === null) {
      if (messages.some(isInitializeRequest)) return this.#open(request, messages);
      return jsonRpcError(400, -32000, "Bad Request: no Mcp-Session-Id header; send initialize first");
    }
    const session = this.#sessions.get(id);
    if (session === undefined) return jsonRpcError(404, -32001, "Session not found");
    return this.#exchange(session, request, messages);
  }

  async #open(request: Request, messages: readonly unknown[]): Promise<Response> {
    const server = this.#newServer();
    server.server.onerror = this.#onerror;
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        this.#sessions.set(id, session);
      },
    });
    // Set before connect, which chains its own after it: DELETE, an idle sweep or shutdown all end here.
    transport.onclose = () => {
      if (transport.sessionId !== undefined) this.#sessions.delete(transport.sessionId);
    };
    const session: LegacySession = { server, transport, open: 0, lastActive: Date.now() };
    await server.connect(transport);
    const response = await this.#exchange(session, request, messages);
    // A refused initialize made no session; nothing will ever reach this instance again.
    if (transport.sessionId === undefined) await server.close();
    return response;
  }

  /**
   * One HTTP exchange of `session`. A client that drops the request before its response is complete
   * cancels the calls it carried, exactly as notifications/cancelled would: the SDK's stateful transport
   * only forgets the stream, and the call would run on with nobody to answer.
   */
  async #exchange(session: LegacySession, request: Request, messages: readonly unknown[]): Promise<Response> {
    const calls: RequestId[] = messages.filter(isJSONRPCRequest).map((message) => message.id);
    session.open++;
    let ended = false;
    const end = (): void => {
      if (ended) return;
      ended = true;
      session.open--;
      session.lastActive = Date.now();
      request.signal.removeEventListener("abort", dropped);
    };
    const dropped = (): void => {
      end();
      for (const requestId of calls) {
        session.transport.onmessage?.({
          jsonrpc: "2.0",
          method: "notifications/cancelled",
          params: { requestId, reason: "the client closed its HTTP request" },
        });
      }
    };
    request.signal.addEventListener("abort", dropped, { once: true });
    let response: Response;
    try {
      response = await session.transport.handleRequest(request);
    } catch (error) {
      end();
      throw error;
    }
    if (response.body === null) {
      end();
      return response;
    }
    const body = response.body.pipeThrough(new TransformStream({ flush: end }));
    return new Response(body, { status: response.status, headers: response.headers });
  }

  #closeIdle(): void {
    const before = Date.now() - LEGACY_SESSION_IDLE_MS;
    for (const session of this.#sessions.values()) {
      if (session.open === 0 && session.lastActive < before) session.server.close().catch(this.#onerror);
    }
  }

  /** Closes every session, which aborts the calls still running in them. */
  async close(): Promise<void> {
    clearInterval(this.#sweep);
    await Promise.all([...this.#sessions.values()].map((session) => session.server.close()));
  }
}

/** The console's files, built by build-console.mjs beside this module's dist. */
const CONSOLE_ASSETS = fileURLToPath(new URL("./console-ui/", import.meta.url));

/** The host a login link names: the bound one, or loopback when bound to every address. */
function linkHost(host: string): string {
  return host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host;
}

/** `host` as it goes in a URL or a message: IPv6 in brackets. */
function displayHost(host: string): string {
  return host.includes(":") ? `[${host}]` : host;
}

function listenError(error: NodeJS.ErrnoException, address: HttpAddress): StartError {
  const host = displayHost(address.host);
  switch (error.code) {
    case "EADDRINUSE":
      return new StartError(
        `port ${address.port} on ${host} is in use (by another conchd, or another program); stop it, or ` +
          `choose another port (--http ${host}:0 picks a free one)`,
      );
    case "EACCES":
      return new StartError(
        `cannot listen on ${host}:${address.port}: permission denied (ports below 1024 need privileges)`,
      );
    case "EADDRNOTAVAIL":
      return new StartError(`cannot listen on ${host}: it is not an address of this machine`);
    default:
      return new StartError(`cannot listen on ${host}:${address.port}: ${error.message}`);
  }
}

function listen(server: Server, address: HttpAddress): Promise<number> {
  // localhost is 127.0.0.1 here, whatever the resolver would answer first.
  const host = address.host === "localhost" ? "127.0.0.1" : address.host;
  return new Promise((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException): void => reject(listenError(error, address));
    server.once("error", failed);
    server.listen(address.port, host, () => {
      server.off("error", failed);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** Stops listening; resolves once every connection has ended. */
function stopListening(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

function reply(res: ServerResponse, status: number, message: string, headers: Record<string, string>): void {
  res.writeHead(status, { ...headers, "content-type": "application/json" });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
}

/**
 * Serves the profile's tools over Streamable HTTP at `address`, path /mcp, until SIGTERM or SIGINT;
 * then stops listening, closes every MCP connection (aborting the calls in flight), kills every
 * session's process tree, flushes the audit log and resolves with exit code 0.
 *
 * Both protocol eras: 2026-07-28 requests through the SDK's `createMcpHandler` (one server instance per
 * request), 2025-era clients through MCP sessions of their own (see LegacySessions). Every client with
 * the token is one client: all share the daemon's one runtime, so a client that reconnects (a new MCP
 * session) finds its sessions by the session_id the tools handed out.
 */
export async function serveOnHttp(options: ServeOptions, address: HttpAddress): Promise<number> {
  let stop: (why: string) => void = () => {};
  const stopped = new Promise<string>((resolve) => {
    stop = resolve;
  });
  // Installed for good: a second signal while sessions are being killed must not cut that short.
  for (const signal of STOP_SIGNALS) process.on(signal, () => stop(signal));
  watchParent(stop);

  const { token, source } = loadToken();
  // Listening first: a port in use is reported before anything starts. Requests that arrive before the
  // daemon is ready wait for it.
  let ready: (listener: (req: IncomingMessage, res: ServerResponse) => void) => void = () => {};
  const handler = new Promise<(req: IncomingMessage, res: ServerResponse) => void>((resolve) => {
    ready = resolve;
  });
  let readyUpgrade: (listener: (req: IncomingMessage, socket: Duplex, head: Buffer) => void) => void =
    () => {};
  const upgrader = new Promise<(req: IncomingMessage, socket: Duplex, head: Buffer) => void>((resolve) => {
    readyUpgrade = resolve;
  });
  const server = createServer((req, res) => {
    void handler.then((listener) => listener(req, res));
  });
  // Every connection, for shutdown: closeAllConnections reaches only those still speaking HTTP, not one
  // upgraded to a console WebSocket, and one of those left half-open would hold the server's close.
  const sockets = new Set<Socket>();
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on("error", () => socket.destroy());
    void upgrader.then((listener) => listener(req, socket, head));
  });
  const port = await listen(server, address);
  server.on("error", (error) => say(`error: ${visibleText(error.message)}`));
  let daemon: Daemon;
  // Set once the console is up: `conch console` then gets a fresh login link over the channel socket.
  let consoleLink: () => string | null = () => null;
  try {
    daemon = await createDaemon(options, { consoleLink: () => consoleLink() });
  } catch (error) {
    const closed = stopListening(server);
    server.closeAllConnections();
    await closed;
    throw error;
  }

  const onerror = (error: Error): void => say(`error: ${visibleText(error.message)}`);
  const newServer = (): McpServer => daemon.newServer();
  const modern = createMcpHandler(newServer, { legacy: "reject", onerror });
  const legacy = new LegacySessions(newServer, onerror);
  const serveMcp = toNodeHandler(
    {
      fetch: async (request) =>
        (await isLegacyRequest(request)) ? legacy.fetch(request) : modern.fetch(request),
    },
    { onerror },
  );
  const guard = createGuard(address, port, token);
  const origin = `http://${displayHost(linkHost(address.host))}:${port}`;
  const web = createConsole({
    daemon,
    origin,
    isOwnOrigin: guard.isOwnOrigin,
    assetsDir: CONSOLE_ASSETS,
    version: options.version,
    pid: process.pid,
  });
  consoleLink = web.loginLink;
  let stopping = false;
  ready((req, res) => {
    if (stopping) {
      reply(res, 503, "Service Unavailable: conchd is stopping", { connection: "close" });
      return;
    }
    const rejection = guard.checkAddress(req);
    if (rejection !== null) {
      reply(res, rejection.status, rejection.message, rejection.headers);
      return;
    }
    const path = (req.url ?? "").split("?")[0];
    if (path !== MCP_PATH) {
      if (!web.handle(req, res)) {
        reply(res, 404, `Not Found: conchd serves MCP at ${MCP_PATH} and its console at /`, {});
      }
      return;
    }
    const unauthorized = guard.checkToken(req);
    if (unauthorized !== null) {
      reply(res, unauthorized.status, unauthorized.message, unauthorized.headers);
      return;
    }
    // The adapter's duck type spells `method?: string`, which exactOptionalPropertyTypes reads strictly.
    void serveMcp(req as NodeIncomingMessageLike, res);
  });
  readyUpgrade((req, socket, head) => {
    const rejection = stopping ? { status: 503, message: "conchd is stopping" } : guard.checkAddress(req);
    if (rejection !== null) {
      refuseUpgrade(socket, rejection.status, rejection.message);
      return;
    }
    if (!web.upgrade(req, socket, head)) refuseUpgrade(socket, 404, "Not Found: no WebSocket here");
  });
  say(`listening on http://${displayHost(address.host)}:${port}${MCP_PATH} (token: ${visibleText(source)})`);
  say(`console at ${web.loginLink()}`);

  await stopped;
  stopping = true;
  consoleLink = () => null;
  web.close();
  const closed = stopListening(server);
  await Promise.all([modern.close(), legacy.close()]);
  server.closeAllConnections();
  for (const socket of sockets) socket.destroy();
  await closed;
  await daemon.close();
  return 0;
}
