// MCP over Streamable HTTP, both protocol eras, behind the bearer token: the request handler a Node
// HTTP server hands the requests for MCP_PATH. Listening, the console and the process are the app's.
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
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
import type { Daemon } from "../daemon.js";
import { createGuard, type Guard, type HttpAddress, MCP_PATH } from "./http-guard.js";

/**
 * A 2025-era MCP session with no request or stream open for this long is closed: its client is gone (a
 * connected one holds its GET stream open, kept alive every 15 s). Conch's sessions are not touched.
 */
const LEGACY_SESSION_IDLE_MS = 60 * 60_000;
const LEGACY_SWEEP_MS = 60_000;
/** The MCP SDK's limit on a request body (its default). */
const MAX_BODY_BYTES = 4 << 20;
/** How much of a declared over-long body is read and discarded before the 413, so the client sees it. */
const DRAIN_MAX_BYTES = 16 << 20;
const DRAIN_MS = 10_000;

/**
 * 413 for a body declared over the limit. The rest of the body is read first (up to a bound): a server
 * that answers and closes with unread bytes resets the connection, and the client loses the answer
 * ("EPIPE", "socket hang up") instead of reading why.
 */
function refuseLongBody(req: IncomingMessage, res: ServerResponse, declared: number): void {
  const reply = (): void => {
    if (res.headersSent) return;
    replyError(res, 413, `Payload Too Large: Request body must not exceed ${MAX_BODY_BYTES} bytes`, {
      connection: "close",
    });
  };
  if (declared > DRAIN_MAX_BYTES) {
    reply();
    return;
  }
  const timer = setTimeout(() => {
    reply();
    req.destroy();
  }, DRAIN_MS);
  timer.unref();
  req.on("error", () => clearTimeout(timer));
  req.on("end", () => {
    clearTimeout(timer);
    reply();
  });
  req.resume();
}

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

/** Answers a request with a JSON-RPC error and `status` (no request id: it was never read). */
export function replyError(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Readonly<Record<string, string>> = {},
): void {
  res.writeHead(status, { ...headers, "content-type": "application/json" });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
}

/** How an HTTP server serves MCP. */
export interface McpHttpOptions {
  /** Where the server listens, and the port it got: the Host and Origin checks accept only these. */
  readonly address: Pick<HttpAddress, "host" | "loopback">;
  readonly port: number;
  /** The secret every MCP request must carry as `Authorization: Bearer TOKEN`. */
  readonly token: string;
  readonly onerror: (error: Error) => void;
}

/** MCP over Streamable HTTP for one daemon. */
export interface McpHttp {
  /** The Host, Origin and token checks (a console served beside MCP uses the first two). */
  readonly guard: Guard;
  /**
   * Serves `req` when its path is MCP_PATH, and says so: its token is checked, then MCP answers it
   * (2026-07-28 requests through the SDK's `createMcpHandler`, one server instance per request; 2025-era
   * clients in MCP sessions of their own). False, with nothing written, for any other path. The caller
   * has checked the address (`guard.checkAddress`) first, for every path.
   */
  handle(req: IncomingMessage, res: ServerResponse): boolean;
  /** Closes every MCP connection, aborting the calls in flight. The daemon is left to its owner. */
  close(): Promise<void>;
}

/**
 * MCP over HTTP for `daemon`. Every client with the token is one client: all share the daemon's one
 * runtime, so a client that reconnects (a new MCP session) finds its sessions by the session_id the
 * tools handed out.
 */
export function createMcpHttp(daemon: Daemon, options: McpHttpOptions): McpHttp {
  const { onerror } = options;
  const newServer = (): McpServer => daemon.newServer();
  const modern = createMcpHandler(newServer, { legacy: "reject", onerror });
  const legacy = new LegacySessions(newServer, onerror);
  const serve = toNodeHandler(
    {
      fetch: async (request) =>
        (await isLegacyRequest(request)) ? legacy.fetch(request) : modern.fetch(request),
    },
    { onerror },
  );
  const guard = createGuard(options.address, options.port, options.token);
  return {
    guard,
    handle(req, res) {
      if ((req.url ?? "").split("?")[0] !== MCP_PATH) return false;
      const unauthorized = guard.checkToken(req);
      if (unauthorized !== null) {
        replyError(res, unauthorized.status, unauthorized.message, unauthorized.headers);
        return true;
      }
      const declared = Number(req.headers["content-length"] ?? 0);
      if (declared > MAX_BODY_BYTES) {
        refuseLongBody(req, res, declared);
        return true;
      }
      // The adapter's duck type spells `method?: string`, which exactOptionalPropertyTypes reads strictly.
      void serve(req as NodeIncomingMessageLike, res);
      return true;
    },
    async close() {
      await Promise.all([modern.close(), legacy.close()]);
    },
  };
}
