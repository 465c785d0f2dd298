// Real conchd processes (dist/bin.js) and the SDKs' own clients: v2's @modelcontextprotocol/client, in
// both protocol eras, and the 2025-era @modelcontextprotocol/sdk 1.32. Each test gets a temp workspace
// and temp HOME/XDG dirs, so no user config, rules, audit log or state is read or written.
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  Client,
  type JSONRPCMessage,
  ReadBuffer,
  serializeMessage,
  type Transport,
} from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as V1StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema as V1ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

export const BIN: string = fileURLToPath(new URL("../dist/bin.js", import.meta.url));

export interface Workspace {
  /** Where conchd runs commands (`--cwd`). */
  readonly cwd: string;
  readonly env: Record<string, string>;
  remove(): void;
}

/** A temp workspace and home under `base` (the system's temp dir by default). */
export function makeWorkspace(base: string = tmpdir()): Workspace {
  const root = realpathSync(mkdtempSync(join(base, "conchd-test-")));
  const cwd = join(root, "work");
  const home = join(root, "home");
  for (const dir of [cwd, home]) mkdirSync(dir);
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_STATE_HOME: join(home, ".state"),
    XDG_CACHE_HOME: join(home, ".cache"),
    LANG: "C.UTF-8",
  };
  return { cwd, env, remove: () => rmSync(root, { recursive: true, force: true }) };
}

/** A tool as tools/list gives it, the fields the tests read. */
interface ListedTool {
  readonly name: string;
  readonly description?: string | undefined;
  readonly inputSchema: Record<string, unknown>;
  readonly outputSchema?: Record<string, unknown> | undefined;
  readonly annotations?: Record<string, unknown> | undefined;
}

/** A tools/call result, the fields the tests read. */
export interface CallResult {
  readonly content: readonly { type: string; text?: string }[];
  readonly structuredContent?: Record<string, unknown> | undefined;
  readonly isError?: boolean | undefined;
}

/** One connected client, whichever SDK it is. */
export interface Connection {
  listTools(): Promise<readonly ListedTool[]>;
  /** `onprogress` asks for progress notifications (the client sends a progressToken). */
  callTool(
    name: string,
    args: Record<string, unknown>,
    extra?: { onprogress?: (progress: { progress: number; message?: string | undefined }) => void },
  ): Promise<CallResult>;
  close(): Promise<void>;
  /** The conchd process. */
  readonly pid: number;
  /** What conchd wrote to stderr so far. */
  stderr(): string;
}

export const CLIENTS = ["v2 (2025-11-25)", "v2 (2026-07-28)", "sdk 1.32 (2025-11-25)"] as const;
export type ClientKind = (typeof CLIENTS)[number];

const CLIENT_INFO = { name: "conchd-test", version: "0.0.0" };
const CALL_TIMEOUT_MS = 30_000;

/** `text` of the first content block, which is where conchd puts the model's text. */
export function textOf(result: CallResult): string {
  const [first] = result.content;
  if (first?.type !== "text" || typeof first.text !== "string") {
    throw new Error(`expected a text block, received ${JSON.stringify(result.content)}`);
  }
  return first.text;
}

/** What a test's person answers to a form conchd shows through the client. */
export interface ElicitAnswer {
  readonly action: "accept" | "decline" | "cancel";
  readonly content?: Record<string, string | number | boolean>;
}

/** The form as the client received it. */
export interface ElicitParams {
  readonly message: string;
  readonly requestedSchema: Record<string, unknown>;
}

export interface ConnectOptions {
  /**
   * Declares form elicitation and answers each form with this; without it the client declares none
   * (as Claude Desktop, Gemini CLI or Cline), and conchd falls back to out-of-band approvals.
   */
  readonly elicit?: (params: ElicitParams, signal: AbortSignal) => Promise<ElicitAnswer>;
  /** How long one tools/call may take (default 30 s). */
  readonly timeoutMs?: number;
}

/** Starts `conchd ARGS` in the workspace and connects a client of `kind` over its stdio. */
export async function connect(
  kind: ClientKind,
  workspace: Workspace,
  args: readonly string[],
  options: ConnectOptions = {},
): Promise<Connection> {
  const timeout = options.timeoutMs ?? CALL_TIMEOUT_MS;
  const capabilities = options.elicit === undefined ? {} : { capabilities: { elicitation: { form: {} } } };
  const params = {
    command: process.execPath,
    args: [BIN, "--cwd", workspace.cwd, ...args],
    env: workspace.env,
    cwd: workspace.cwd,
    stderr: "pipe" as const,
  };
  let stderr = "";
  if (kind === "sdk 1.32 (2025-11-25)") {
    const transport = new V1StdioClientTransport(params);
    transport.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    const client = new V1Client(CLIENT_INFO, capabilities);
    const elicit = options.elicit;
    if (elicit !== undefined) {
      client.setRequestHandler(V1ElicitRequestSchema, async (request, extra) => ({
        ...(await elicit(request.params as unknown as ElicitParams, extra.signal)),
      }));
    }
    await client.connect(transport);
    return {
      listTools: async () => (await client.listTools()).tools as ListedTool[],
      callTool: async (name, args, extra = {}) =>
        (await client.callTool({ name, arguments: args }, undefined, { timeout, ...extra })) as CallResult,
      close: () => client.close(),
      pid: transport.pid ?? -1,
      stderr: () => stderr,
    };
  }
  const transport = new StdioClientTransport(params);
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const client = new Client(CLIENT_INFO, {
    ...capabilities,
    ...(kind === "v2 (2026-07-28)" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {}),
  });
  const elicit = options.elicit;
  if (elicit !== undefined) {
    client.setRequestHandler("elicitation/create", async (request, ctx) => ({
      ...(await elicit(request.params as unknown as ElicitParams, ctx.mcpReq.signal)),
    }));
  }
  await client.connect(transport);
  return {
    listTools: async () => (await client.listTools()).tools as ListedTool[],
    callTool: async (name, args, extra = {}) =>
      (await client.callTool({ name, arguments: args }, { timeout, ...extra })) as CallResult,
    close: () => client.close(),
    pid: transport.pid ?? -1,
    stderr: () => stderr,
  };
}

/**
 * conchd spawned here, so the test sees its exit code, and spoken to by the v2 Client through a
 * minimal transport over the child's pipes (the SDK's own stdio transport hides the exit code).
 */
export interface OwnedDaemon {
  readonly client: Client;
  readonly child: ChildProcessWithoutNullStreams;
  /** Resolves with the exit code (or the signal's name) when conchd exits. */
  readonly exited: Promise<number | string>;
  stderr(): string;
}

class ChildTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #buffer = new ReadBuffer();

  constructor(child: ChildProcessWithoutNullStreams) {
    this.#child = child;
  }

  async start(): Promise<void> {
    this.#child.stdout.on("data", (chunk: Buffer) => {
      this.#buffer.append(chunk);
      for (let message = this.#buffer.readMessage(); message !== null; message = this.#buffer.readMessage()) {
        this.onmessage?.(message);
      }
    });
    this.#child.on("close", () => this.onclose?.());
  }

  async send(message: JSONRPCMessage): Promise<void> {
    this.#child.stdin.write(serializeMessage(message));
  }

  async close(): Promise<void> {
    this.#child.stdin.end();
  }
}

export async function startOwned(workspace: Workspace, args: readonly string[]): Promise<OwnedDaemon> {
  const child = spawn(process.execPath, [BIN, "--cwd", workspace.cwd, ...args], {
    cwd: workspace.cwd,
    env: workspace.env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const exited = new Promise<number | string>((resolve) => {
    child.on("exit", (code, signal) => resolve(code ?? signal ?? "unknown"));
  });
  const client = new Client(CLIENT_INFO);
  await client.connect(new ChildTransport(child));
  return { client, child, exited, stderr: () => stderr };
}

/** Every live descendant of `pid`, read from /proc. */
export function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue;
    }
    // The command name (field 2) may hold spaces and parentheses: the fields after it follow the last ")".
    const [, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const list = children.get(Number(ppid)) ?? [];
    list.push(Number(entry));
    children.set(Number(ppid), list);
  }
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift() as number) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

/** Whether `pid` is still a process that runs (a zombie waiting for its reaper does not). */
export function isAlive(pid: number): boolean {
  if (!existsSync(`/proc/${pid}`)) return false;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

/** Starts `bash --norc` on a terminal through `exec_command` and returns its session id. */
export async function openShell(connection: Connection): Promise<number> {
  const started = await connection.callTool("exec_command", {
    cmd: "bash --norc",
    tty: true,
    yield_time_ms: 500,
  });
  const id = started.structuredContent?.session_id;
  if (typeof id !== "number") throw new Error(`no session: ${textOf(started)}`);
  return id;
}

/**
 * Writes `chars` to a session, then polls it (a model's way: an answer settles on quiet output) until
 * the text holds `want` or `rounds` calls have gone; the text of every call, joined by line ends.
 */
export async function typeUntil(
  connection: Connection,
  sessionId: number,
  chars: string,
  want: string,
  rounds = 10,
): Promise<string> {
  let text = "";
  for (let round = 0; round < rounds && !text.includes(want); round++) {
    const polled = await connection.callTool("write_stdin", {
      session_id: sessionId,
      chars: round === 0 ? chars : "",
      yield_time_ms: round === 0 ? 1000 : 2000,
    });
    text += `${textOf(polled)}\n`;
  }
  return text;
}

/** Closes the client, which makes conchd stop on its own (stdin ended), and waits until it has. */
export async function stopGracefully(connection: Connection): Promise<void> {
  await connection.close();
  for (let round = 0; round < 100 && isAlive(connection.pid); round++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (isAlive(connection.pid)) throw new Error(`conchd ${connection.pid} did not stop`);
}
