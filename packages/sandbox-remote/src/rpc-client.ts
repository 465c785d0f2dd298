// conchd's side of a conch-exec/1 connection: JSON-RPC 2.0 calls and the agent's notifications, over a
// WebSocket (a TCP address or a unix socket) or over the stdio of a command (ssh, a container's exec).
import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { WebSocket } from "ws";
import { RemoteError } from "./errors.js";

/** One connection's messages, whatever carries them. */
interface Channel {
  send(text: string): void;
  close(): void;
}

type Pending = { resolve: (value: unknown) => void; reject: (error: Error) => void; timer: NodeJS.Timeout };

/** A call the agent has not answered in this long means the agent (or the way to it) is gone. */
const CALL_TIMEOUT_MS = 60_000;
/** A WebSocket peer is pinged this often; one that has said nothing for two beats is gone. */
const HEARTBEAT_MS = 15_000;

/** An agent's refusal of a call: its code (`binding_refused`, `sandbox_unavailable`, ...) and words. */
export class AgentCallError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = "AgentCallError";
    this.code = code;
  }
}

export class RpcClient {
  readonly #channel: Channel;
  readonly #pending = new Map<number, Pending>();
  readonly #listeners = new Set<(method: string, params: Record<string, unknown>) => void>();
  #next = 1;
  #lost: Error | null = null;
  readonly #closeListeners = new Set<(error: Error) => void>();

  private constructor(open: (client: RpcClient) => Channel) {
    this.#channel = open(this);
  }

  /** A connection to the agent at `url`: `ws://HOST:PORT` or `unix:/PATH` (WebSocket either way). */
  static async connect(url: string, timeoutMs = 10_000): Promise<RpcClient> {
    const target = url.startsWith("unix:") ? `ws+unix:${url.slice("unix:".length)}:/` : url;
    if (!/^ws:\/\/|^ws\+unix:\//.test(target)) {
      throw new RemoteError(
        "INVALID_REMOTE",
        `remote_url: expected ws://HOST:PORT or unix:/PATH, received ${url}`,
      );
    }
    const socket = new WebSocket(target, { handshakeTimeout: timeoutMs, maxPayload: 64 * 1024 * 1024 });
    await new Promise<void>((resolve, reject) => {
      socket.once("open", () => resolve());
      socket.once("error", (error) =>
        reject(
          new RemoteError("AGENT_UNREACHABLE", `the agent at ${url} cannot be reached: ${error.message}`),
        ),
      );
    });
    return new RpcClient((client) => {
      // A peer that vanished without a word (a node powered off, a partition) closes nothing: pinged, it
      // is found out once it has said nothing (no pong, no message) for two beats.
      let silentBeats = 0;
      socket.on("message", (data, isBinary) => {
        silentBeats = 0;
        if (!isBinary) client.#receive(data.toString());
      });
      socket.on("error", () => {});
      socket.on("pong", () => {
        silentBeats = 0;
      });
      const heartbeat = setInterval(() => {
        if (++silentBeats >= 2) {
          client.#closed(
            new Error(`the agent at ${url} stopped answering (nothing in ${(2 * HEARTBEAT_MS) / 1000} s)`),
          );
          socket.terminate();
          return;
        }
        socket.ping();
      }, HEARTBEAT_MS);
      heartbeat.unref();
      socket.once("close", () => {
        clearInterval(heartbeat);
        client.#closed(new Error(`the connection to ${url} closed`));
      });
      return {
        send: (text) => socket.send(text),
        close: () => socket.terminate(),
      };
    });
  }

  /** A connection over the stdio of `argv` (which must speak conch-exec/1 there, a message a line). */
  static spawn(argv: readonly string[]): RpcClient {
    const [file, ...args] = argv as [string, ...string[]];
    const child: ChildProcess = spawn(file, args, { stdio: ["pipe", "pipe", "inherit"] });
    return new RpcClient((client) => {
      const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
      lines.on("line", (line) => client.#receive(line));
      child.once("error", (error) => client.#closed(new Error(`${file} did not start: ${error.message}`)));
      child.once("exit", (code, signal) =>
        client.#closed(new Error(`the agent command ${file} ended (${signal ?? `exit code ${code}`})`)),
      );
      child.stdin?.on("error", () => {});
      return {
        send: (text) => {
          child.stdin?.write(`${text}\n`);
        },
        close: () => {
          child.stdin?.end();
        },
      };
    });
  }

  /** Why the connection is gone, or null while it is open. */
  get lost(): Error | null {
    return this.#lost;
  }

  /** Calls `method`; no answer within `timeoutMs` ends the connection (the agent is taken for gone). */
  call<T>(method: string, params: object, timeoutMs: number = CALL_TIMEOUT_MS): Promise<T> {
    if (this.#lost !== null) {
      return Promise.reject(new RemoteError("AGENT_LOST", `the agent is gone: ${this.#lost.message}`));
    }
    const id = this.#next++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#channel.close();
        this.#closed(new Error(`${method} had no answer in ${Math.round(timeoutMs / 1000)} s`));
      }, timeoutMs);
      timer.unref();
      this.#pending.set(id, { resolve: resolve as (value: unknown) => void, reject, timer });
      this.#channel.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    });
  }

  onNotification(listener: (method: string, params: Record<string, unknown>) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Called once, when the connection is gone (`close` included). */
  onClose(listener: (error: Error) => void): void {
    if (this.#lost !== null) listener(this.#lost);
    else this.#closeListeners.add(listener);
  }

  close(): void {
    this.#channel.close();
    this.#closed(new Error("closed by conchd"));
  }

  #receive(text: string): void {
    let message: {
      id?: unknown;
      method?: unknown;
      params?: unknown;
      result?: unknown;
      error?: { message?: unknown; data?: { code?: unknown } };
    };
    try {
      message = JSON.parse(text) as typeof message;
    } catch {
      return;
    }
    if (typeof message.method === "string" && message.id === undefined) {
      for (const listener of this.#listeners) {
        listener(message.method, (message.params ?? {}) as Record<string, unknown>);
      }
      return;
    }
    if (typeof message.id !== "number") return;
    const pending = this.#pending.get(message.id);
    if (pending === undefined) return;
    this.#pending.delete(message.id);
    clearTimeout(pending.timer);
    if (message.error !== undefined) {
      const code = typeof message.error.data?.code === "string" ? message.error.data.code : "error";
      pending.reject(new AgentCallError(code, String(message.error.message ?? "the agent refused")));
    } else {
      pending.resolve(message.result);
    }
  }

  #closed(error: Error): void {
    if (this.#lost !== null) return;
    this.#lost = error;
    for (const { reject, timer } of this.#pending.values()) {
      clearTimeout(timer);
      reject(new RemoteError("AGENT_LOST", `the agent is gone: ${error.message}`));
    }
    this.#pending.clear();
    for (const listener of this.#closeListeners) listener(error);
    this.#closeListeners.clear();
  }
}
