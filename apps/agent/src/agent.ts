// The agent's side of conch-exec/1: processes and terminal sessions (unified-exec) under the Linux
// sandbox (sandbox-linux), each with a ring of numbered output. It holds no policy: conchd decided
// before `process/start`; the agent only refuses what it cannot enforce (fail closed).
import type { KeyObject } from "node:crypto";
import { randomUUID } from "node:crypto";
import { closeSync, openSync } from "node:fs";
import {
  EXEC_PROTOCOL_VERSION,
  type ExecCapabilities,
  type InitializeParams,
  type InitializeResult,
  type ProcessEntry,
  type ProcessReadParams,
  type ProcessReadResult,
  type ProcessStartParams,
  type ProcessWriteParams,
  type ProcessWriteStatus,
} from "@conch/protocol";
import {
  createSandboxRegistry,
  isLikelySandboxDenied,
  prepareSandbox,
  type SandboxPolicy,
  type SandboxRegistry,
} from "@conch/sandbox-core";
import { createLandlockBackend, createLinuxBackend, createLinuxBackends } from "@conch/sandbox-linux";
import { SessionStore } from "@conch/unified-exec";
import { bindingRefusal } from "./binding.js";
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
}

interface Entry {
  readonly processId: string;
  storeId: number;
  readonly tty: boolean;
  readonly ring: OutputRing;
  readonly writes: WriteIds;
  /** The end of the output, for the denial check at the exit. */
  tail: string;
  exitCode: number | null;
  sandboxDenied: boolean;
}

const MAX_WAIT_MS = 30_000;
const TAIL_CHARS = 8192;

export class ExecAgent {
  readonly #options: AgentOptions;
  readonly #store = new SessionStore({ maxSessions: 256 });
  readonly #byId = new Map<string, Entry>();
  readonly #byStore = new Map<number, Entry>();
  readonly #waiters = new Set<() => void>();
  readonly #registry: SandboxRegistry;
  #sessionId: string | null = null;

  constructor(options: AgentOptions) {
    this.#options = options;
    this.#registry =
      options.registry ?? createSandboxRegistry(createLinuxBackends("auto", { sharedNetwork: false }));
    this.#store.observe((event) => {
      const entry = this.#byStore.get(event.id);
      if (entry === undefined) return;
      if (event.type === "output") {
        entry.ring.push(event.data);
        entry.tail = (entry.tail + event.data.toString("utf8")).slice(-TAIL_CHARS);
      } else if (event.type === "exited") {
        entry.exitCode = event.exitCode;
        entry.sandboxDenied = isLikelySandboxDenied(event.exitCode, entry.tail, {
          session: true,
          exited: true,
        });
      }
      for (const wake of this.#waiters) wake();
    });
  }

  async initialize(params: InitializeParams): Promise<InitializeResult> {
    if (params.protocolVersion !== EXEC_PROTOCOL_VERSION) {
      throw new AgentError(
        "unsupported_protocol",
        `protocolVersion: expected ${EXEC_PROTOCOL_VERSION}, received ${JSON.stringify(params.protocolVersion)}`,
      );
    }
    const refused = bindingRefusal(params.binding, this.#options.bindingKey, this.#options.agentId);
    if (refused !== null) throw new AgentError("binding_refused", refused);
    this.#sessionId ??= randomUUID();
    return {
      sessionId: this.#sessionId,
      agentVersion: this.#options.version,
      capabilities: await capabilities(),
    };
  }

  async start(params: ProcessStartParams): Promise<{ processId: string }> {
    this.#initialized();
    if (this.#byId.has(params.processId)) {
      throw new AgentError(
        "process_exists",
        `processId: ${JSON.stringify(params.processId)} is already in use`,
      );
    }
    const policy: SandboxPolicy =
      params.sandbox.mode === "read-only"
        ? { mode: "read-only" }
        : {
            mode: "workspace-write",
            writableRoots: [...(params.sandbox.writableRoots ?? [])],
            networkAccess: params.sandbox.network,
          };
    let hook: ReturnType<Awaited<ReturnType<typeof prepareSandbox>>["spawnHook"]>;
    try {
      const sandbox = await prepareSandbox(policy, params.cwd, this.#registry);
      hook = sandbox.spawnHook({ tty: params.tty });
    } catch (error) {
      // Fail closed: nothing runs with less than the sandbox asked for.
      throw new AgentError("sandbox_unavailable", (error as Error).message);
    }
    if (hook === null) throw new AgentError("sandbox_unavailable", "no sandbox for this intent");
    const entry: Entry = {
      processId: params.processId,
      storeId: -1,
      tty: params.tty,
      ring: new OutputRing(this.#options.ringBytes ?? 4 * 1024 * 1024),
      writes: new WriteIds(),
      tail: "",
      exitCode: null,
      sandboxDenied: false,
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
        prepare: hook,
        wrapped: true,
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
    return { processId: params.processId };
  }

  /** Output after `afterSeq`; waits up to `waitMs` when there is none yet and the process runs. */
  async read(params: ProcessReadParams): Promise<ProcessReadResult> {
    const entry = this.#entry(params.processId);
    const deadline = Date.now() + Math.min(Math.max(params.waitMs ?? 0, 0), MAX_WAIT_MS);
    for (;;) {
      const read = entry.ring.read(params.afterSeq);
      if (read.chunks.length > 0 || entry.exitCode !== null || Date.now() >= deadline) {
        return {
          chunks: read.chunks.map((chunk) => ({ seq: chunk.seq, data: chunk.data.toString("base64") })),
          nextSeq: read.nextSeq,
          exited: entry.exitCode !== null,
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
    const name = { interrupt: "SIGINT", terminate: "SIGTERM", kill: "SIGKILL" }[
      params.signal
    ] as NodeJS.Signals;
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

  async terminate(params: { processId: string }): Promise<{ running: boolean }> {
    const entry = this.#entry(params.processId);
    await this.#store.close(entry.storeId);
    return { running: false };
  }

  ack(params: { processId: string; seq: number }): void {
    this.#entry(params.processId).ring.ack(params.seq);
  }

  list(): { processes: ProcessEntry[] } {
    this.#initialized();
    return {
      processes: [...this.#byId.values()].map((entry) => ({
        processId: entry.processId,
        tty: entry.tty,
        running: entry.exitCode === null,
        exitCode: entry.exitCode,
        nextSeq: entry.ring.nextSeq,
      })),
    };
  }

  /** Ends every process (the agent is stopping). */
  async close(): Promise<void> {
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

/** What this host lets the agent enforce. */
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
