// The web console on conchd's HTTP port: the page at `/`, its bundled files under /console/assets/, its
// API under /console/api/ (take over, interrupt, kill; answers to approvals; recordings; spill files) and
// one WebSocket per tab at /console/api/ws, down which the tab follows everything live (the session
// list, the approvals, the audit log, the recordings, and the terminals it asks to watch). Every API
// request and the WebSocket need the session secret the page got for a login link (console-auth.ts),
// which no cookie carries: a browser sends cookies to every port of 127.0.0.1, and a page on another
// port cannot read this origin's memory or storage. Every request that changes anything, and opening
// the WebSocket, also need this server's Origin; a browser's Sec-Fetch-Site, when sent, must say
// same-origin.
import { randomBytes } from "node:crypto";
import { constants, createReadStream, fstatSync, openSync, readFileSync, realpathSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { join, sep } from "node:path";
import type { Duplex } from "node:stream";
import type { PendingVerdict } from "@conch/approval";
import type { Daemon } from "@conch/mcp";
import { listRecordings, recentAuditEntries } from "@conch/orchestrator";
import { expectedReceived } from "@conch/protocol";
import type { ConsoleSession } from "./console-auth.js";
import { ConsoleAuth, WEBSOCKET_PROTOCOL } from "./console-auth.js";
import { TerminalStream } from "./terminal-stream.js";
import { isWebSocketRequest, refuseUpgrade, WebSocketConnection } from "./websocket.js";

/** The console's files, built into dist/console-ui by build-console.mjs. */
const ASSETS: Readonly<Record<string, string>> = {
  "app.js": "text/javascript; charset=utf-8",
  "app.css": "text/css; charset=utf-8",
  "xterm.css": "text/css; charset=utf-8",
};
const MAX_BODY_BYTES = 64 * 1024;
// The audit entries the page starts with.
const RECENT_AUDIT = 500;
// How often the session list is sent again while sessions print (their last line and age move on).
const LIST_REFRESH_MS = 1000;
const NOTE_MAX_CHARS = 2000;
const RECORDING = /^\d+-\d{8}T\d{6}(?:\d{3})?Z\.cast$/;

const DECISIONS: Readonly<Record<string, PendingVerdict>> = {
  approve: { decision: "approve", scope: "once" },
  approve_session: { decision: "approve", scope: "session" },
  approve_always: { decision: "approve", scope: "always" },
};

class HttpError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

function securityHeaders(styleNonce: string | null): Record<string, string> {
  const styles = styleNonce === null ? "'self'" : `'self' 'nonce-${styleNonce}'`;
  return {
    "content-security-policy": [
      "default-src 'none'",
      "script-src 'self'",
      `style-src ${styles}`,
      "img-src 'self' data:",
      "font-src 'self'",
      "connect-src 'self'",
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
    ].join("; "),
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
  };
}

function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    ...securityHeaders(null),
    ...headers,
    "content-type": "application/json; charset=utf-8",
    "cache-control": "no-store",
  });
  res.end(JSON.stringify(body));
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new HttpError(413, `the request body is over ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  if (size === 0) return {};
  let value: unknown;
  try {
    value = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    throw new HttpError(400, "the request body is not JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new HttpError(400, "the request body must be a JSON object");
  }
  return value as Record<string, unknown>;
}

function sessionId(text: string | undefined): number {
  const id = Number(text);
  if (!Number.isSafeInteger(id) || id < 1)
    throw new HttpError(400, expectedReceived("session id", "a number", text));
  return id;
}

export interface ConsoleOptions {
  readonly daemon: Daemon;
  /** This server's origin as a browser names it (`http://127.0.0.1:PORT`), for the login link. */
  readonly origin: string;
  /** Whether a request's Origin header names this server (any of its own names). */
  readonly isOwnOrigin: (origin: string) => boolean;
  /** The built page and its files. */
  readonly assetsDir: string;
  readonly version: string;
  readonly pid: number;
}

export interface Console {
  /** A one-time login link (15 minutes), as printed and as `conch console` opens it. */
  loginLink(): string;
  /** Serves `req` when it is the console's (the page, its files, its API); false when it is not. */
  handle(req: IncomingMessage, res: ServerResponse): boolean;
  /** Opens a tab's WebSocket when `req` asks for the console's; false when it is not the console's. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean;
  /** Closes every tab's connection. */
  close(): void;
}

export function createConsole(options: ConsoleOptions): Console {
  const { daemon } = options;
  const { runtime, pending } = daemon;
  const orchestrator = runtime.orchestrator;
  const auth = new ConsoleAuth();
  const page = readFileSync(join(options.assetsDir, "index.html"), "utf8");
  const assets = new Map(
    Object.entries(ASSETS).map(([name, type]) => [
      name,
      { type, body: readFileSync(join(options.assetsDir, name)) },
    ]),
  );
  // Every open tab, with the session it signed in with (a logout closes its tabs).
  const tabs = new Map<WebSocketConnection, string>();
  const spillDir = orchestrator.spillStore?.dir ?? null;

  // What every open tab follows: the session list, the approvals, the audit log, the recordings.
  const broadcast = (event: string, data: () => unknown): void => {
    if (tabs.size === 0) return;
    const value = data();
    for (const tab of tabs.keys()) tab.send(event, value);
  };
  const sessionList = () => orchestrator.monitor.list().map((view) => ({ ...view, now: Date.now() }));
  const recordingList = () => (runtime.recordings === null ? [] : listRecordings(runtime.recordings));
  let outputSince = false;
  const stops = [
    orchestrator.monitor.onChange(() => {
      broadcast("sessions", sessionList);
      broadcast("recordings", recordingList);
    }),
    orchestrator.sessions.observe((event) => {
      if (event.type === "output") outputSince = true;
    }),
    pending.onChange(() => broadcast("approvals", () => pending.list())),
    runtime.audit.subscribe((entry) => broadcast("audit", () => entry)),
  ];
  // Each second: the list again when output came (the last lines), or when what waits for input changed
  // (a program starts or stops waiting without printing a byte).
  let waitingBefore = "";
  const refresh = setInterval(() => {
    if (tabs.size === 0) return;
    const list = sessionList();
    const waiting = JSON.stringify(list.map((view) => [view.id, view.waitingForInput]));
    if (!outputSince && waiting === waitingBefore) return;
    outputSince = false;
    waitingBefore = waiting;
    broadcast("sessions", () => list);
  }, LIST_REFRESH_MS);
  refresh.unref();

  const sameOriginOnly = (req: IncomingMessage): void => {
    const site = req.headers["sec-fetch-site"];
    if (site !== undefined && site !== "same-origin") {
      throw new HttpError(
        403,
        `Forbidden: a ${String(site)} request (the console answers its own page only)`,
      );
    }
  };

  const changing = (req: IncomingMessage): void => {
    const origin = req.headers.origin;
    if (origin === undefined || !options.isOwnOrigin(origin)) {
      throw new HttpError(403, `Forbidden: Origin ${JSON.stringify(origin ?? "")} is not this console's`);
    }
  };

  const requireSession = (req: IncomingMessage, websocket: boolean): ConsoleSession => {
    const session = auth.session(req.headers, websocket);
    if (session === null)
      throw new HttpError(
        401,
        "Unauthorized: no console session; open the login link conchd printed (or run conch console)",
      );
    return session;
  };

  async function api(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    query: URLSearchParams,
  ): Promise<void> {
    sameOriginOnly(req);
    const method = req.method ?? "GET";
    if (path === "login" && method === "POST") {
      changing(req);
      const body = await readJson(req);
      if (typeof body.secret !== "string")
        throw new HttpError(400, "secret: expected the login link's secret");
      const session = auth.login(body.secret);
      if (session === null)
        throw new HttpError(401, "Unauthorized: the login link is unknown, used or older than 15 minutes");
      // The one answer that carries the session secret: to a POST, which a page elsewhere cannot read.
      json(res, 200, { secret: session.secret });
      return;
    }
    const session = requireSession(req, false);
    if (method !== "GET") changing(req);
    const parts = path.split("/");
    if (method === "GET" && path === "state") {
      json(res, 200, {
        daemon: {
          pid: options.pid,
          version: options.version,
          cwd: orchestrator.cwd,
          profile: runtime.profile,
          approvalPolicy: orchestrator.approvalPolicy,
          sandbox: orchestrator.sandboxPolicy.mode,
        },
        sessions: sessionList(),
        approvals: pending.list(),
        audit: await recentAuditEntries(runtime.audit.path, RECENT_AUDIT),
        recordings: recordingList(),
      });
      return;
    }

    if (method === "POST" && path === "logout") {
      auth.logout(session);
      for (const [tab, secret] of tabs) if (secret === session.secret) tab.close();
      json(res, 200, { ok: true });
      return;
    }
    if (parts[0] === "sessions" && parts.length === 3) {
      await sessionApi(req, res, sessionId(parts[1]), parts[2] as string, method);
      return;
    }
    if (parts[0] === "approvals" && parts.length === 2 && method === "POST") {
      const body = await readJson(req);
      answerApproval(parts[1] as string, body);
      json(res, 200, { ok: true });
      return;
    }
    if (parts[0] === "recordings" && parts.length === 2 && method === "GET") {
      serveRecording(res, parts[1] as string, query.get("download") === "1");
      return;
    }
    if (path === "spill" && method === "GET") {
      serveSpill(res, query.get("path") ?? "");
      return;
    }
    throw new HttpError(404, `Not Found: no console API ${method} /console/api/${path}`);
  }

  async function sessionApi(
    req: IncomingMessage,
    res: ServerResponse,
    id: number,
    action: string,
    method: string,
  ): Promise<void> {
    const known = orchestrator.monitor.list().find((view) => view.id === id);
    if (known === undefined)
      throw new HttpError(404, `no session ${id} (it exited and was read, or was closed)`);
    if (method !== "POST") throw new HttpError(404, `Not Found: ${method} sessions/${id}/${action}`);
    const body = await readJson(req);
    const person = { by: "person" } as const;
    if (action === "dismiss") {
      if (!orchestrator.monitor.dismiss(id)) {
        throw new HttpError(409, `session ${id} is still running: only an ended session is dismissed`);
      }
      json(res, 200, { ok: true });
      return;
    }
    if (known.endedAt !== null) {
      throw new HttpError(
        409,
        `session ${id} has ended (exit code ${known.exitCode ?? "unknown"}): dismiss it`,
      );
    }
    switch (action) {
      case "input": {
        if (typeof body.data !== "string" || body.data === "") {
          throw new HttpError(400, "data: expected the characters to type, a non-empty string");
        }
        if (!known.tty)
          throw new HttpError(
            409,
            `session ${id} has no terminal: it takes no typing, only Interrupt or Kill`,
          );
        const running = orchestrator.sendToSession("console", id, body.data, person);
        json(res, 200, { running });
        return;
      }
      case "interrupt":
        json(res, 200, { running: orchestrator.signalSession("console", id, "SIGINT", person) });
        return;
      case "kill":
        await orchestrator.closeSession("console", id, person);
        json(res, 200, { ok: true });
        return;
      case "resize": {
        const { cols, rows } = body;
        for (const [name, value] of [
          ["cols", cols],
          ["rows", rows],
        ] as const) {
          if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > 1000) {
            throw new HttpError(400, expectedReceived(`${name}`, "an integer from 1 to 1000", value));
          }
        }
        orchestrator.sessions.resize(id, cols as number, rows as number);
        json(res, 200, { ok: true });
        return;
      }
      default:
        throw new HttpError(404, `Not Found: POST sessions/${id}/${action}`);
    }
  }

  function answerApproval(id: string, body: Record<string, unknown>): void {
    const { decision, note } = body;
    if (note !== undefined && (typeof note !== "string" || note.length > NOTE_MAX_CHARS)) {
      throw new HttpError(400, `note: expected a string of at most ${NOTE_MAX_CHARS} characters`);
    }
    let verdict: PendingVerdict;
    if (decision === "deny") {
      verdict =
        typeof note === "string" && note.trim() !== ""
          ? { decision: "deny", note: note.trim() }
          : { decision: "deny" };
    } else if (typeof decision === "string" && Object.hasOwn(DECISIONS, decision)) {
      verdict = DECISIONS[decision] as PendingVerdict;
    } else {
      throw new HttpError(
        400,
        expectedReceived("decision", "one of approve, approve_session, approve_always, deny", decision),
      );
    }
    const entry = pending.list().find((candidate) => candidate.id === id);
    if (entry === undefined)
      throw new HttpError(404, `no pending approval ${id} (answered already, or lapsed)`);
    if (decision === "approve_always" && entry.rule === null) {
      throw new HttpError(409, `approval ${id} cannot be allowed always: no rule may be stored for it`);
    }
    if (!pending.answer(id, verdict))
      throw new HttpError(404, `no pending approval ${id} (answered already, or lapsed)`);
  }

  function serveRecording(res: ServerResponse, name: string, download: boolean): void {
    if (runtime.recordings === null || !RECORDING.test(name))
      throw new HttpError(404, `no recording ${JSON.stringify(name)}`);
    serveFile(
      res,
      join(runtime.recordings, name),
      "application/x-asciicast; charset=utf-8",
      download ? name : null,
    );
  }

  function serveSpill(res: ServerResponse, path: string): void {
    if (spillDir === null || path === "") throw new HttpError(404, "no such spill file");
    let real: string;
    let dir: string;
    try {
      real = realpathSync(path);
      dir = realpathSync(spillDir);
    } catch {
      throw new HttpError(404, `no spill file ${JSON.stringify(path)}`);
    }
    if (!real.startsWith(`${dir}${sep}`))
      throw new HttpError(403, "Forbidden: that file is not a spill file of this conchd");
    serveFile(res, real, "text/plain; charset=utf-8", null);
  }

  function serveFile(res: ServerResponse, path: string, type: string, attachment: string | null): void {
    let fd: number;
    try {
      fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch {
      throw new HttpError(404, `no such file ${JSON.stringify(path)}`);
    }
    const stat = fstatSync(fd);
    if (!stat.isFile()) {
      createReadStream("", { fd }).destroy();
      throw new HttpError(404, `not a file: ${JSON.stringify(path)}`);
    }
    res.writeHead(200, {
      ...securityHeaders(null),
      "content-type": type,
      "content-length": String(stat.size),
      "cache-control": "no-store",
      ...(attachment === null ? {} : { "content-disposition": `attachment; filename="${attachment}"` }),
    });
    createReadStream("", { fd }).pipe(res);
  }

  /** One tab: the lists it follows, and the terminals it watches (`watch`/`unwatch` messages). */
  function openTab(req: IncomingMessage, socket: Duplex, head: Buffer, session: ConsoleSession): void {
    const terminals = new Map<number, TerminalStream>();
    const onMessage = (message: unknown): void => {
      const { type, id } = (typeof message === "object" && message !== null ? message : {}) as {
        type?: unknown;
        id?: unknown;
      };
      if (typeof id !== "number") return;
      terminals.get(id)?.stop();
      terminals.delete(id);
      if (type !== "watch") return;
      const view = orchestrator.monitor.list().find((candidate) => candidate.id === id);
      const stream = new TerminalStream(tab, orchestrator.monitor, id);
      if (view === undefined) {
        tab.send("terminal", { id, event: "removed" });
        return;
      }
      if (stream.start(view)) terminals.set(id, stream);
    };
    const tab = new WebSocketConnection(req, socket, head, onMessage, WEBSOCKET_PROTOCOL);
    tabs.set(tab, session.secret);
    tab.onClose(() => {
      tabs.delete(tab);
      for (const stream of terminals.values()) stream.stop();
    });
    tab.send("hello", { now: Date.now() });
  }

  return {
    loginLink: () => `${options.origin}/#login=${auth.mintLink()}`,
    upgrade(req, socket, head) {
      const url = new URL(req.url ?? "/", "http://conchd");
      if (url.pathname !== "/console/api/ws") return false;
      if (!isWebSocketRequest(req)) {
        refuseUpgrade(socket, 400, "expected a WebSocket handshake");
        return true;
      }
      let session: ConsoleSession;
      try {
        sameOriginOnly(req);
        changing(req);
        session = requireSession(req, true);
      } catch (error) {
        refuseUpgrade(socket, error instanceof HttpError ? error.status : 403, (error as Error).message);
        return true;
      }
      openTab(req, socket, head, session);
      return true;
    },
    handle(req, res) {
      const url = new URL(req.url ?? "/", "http://conchd");
      const path = url.pathname;
      if (path === "/" && (req.method === "GET" || req.method === "HEAD")) {
        const nonce = randomBytes(16).toString("base64");
        res.writeHead(200, {
          ...securityHeaders(nonce),
          "content-type": "text/html; charset=utf-8",
          "cache-control": "no-store",
        });
        res.end(page.replace("{{STYLE_NONCE}}", nonce));
        return true;
      }
      if (path.startsWith("/console/assets/") && req.method === "GET") {
        const asset = assets.get(path.slice("/console/assets/".length));
        if (asset === undefined) {
          json(res, 404, { error: "no such console file" });
          return true;
        }
        res.writeHead(200, {
          ...securityHeaders(null),
          "content-type": asset.type,
          "cache-control": "no-cache",
        });
        res.end(asset.body);
        return true;
      }
      if (!path.startsWith("/console/api/")) return false;
      api(req, res, path.slice("/console/api/".length), url.searchParams).catch((error: unknown) => {
        const status = error instanceof HttpError ? error.status : 500;
        const message = error instanceof Error ? error.message : String(error);
        if (res.headersSent) res.destroy();
        else json(res, status, { error: message });
      });
      return true;
    },
    close() {
      clearInterval(refresh);
      for (const stop of stops) stop();
      for (const tab of tabs.keys()) tab.close();
    },
  };
}
