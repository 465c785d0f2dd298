// Real `conchd --http` processes (dist/bin.js on 127.0.0.1, port 0) and the SDKs' own Streamable HTTP
// clients, of the three kinds harness.ts speaks over stdio, with the token in `requestInit.headers`.
import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { BIN, type CallResult, type ClientKind, type Workspace } from "./harness.js";

const STARTUP_TIMEOUT_MS = 30_000;
const CALL_TIMEOUT_MS = 60_000;
const CLIENT_INFO = { name: "conchd-http-test", version: "0.0.0" };
const LISTENING = /^conchd: listening on (http:\/\/\S+) \(token: (.*)\)$/m;
const CONSOLE_LINE = /^conchd: console at \S+\n/m;

/** A conchd --http this test started, once its startup line is out. */
export interface HttpDaemon {
  readonly child: ChildProcessWithoutNullStreams;
  readonly pid: number;
  /** `http://127.0.0.1:PORT/mcp`, from the startup line. */
  readonly url: URL;
  readonly port: number;
  /** The startup line, without its newline. */
  readonly line: string;
  /** The token clients send: the token file's, or CONCH_TOKEN's. */
  readonly token: string;
  /** Resolves with the exit code (or the signal's name) when conchd exits. */
  readonly exited: Promise<number | string>;
  stderr(): string;
}

/** Starts `conchd --cwd WORKSPACE ARGS` (ARGS holding --http) and waits for its startup lines. */
export async function startHttp(
  workspace: Workspace,
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<HttpDaemon> {
  const child = spawn(process.execPath, [BIN, "--cwd", workspace.cwd, ...args], {
    cwd: workspace.cwd,
    env: { ...workspace.env, ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  const exited = new Promise<number | string>((resolve) => {
    child.on("exit", (code, signal) => resolve(code ?? signal ?? "unknown"));
  });
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`conchd printed no startup line in ${STARTUP_TIMEOUT_MS} ms; stderr: ${stderr}`));
    }, STARTUP_TIMEOUT_MS);
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
      const found = LISTENING.exec(stderr);
      // Ready once the console's login line is out too: it comes right after.
      if (found !== null && CONSOLE_LINE.test(stderr)) {
        clearTimeout(timer);
        resolve(found);
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`conchd exited (${code}) before listening; stderr: ${stderr}`));
    });
  });
  const url = new URL(match[1] as string);
  const source = match[2] as string;
  const token = source === "$CONCH_TOKEN" ? (env.CONCH_TOKEN as string) : readFileSync(source, "utf8").trim();
  return {
    child,
    pid: child.pid as number,
    url,
    port: Number(url.port),
    line: match[0],
    token,
    exited,
    stderr: () => stderr,
  };
}

/**
 * All a conchd --http says on stderr when nothing goes wrong: its startup line and its console's
 * one-time login link.
 */
export function quietStderr(daemon: HttpDaemon): RegExp {
  const line = daemon.line.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(
    `^${line}\nconchd: console at http://127\\.0\\.0\\.1:${daemon.port}/#login=[A-Za-z0-9_-]{43}\n$`,
  );
}

/** Runs a conchd that is expected to refuse to start, bounded, and returns how it ended. */
export function runConchd(
  workspace: Workspace,
  args: readonly string[],
  env: Record<string, string> = {},
): { status: number | null; stdout: string; stderr: string } {
  const { status, stdout, stderr } = spawnSync(process.execPath, [BIN, "--cwd", workspace.cwd, ...args], {
    cwd: workspace.cwd,
    env: { ...workspace.env, ...env },
    encoding: "utf8",
    input: "",
    timeout: STARTUP_TIMEOUT_MS,
    killSignal: "SIGKILL",
  });
  return { status, stdout, stderr };
}

/** One SDK client connected over HTTP. */
export interface HttpConnection {
  callTool(
    name: string,
    args: Record<string, unknown>,
    options?: { readonly signal?: AbortSignal },
  ): Promise<CallResult>;
  listTools(): Promise<readonly { readonly name: string }[]>;
  /** Aborts the fetch of every tools/call still in flight: a client going away mid-call. */
  dropCalls(): void;
  /** The MCP session (2025 era), which is not where conchd keeps its sessions. */
  sessionId(): string | undefined;
  close(): Promise<void>;
}

/**
 * `fetch`, keeping a handle on each tools/call POST so `dropCalls` can abort it. It is never the
 * SDK's own cancellation: over 2025-era HTTP that is a separate notifications/cancelled POST.
 */
function droppableFetch(): { fetch: typeof fetch; dropCalls(): void } {
  const calls = new Set<AbortController>();
  return {
    fetch: (url, init) => {
      if (typeof init?.body !== "string" || !init.body.includes('"method":"tools/call"')) {
        return fetch(url, init);
      }
      const controller = new AbortController();
      calls.add(controller);
      const signal =
        init.signal === undefined || init.signal === null
          ? controller.signal
          : AbortSignal.any([init.signal, controller.signal]);
      return fetch(url, { ...init, signal });
    },
    dropCalls: () => {
      for (const controller of calls) controller.abort(new Error("the test dropped the request"));
      calls.clear();
    },
  };
}

/** Connects a client of `kind` to `daemon`, sending `token` (the daemon's by default). */
export async function connectHttp(
  kind: ClientKind,
  daemon: HttpDaemon,
  token: string = daemon.token,
): Promise<HttpConnection> {
  const requestInit = { headers: { Authorization: `Bearer ${token}` } };
  const droppable = droppableFetch();
  if (kind === "sdk 1.32 (2025-11-25)") {
    const transport = new V1StreamableHTTPClientTransport(daemon.url, {
      requestInit,
      fetch: droppable.fetch,
    });
    const client = new V1Client(CLIENT_INFO);
    await client.connect(transport);
    return {
      callTool: async (name, args, options) =>
        (await client.callTool({ name, arguments: args }, undefined, {
          timeout: CALL_TIMEOUT_MS,
          ...options,
        })) as CallResult,
      listTools: async () => (await client.listTools()).tools,
      dropCalls: droppable.dropCalls,
      sessionId: () => transport.sessionId,
      close: () => client.close(),
    };
  }
  const transport = new StreamableHTTPClientTransport(daemon.url, { requestInit, fetch: droppable.fetch });
  const client = new Client(
    CLIENT_INFO,
    kind === "v2 (2026-07-28)" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {},
  );
  await client.connect(transport);
  return {
    callTool: async (name, args, options) =>
      (await client.callTool(
        { name, arguments: args },
        { timeout: CALL_TIMEOUT_MS, ...options },
      )) as CallResult,
    listTools: async () => (await client.listTools()).tools,
    dropCalls: droppable.dropCalls,
    sessionId: () => transport.sessionId,
    close: () => client.close(),
  };
}

/** A raw response: what plain `fetch` cannot send (a Host header of the test's choosing) goes here. */
export interface RawResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: string;
}

/** One HTTP request to 127.0.0.1:`port` with exactly `headers`, over node:http. */
export function rawRequest(
  port: number,
  options: { method: string; path: string; headers: Record<string, string>; body?: string },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: "127.0.0.1", port, method: options.method, path: options.path, headers: options.headers },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          body += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.setTimeout(CALL_TIMEOUT_MS, () => req.destroy(new Error("request timed out")));
    req.end(options.body);
  });
}

/** A 2025-era initialize, as a JSON-RPC body. */
export const INITIALIZE: string = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: CLIENT_INFO },
});

/** The headers a Streamable HTTP POST needs, and the token when given. */
export function postHeaders(token?: string): Record<string, string> {
  return {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
  };
}
