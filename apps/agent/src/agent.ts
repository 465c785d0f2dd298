// The agent's side of conch-exec/1: processes and terminal sessions (unified-exec) under the Linux
// sandbox (sandbox-linux), each with a ring of numbered output. It holds no policy: conchd decided
// before `process/start`; the agent only refuses what it cannot enforce (fail closed).
import type { KeyObject } from "node:crypto";
import { randomUUID } from "node:crypto";
import { closeSync, openSync, realpathSync } from "node:fs";
import {
  EXEC_PROTOCOL_VERSION,
  type ExecCapabilities,
  type InitializeParams,
  type InitializeResult,
  type ProcessEntry,
  type ProcessReadParams,
  type ProcessReadResult,
  type ProcessStartParams,
  type ProcessStartResult,
  type ProcessWriteParams,
  type ProcessWriteStatus,
} from "@conch/protocol";
import {
  createSandboxRegistry,
  isLikelySandboxDenied,
  isSandboxError,
  prepareSandbox,
  type SandboxPolicy,
  type SandboxRegistry,
} from "@conch/sandbox-core";
import { createLandlockBackend, createLinuxBackend, createLinuxBackends } from "@conch/sandbox-linux";
import { SessionStore } from "@conch/unified-exec";
import { bindingExpiry, bindingRefusal, UsedBindings } from "./binding.js";
import { OutputRing } from "./output-ring.js";
import { WriteIds } from "./write-ids.js";

/** An error the caller gets as a JSON-RPC error with this `code` in its data. */
export class AgentError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

export interface AgentOptions {
  readonly agentId: string;
  /** conchd's public key: `initialize` refuses a binding it did not sign. */
  readonly bindingKey: KeyObject;
  readonly version: string;
  /** Bytes of output kept per process until acknowledged (default 4 MiB). */
  readonly ringBytes?: number;
  /** The sandboxes this agent may use; the Linux ones by default. */
  readonly registry?: SandboxRegistry;
  /**
   * How long processes and their unacknowledged output are kept once no conchd is attached (ms; default
   * 10 minutes): a conchd that restarts within it finds them again. Then they are ended.
   */
  readonly keepMs?: number;
}

/** Where notifications go: the one connection attached to the agent's session. */
export type Notify = (method: string, params: unknown) => void;

/** One connection to the agent: what it may call, and its end. */
export interface AgentConnection {
  call(method: string, params: unknown): Promise<unknown>;
  /** Whether `initialize` succeeded on this connection. */
  readonly initialized: boolean;
  /** The connection is gone: the session is kept for `keepMs`, then its processes end. */
  closed(): void;
}

export const DEFAULT_KEEP_MS: number = 10 * 60 * 1000;

interface Entry {
  readonly processId: string;
  readonly workspace: string;
  storeId: number;
  readonly tty: boolean;
  readonly ring: OutputRing;
  readonly writes: WriteIds;
  /** The end of the output, for the denial check at the exit. */
  tail: string;
  exitCode: number | null;
  sandboxDenied: boolean;
  /** Ended by `process/terminate`: dropped once its output is acknowledged to the end. */
  released: boolean;
  /** Its output is not taken until a read drains the ring (see OutputRing.backlogged). */
  paused: boolean;
}

const SIGNALS: ReadonlyMap<unknown, NodeJS.Signals> = new Map([
  ["interrupt", "SIGINT"],
  ["terminate", "SIGTERM"],
  ["kill", "SIGKILL"],
]);

/**
 * Variables the launcher (bwrap, the helper, unshare: programs of this machine started outside the
 * sandbox) would act on before the sandbox holds: the dynamic loader's and glibc's. A process's `env`
 * may not set them.
 */
const LAUNCHER_VARIABLES =
  /^(?:LD_.*|GCONV_PATH|GLIBC_TUNABLES|LOCPATH|NLSPATH|MALLOC_.*|HOSTALIASES|RESOLV_HOST_CONF|TZDIR)$/;

const MAX_WAIT_MS = 30_000;
const MAX_READ_BYTES = 1024 * 1024;
const TAIL_CHARS = 8192;

function nonNegativeInteger(value: unknown, field: string): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw new AgentError(
      "invalid_params",
      `${field}: expected an integer of 0 or more, received ${JSON.stringify(value)}`,
    );
  }
  return value;
}

function positiveInteger(value: unknown, field: string): number {
  if (nonNegativeInteger(value, field) === 0) {
    throw new AgentError("invalid_params", `${field}: expected an integer of 1 or more, received 0`);
  }
  return value as number;
}

/** Names the first field of `process/start` that is not what it must be. */
function checkStart(params: ProcessStartParams): void {
  const bad = (field: string, expected: string, value: unknown): never => {
    throw new AgentError(
      "invalid_params",
      `${field}: expected ${expected}, received ${JSON.stringify(value) ?? "nothing"}`,
    );
  };
  if (typeof params.processId !== "string" || params.processId === "")
    bad("processId", "a non-empty string", params.processId);
  if (
    !Array.isArray(params.argv) ||
    params.argv.length === 0 ||
    !params.argv.every((arg) => typeof arg === "string")
  ) {
    bad("argv", "a non-empty array of strings", params.argv);
  }
  if (typeof params.cwd !== "string" || !params.cwd.startsWith("/"))
    bad("cwd", "an absolute path", params.cwd);
  if (typeof params.tty !== "boolean") bad("tty", "true or false", params.tty);
  if (
    params.env !== undefined &&
    (typeof params.env !== "object" ||
      params.env === null ||
      !Object.values(params.env).every((v) => typeof v === "string"))
  ) {
    bad("env", "an object of strings", params.env);
  }
  const launcher = Object.keys(params.env ?? {}).find((name) => LAUNCHER_VARIABLES.test(name));
  if (launcher !== undefined) {
    bad(
      "env",
      "no variable the dynamic loader or glibc acts on (they would reach the launcher outside the sandbox)",
      launcher,
    );
  }
  const sandbox = params.sandbox as Partial<ProcessStartParams["sandbox"]> | undefined;
  if (typeof sandbox !== "object" || sandbox === null) bad("sandbox", "a sandbox intent object", sandbox);
  const intent = sandbox as Partial<ProcessStartParams["sandbox"]>;
  if (intent.mode !== "read-only" && intent.mode !== "workspace-write")
    bad("sandbox.mode", '"read-only" or "workspace-write"', intent.mode);
  if (typeof intent.workspace !== "string" || !intent.workspace.startsWith("/")) {
    bad("sandbox.workspace", "an absolute path", intent.workspace);
  }
  let canonical: string | null = null;
  try {
    canonical = realpathSync(intent.workspace as string);
  } catch {
    canonical = null;
  }
  if (canonical !== intent.workspace) {
    bad(
      "sandbox.workspace",
      "an existing directory named by its canonical path (no symlink, no ..)",
      intent.workspace,
    );
  }
  for (const field of ["writableRoots", "denyRead", "allowRead", "protect"] as const) {
    const list = intent[field];
    if (
      list !== undefined &&
      (!Array.isArray(list) || !list.every((path) => typeof path === "string" && path.startsWith("/")))
    ) {
      bad(`sandbox.${field}`, "an array of absolute paths", list);
    }
  }
  if (typeof intent.network !== "boolean") bad("sandbox.network", "true or false", intent.network);
  if (intent.fallback !== undefined && intent.fallback !== "pod") {
    bad("sandbox.fallback", '"pod" or nothing', intent.fallback);
  }
}

export class ExecAgent {
  readonly #options: AgentOptions;
  readonly #store = new SessionStore({ maxSessions: 256 });
  readonly #byId = new Map<string, Entry>();
  readonly #byStore = new Map<number, Entry>();
  readonly #waiters = new Set<() => void>();
  readonly #registry: SandboxRegistry;
  /** What this host lets the agent enforce: probed once, the first time it is asked. */
  #capabilities: Promise<ExecCapabilities> | null = null;
  #sessionId: string | null = null;
  /** The connection attached to the session (its notifications), or null while none is. */
  #attached: { notify: Notify } | null = null;
  /** The connection that attached (its own object), to tell it from another. */
  #attachedBy: object | null = null;
  #expiry: NodeJS.Timeout | null = null;
  readonly #usedBindings = new UsedBindings();

  constructor(options: AgentOptions) {
    this.#options = options;
    this.#registry =
      options.registry ?? createSandboxRegistry(createLinuxBackends("auto", { sharedNetwork: false }));
    this.#store.observe((event) => {
      const entry = this.#byStore.get(event.id);
      if (entry === undefined) return;
      if (event.type === "output") {
        const seq = entry.ring.push(event.data);
        // Output nobody has read yet fills the ring: the process waits (as on a terminal nobody reads)
        // rather than lose it; a read resumes it.
        if (!entry.paused && entry.ring.backlogged) {
          entry.paused = true;
          this.#store.pause(event.id);
        }
        entry.tail = (entry.tail + event.data.toString("utf8")).slice(-TAIL_CHARS);
        this.#attached?.notify("process/output", {
          processId: entry.processId,
          seq,
          data: event.data.toString("base64"),
        });
      } else if (event.type === "exited") {
        entry.exitCode = event.exitCode;
        entry.sandboxDenied = isLikelySandboxDenied(event.exitCode, entry.tail, {
          session: true,
          exited: true,
        });
        this.#attached?.notify("process/exited", {
          processId: entry.processId,
          exitCode: event.exitCode,
          nextSeq: entry.ring.nextSeq,
          sandboxDenied: entry.sandboxDenied,
        });
      }
      for (const wake of this.#waiters) wake();
    });
  }

  /** A new connection (a transport accepted it); nothing but `initialize` until it has called that. */
  connect(notify: Notify): AgentConnection {
    const self = { notify };
    let initialized = false;
    const methods: Record<string, (params: never) => unknown> = {
      "process/start": (params) => this.start(params),
      "process/read": (params) => this.read(params),
      "process/write": (params) => this.write(params),
      "process/signal": (params) => this.signal(params),
      "process/resize": (params) => this.resize(params),
      "process/terminate": (params) => this.terminate(params),
      "process/ack": (params) => this.ack(params),
      "process/list": () => this.list(),
    };
    return {
      get initialized() {
        return initialized;
      },
      call: async (method, params) => {
        if (typeof params !== "object" || params === null || Array.isArray(params)) {
          throw new AgentError("invalid_params", "params: expected an object");
        }
        if (method === "initialize") {
          const result = await this.initialize(params as InitializeParams, self);
          initialized = true;
          return result;
        }
        const run = methods[method];
        if (run === undefined) {
          throw Object.assign(new AgentError("method_not_found", `no method ${method}`), { rpcCode: -32601 });
        }
        if (!initialized || this.#attachedBy !== self) {
          throw new AgentError("not_initialized", "call initialize first (on this connection)");
        }
        return run(params as never);
      },
      closed: () => {
        if (this.#attachedBy !== self) return;
        this.#attached = null;
        this.#attachedBy = null;
        this.#keepUntilExpiry();
      },
    };
  }

  #keepUntilExpiry(): void {
    if (this.#expiry !== null) clearTimeout(this.#expiry);
    this.#expiry = setTimeout(() => {
      this.#expiry = null;
      if (this.#attachedBy !== null) return;
      // No conchd came back in time: the session ends with its processes.
      this.#sessionId = null;
      void this.#endAll();
    }, this.#options.keepMs ?? DEFAULT_KEEP_MS);
    this.#expiry.unref();
  }

  async #endAll(): Promise<void> {
    const entries = [...this.#byId.values()];
    this.#byId.clear();
    this.#byStore.clear();
    await Promise.allSettled(entries.map((entry) => this.#store.close(entry.storeId)));
  }

  async initialize(params: InitializeParams, connection: { notify: Notify }): Promise<InitializeResult> {
    if (params.protocolVersion !== EXEC_PROTOCOL_VERSION) {
      throw new AgentError(
        "unsupported_protocol",
        `protocolVersion: expected ${EXEC_PROTOCOL_VERSION}, received ${JSON.stringify(params.protocolVersion)}`,
      );
    }
    const refused = bindingRefusal(params.binding, this.#options.bindingKey, this.#options.agentId);
    if (refused !== null) throw new AgentError("binding_refused", refused);
    if (!this.#usedBindings.first(params.binding, bindingExpiry(params.binding))) {
      throw new AgentError(
        "binding_refused",
        "binding: this token was used already (each connection presents a fresh one)",
      );
    }
    if (this.#attachedBy !== null && this.#attachedBy !== connection) {
      // As Codex's exec-server: one connection drives a session; a second is refused while it lives.
      throw new AgentError("session_busy", "another connection is attached to this agent's session");
    }
    if (params.resumeSessionId !== undefined && params.resumeSessionId !== this.#sessionId) {
      throw new AgentError(
        "session_expired",
        `resumeSessionId: the session ${JSON.stringify(params.resumeSessionId)} is gone (its processes ended: no connection came back within ${this.#options.keepMs ?? DEFAULT_KEEP_MS} ms, or the agent restarted)`,
      );
    }
    const resumed = this.#sessionId !== null;
    this.#sessionId ??= randomUUID();
    this.#attached = params.notify === false ? { notify: () => {} } : connection;
    this.#attachedBy = connection;
    if (this.#expiry !== null) clearTimeout(this.#expiry);
    this.#expiry = null;
    return {
      sessionId: this.#sessionId,
      agentVersion: this.#options.version,
      capabilities: await this.#probed(),
      resumed,
      keepMs: this.#options.keepMs ?? DEFAULT_KEEP_MS,
    };
  }

  #probed(): Promise<ExecCapabilities> {
    this.#capabilities ??= capabilities();
    return this.#capabilities;
  }

  async start(params: ProcessStartParams): Promise<ProcessStartResult> {
    this.#initialized();
    checkStart(params);
    if (this.#byId.has(params.processId)) {
      throw new AgentError(
        "process_exists",
        `processId: ${JSON.stringify(params.processId)} is already in use`,
      );
    }
    const intent = params.sandbox;
    const policy: SandboxPolicy =
      intent.mode === "read-only"
        ? { mode: "read-only" }
        : {
            mode: "workspace-write",
            writableRoots: [...(intent.writableRoots ?? [])],
            networkAccess: intent.network,
          };
    let hook: ReturnType<Awaited<ReturnType<typeof prepareSandbox>>["spawnHook"]> = null;
    let ranIn: ProcessStartResult["sandbox"] = "pod";
    try {
      // Resolved for the session's workspace, never for the process's cwd: where a command starts
      // does not widen what it may write (as on conchd's own machine).
      const sandbox = await prepareSandbox(policy, intent.workspace, this.#registry, {
        ...(intent.denyRead === undefined ? {} : { denyRead: [...intent.denyRead] }),
        ...(intent.allowRead === undefined ? {} : { allowRead: [...intent.allowRead] }),
        ...(intent.protect === undefined ? {} : { protect: [...intent.protect] }),
      });
      hook = sandbox.spawnHook({ tty: params.tty });
      ranIn = sandbox.name === "landlock" ? "landlock" : "bwrap";
      if (hook === null) throw new Error("no sandbox for this intent");
    } catch (error) {
      // Fail closed: nothing runs with less than the sandbox asked for, unless conchd's operator chose the
      // pod as the sandbox, and only where no sandbox per command can run at all: no backend available
      // (not a policy this intent breaks), by what the agent found when it first looked.
      const noBackend = isSandboxError(error) && error.code === "SANDBOX_UNAVAILABLE";
      if (intent.fallback !== "pod" || !noBackend) {
        throw new AgentError("sandbox_unavailable", (error as Error).message);
      }
      // Both what it found first and what it finds now: a passing failure of one probe is not enough.
      const [first, now] = await Promise.all([this.#probed(), capabilities()]);
      if (first.bwrap || first.landlock || now.bwrap || now.landlock) {
        throw new AgentError("sandbox_unavailable", (error as Error).message);
      }
      if (process.getuid?.() === 0) {
        throw new AgentError(
          "sandbox_unavailable",
          `${(error as Error).message}; and the pod is the sandbox only for an agent that does not run as root there: run it as another user (a pod's runAsUser, a container's --user or its image's USER)`,
        );
      }
      hook = null;
      ranIn = "pod";
    }
    const entry: Entry = {
      processId: params.processId,
      workspace: intent.workspace,
      storeId: -1,
      tty: params.tty,
      ring: new OutputRing(this.#options.ringBytes ?? 4 * 1024 * 1024),
      writes: new WriteIds(),
      tail: "",
      exitCode: null,
      sandboxDenied: false,
      released: false,
      paused: false,
    };
    await this.#store.start(
      {
        argv: params.argv,
        command: params.argv.join(" "),
        cwd: params.cwd,
        // The agent's core variables (PATH, HOME, ...) and what conchd sends; nothing else of the agent's.
        env: { inherit: "core", set: { ...(params.env ?? {}) } },
        tty: params.tty,
        ...(params.cols === undefined ? {} : { cols: params.cols }),
        ...(params.rows === undefined ? {} : { rows: params.rows }),
        ...(hook === null ? {} : { prepare: hook, wrapped: true }),
        render: false,
      },
      0,
      {
        unclampedYield: true,
        keepAfterExit: true,
        onStored: (id) => {
          entry.storeId = id;
          this.#byId.set(params.processId, entry);
          this.#byStore.set(id, entry);
        },
      },
    );
    return { processId: params.processId, sandbox: ranIn };
  }

  /** Output after `afterSeq`; waits up to `waitMs` when there is none yet and the process runs. */
  async read(params: ProcessReadParams): Promise<ProcessReadResult> {
    const entry = this.#entry(params.processId);
    const deadline = Date.now() + Math.min(Math.max(params.waitMs ?? 0, 0), MAX_WAIT_MS);
    const afterSeq = nonNegativeInteger(params.afterSeq, "afterSeq");
    const maxBytes =
      params.maxBytes === undefined ? MAX_READ_BYTES : positiveInteger(params.maxBytes, "maxBytes");
    for (;;) {
      const read = entry.ring.read(afterSeq, maxBytes);
      if (entry.paused && !entry.ring.backlogged) {
        entry.paused = false;
        if (this.#store.has(entry.storeId)) this.#store.resume(entry.storeId);
      }
      if (read.chunks.length > 0 || entry.exitCode !== null || Date.now() >= deadline) {
        const whole = read.nextSeq >= entry.ring.nextSeq;
        return {
          chunks: read.chunks.map((chunk) => ({ seq: chunk.seq, data: chunk.data.toString("base64") })),
          nextSeq: read.nextSeq,
          // Exited once every chunk up to the exit has been read.
          exited: entry.exitCode !== null && whole,
          exitCode: entry.exitCode,
          sandboxDenied: entry.sandboxDenied,
          droppedBytes: read.droppedBytes,
        };
      }
      await new Promise<void>((resolve) => {
        const wake = (): void => {
          clearTimeout(timer);
          this.#waiters.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, Math.max(0, deadline - Date.now()));
        this.#waiters.add(wake);
      });
    }
  }

  write(params: ProcessWriteParams): { status: ProcessWriteStatus } {
    const entry = this.#entry(params.processId);
    if (!entry.writes.first(params.writeId)) return { status: "duplicate" };
    if (entry.exitCode !== null) throw new AgentError("process_exited", "the process has exited");
    const chars = Buffer.from(params.data, "base64").toString("utf8");
    try {
      this.#store.send(entry.storeId, chars);
    } catch (error) {
      throw new AgentError("stdin_closed", (error as Error).message);
    }
    return { status: "accepted" };
  }

  signal(params: { processId: string; signal: "interrupt" | "terminate" | "kill" }): void {
    const entry = this.#entry(params.processId);
    const name = SIGNALS.get(params.signal);
    if (name === undefined) {
      throw new AgentError(
        "invalid_params",
        `signal: expected interrupt, terminate or kill, received ${JSON.stringify(params.signal)}`,
      );
    }
    if (entry.exitCode === null) this.#store.signal(entry.storeId, name);
  }

  resize(params: { processId: string; cols: number; rows: number }): void {
    this.#store.resize(this.#entry(params.processId).storeId, params.cols, params.rows);
  }

  /**
   * Ends the process and everything it started; it is forgotten once its output is acknowledged to its
   * end (`process/ack`), so that output not yet read can still be.
   */
  async terminate(params: {
    processId: string;
  }): Promise<{ running: boolean; exitCode: number | null; nextSeq: number }> {
    const entry = this.#entry(params.processId);
    entry.released = true;
    await this.#store.close(entry.storeId);
    this.#forgetIfDone(entry);
    return { running: false, exitCode: entry.exitCode, nextSeq: entry.ring.nextSeq };
  }

  ack(params: { processId: string; seq: number }): void {
    const entry = this.#entry(params.processId);
    entry.ring.ack(nonNegativeInteger(params.seq, "seq"));
    this.#forgetIfDone(entry);
  }

  #forgetIfDone(entry: Entry): void {
    if (!entry.released || entry.exitCode === null || entry.ring.held > 0) return;
    this.#byId.delete(entry.processId);
    this.#byStore.delete(entry.storeId);
  }

  list(): { processes: ProcessEntry[] } {
    this.#initialized();
    return {
      processes: [...this.#byId.values()].map((entry) => ({
        processId: entry.processId,
        workspace: entry.workspace,
        tty: entry.tty,
        running: entry.exitCode === null,
        exitCode: entry.exitCode,
        nextSeq: entry.ring.nextSeq,
      })),
    };
  }

  /** Ends every process (the agent is stopping). */
  async close(): Promise<void> {
    if (this.#expiry !== null) clearTimeout(this.#expiry);
    this.#expiry = null;
    await this.#store.terminateAll();
  }

  #initialized(): void {
    if (this.#sessionId === null) throw new AgentError("not_initialized", "call initialize first");
  }

  #entry(processId: unknown): Entry {
    this.#initialized();
    const entry = typeof processId === "string" ? this.#byId.get(processId) : undefined;
    if (entry === undefined) {
      throw new AgentError("unknown_process", `processId: no process ${JSON.stringify(processId)}`);
    }
    return entry;
  }
}

/** What this host lets the agent enforce (see ExecAgent's cached copy). */
async function capabilities(): Promise<ExecCapabilities> {
  const [bwrap, landlock] = await Promise.all([
    createLinuxBackend({ sharedNetwork: false }).available(),
    createLandlockBackend().available(),
  ]);
  let pty = false;
  try {
    closeSync(openSync("/dev/ptmx", "r+"));
    pty = true;
  } catch {
    pty = false;
  }
  return { pty, bwrap: bwrap.available, landlock: landlock.available, seccomp: process.platform === "linux" };
}
