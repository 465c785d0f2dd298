// The remote backend: a conch-agent runs the commands (on another host, in a container) under its own
// sandbox, which it refuses to start without (fail closed). conchd decided everything before: rules,
// approvals. The link to the agent is made when first needed and made again after a loss, resuming the
// agent's session, so processes and their unacknowledged output survive a dropped connection and a
// conchd restart (within the agent's keep time).
import { type KeyObject, randomUUID, sign } from "node:crypto";
import {
  EXEC_PROTOCOL_VERSION,
  type ExecCapabilities,
  type InitializeResult,
  isConchError,
  type ProcessEntry,
  type ProcessReadResult,
  type ProcessStartResult,
  type SandboxIntent,
} from "@conch/protocol";
import {
  type Availability,
  type HostExit,
  type HostProcess,
  type HostRead,
  type HostStartRequest,
  type ProcessHost,
  type RemoteSandboxBackend,
  SandboxError,
  type SandboxRules,
} from "@conch/sandbox-core";
import { isRemoteError, RemoteError } from "./errors.js";
import { AgentCallError, RpcClient } from "./rpc-client.js";

export interface AgentBackendOptions {
  /**
   * Where the agent is: `ws://HOST:PORT` or `unix:/PATH` (WebSocket), or a command (argv) whose stdio
   * speaks conch-exec/1 (`ssh HOST conch-agent --stdio ...`; a command's agent ends with the
   * connection, so only an address survives a conchd restart).
   */
  readonly endpoint: string | readonly string[] | AgentEndpoint;
  /** The agent's id, as it was started (`--agent-id`): the binding token names it. */
  readonly agentId: string;
  /** conchd's Ed25519 private key: it signs each connection's binding token. */
  readonly bindingKey: KeyObject;
  /** The backend's name (`CONCH_SANDBOX`, the result's `sandbox`): `agent` by default. */
  readonly name?: string;
  /** The agent session a conchd before a restart had: resumed, or `AGENT_LOST` if it has ended. */
  readonly resumeSessionId?: string;
  /**
   * The session a conchd before a restart had with agent `agentId`, looked up once per agent when the
   * endpoint names it (a claimed pod's agent is known only then): resumed like `resumeSessionId`.
   */
  readonly resumeFor?: (agentId: string) => string | undefined;
  /** Told the agent's session id (and the agent's id) whenever a connection is made: what a restarted conchd resumes. */
  readonly onSession?: (sessionId: string, agentId: string) => void;
  /** Where the public half of `bindingKey` is, for the fix an unreachable agent's refusal names. */
  readonly publicKeyPath?: string;
  /**
   * Where the agent can enforce neither bwrap nor Landlock (a pod under gVisor, a masked /proc): run
   * commands with the pod or container as their only sandbox, said in every result. Off by default: such
   * an agent then runs nothing (fail closed).
   */
  readonly podIsSandbox?: boolean;
}

/**
 * An agent that must be made (or found) before it is reached: a container started on first use. `url`
 * resolves with where it listens once it does; `where` names it in results meanwhile.
 */
export interface AgentEndpoint {
  readonly where: string;
  /** The address; with the agent's id when only finding it tells (a pod's name), else `agentId` is used. */
  url(): Promise<string | { readonly url: string; readonly agentId: string }>;
  /** What to throw when that address did not answer (e.g. that the pod is gone); default `error`. */
  unreachable?(error: Error): Promise<Error>;
}

/** The remote backend, with what a conchd that manages its agents needs besides. */
export interface AgentBackend extends RemoteSandboxBackend {
  readonly host: AgentHost;
  /** Closes the connection; the agent keeps the processes for its keep time. */
  close(): void;
  /**
   * Forgets the agent's session and connection: the agent is gone (a released pod), the next is new.
   * `note`: what the next command's result says of it.
   */
  reset(note?: string): void;
}

export interface AgentHost extends ProcessHost {
  /** What the agent said it can enforce, once connected. */
  capabilities(): Promise<ExecCapabilities>;
}

const BINDING_TTL_MS = 5 * 60 * 1000;
const READ_WAIT_MS = 25_000;
const READ_MAX_BYTES = 1024 * 1024;

/** A binding token for `agentId`, valid `ttlMs`: `PAYLOAD.SIGNATURE`, base64url each (Ed25519). */
export function signBinding(privateKey: KeyObject, agentId: string, ttlMs: number = BINDING_TTL_MS): string {
  const payload = Buffer.from(JSON.stringify({ agent: agentId, exp: Date.now() + ttlMs }));
  return `${payload.toString("base64url")}.${sign(null, payload, privateKey).toString("base64url")}`;
}

/**
 * What the agent must enforce for a command of the session whose workspace is `workspace`: the rules'
 * mode, writable roots, network, hidden paths (with their exceptions) and read-only paths, which it
 * resolves again on its own file system.
 */
export function sandboxIntent(rules: SandboxRules, workspace: string): SandboxIntent {
  if (rules.mode !== "read-only" && rules.mode !== "workspace-write") {
    throw new SandboxError(
      "SANDBOX_UNAVAILABLE",
      `a remote agent runs commands only sandboxed (read-only or workspace-write), not under ${rules.mode}: nothing ran`,
    );
  }
  const roots = rules.writableRoots.map((root) => root.root).filter((root) => root !== workspace);
  const protect = rules.writableRoots.flatMap((root) => root.readOnlySubpaths);
  const allowRead = rules.hidden.flatMap((hidden) => hidden.readable);
  return {
    mode: rules.mode,
    workspace,
    ...(rules.mode === "workspace-write" ? { writableRoots: roots } : {}),
    network: rules.network,
    denyRead: rules.hidden.map((hidden) => hidden.path),
    ...(allowRead.length === 0 ? {} : { allowRead }),
    ...(protect.length === 0 ? {} : { protect }),
  };
}

function describe(endpoint: AgentBackendOptions["endpoint"]): string {
  if (typeof endpoint === "string") return endpoint;
  return "where" in endpoint ? endpoint.where : `\`${endpoint.join(" ")}\``;
}

class AgentLink {
  readonly #options: AgentBackendOptions;
  #client: RpcClient | null = null;
  #connecting: Promise<{ client: RpcClient; init: InitializeResult }> | null = null;
  #init: InitializeResult | null = null;
  #sessionId: string | null;
  #closed = false;
  /** The agent's id: the configured one, or the one finding the endpoint told (a pod's name). */
  agentId: string;
  /** The agent whose earlier session was looked up (`resumeFor`), once each. */
  #lookedUp: string | null = null;
  /** Counts resets: a connection begun before one is not kept (it may reach the agent that is gone). */
  #generation = 0;

  constructor(options: AgentBackendOptions) {
    this.#options = options;
    this.#sessionId = options.resumeSessionId ?? null;
    this.agentId = options.agentId;
  }

  /** Forgets the connection and the session: the agent they were with is gone (a released pod). */
  reset(): void {
    this.#generation++;
    this.#client?.close();
    this.#client = null;
    this.#init = null;
    this.#sessionId = null;
  }

  get sessionId(): string | null {
    return this.#sessionId;
  }

  async initialized(): Promise<InitializeResult> {
    try {
      await this.#connection();
    } catch (error) {
      // A session that expired is said once; a fresh one is made at once.
      if (!isRemoteError(error) || error.code !== "AGENT_LOST" || this.#sessionId !== null) throw error;
      await this.#connection();
    }
    return this.#init as InitializeResult;
  }

  async #connection(): Promise<RpcClient> {
    if (this.#client !== null && this.#client.lost === null) return this.#client;
    if (this.#closed) throw new RemoteError("AGENT_LOST", "the connection to the agent was closed");
    this.#connecting ??= this.#connect().finally(() => {
      this.#connecting = null;
    });
    return (await this.#connecting).client;
  }

  async #connect(): Promise<{ client: RpcClient; init: InitializeResult }> {
    const { endpoint } = this.#options;
    const generation = this.#generation;
    let agentId = this.#options.agentId;
    let client: RpcClient;
    if (typeof endpoint === "string") client = await RpcClient.connect(endpoint);
    else if ("where" in endpoint) {
      let found: Awaited<ReturnType<AgentEndpoint["url"]>>;
      try {
        found = await endpoint.url();
      } catch (error) {
        // The endpoint says its agent is gone (a lost pod): so is the session there.
        if (isConchError(error) && error.code === "AGENT_LOST") this.#sessionId = null;
        throw error;
      }
      if (typeof found !== "string") agentId = found.agentId;
      if (agentId !== this.agentId) this.#sessionId = null;
      this.agentId = agentId;
      try {
        client = await RpcClient.connect(typeof found === "string" ? found : found.url);
      } catch (error) {
        throw endpoint.unreachable === undefined ? error : await endpoint.unreachable(error as Error);
      }
    } else client = RpcClient.spawn(endpoint);
    if (this.#sessionId === null && this.#lookedUp !== agentId && this.#options.resumeFor !== undefined) {
      this.#lookedUp = agentId;
      this.#sessionId = this.#options.resumeFor(agentId) ?? null;
    }
    let init: InitializeResult;
    try {
      init = await client.call<InitializeResult>("initialize", {
        clientName: "conchd",
        protocolVersion: EXEC_PROTOCOL_VERSION,
        binding: signBinding(this.#options.bindingKey, agentId),
        // Output is read by sequence number (a long poll), so none of it needs to come twice.
        notify: false,
        ...(this.#sessionId === null ? {} : { resumeSessionId: this.#sessionId }),
      });
    } catch (error) {
      client.close();
      if (error instanceof AgentCallError && error.code === "session_expired") {
        // Its processes are gone (the agent restarted, or kept them less long than conchd was away): the
        // next connection starts a new session, and what asked for the old processes learns they are lost.
        this.#sessionId = null;
        throw new RemoteError(
          "AGENT_LOST",
          `the agent at ${describe(endpoint)} no longer has this conchd's processes: ${error.message}`,
        );
      }
      if (isRemoteError(error)) throw error;
      throw new RemoteError(
        "AGENT_UNREACHABLE",
        `the agent at ${describe(endpoint)} refused this conchd: ${(error as Error).message}`,
      );
    }
    if (generation !== this.#generation) {
      client.close();
      throw new RemoteError("AGENT_LOST", "the agent was let go while conchd connected to it");
    }
    this.#client = client;
    this.#init = init;
    this.#sessionId = init.sessionId;
    this.#options.onSession?.(init.sessionId, agentId);
    return { client, init };
  }

  /** Calls `method`; a connection lost on the way is made again (resuming the session) and the call sent once more. */
  async call<T>(method: string, params: object, timeoutMs?: number): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const client = await this.#connection();
      try {
        return await client.call<T>(method, params, timeoutMs);
      } catch (error) {
        if (attempt > 0 || !isRemoteError(error) || error.code !== "AGENT_LOST" || this.#closed) throw error;
      }
    }
  }

  close(): void {
    this.#closed = true;
    this.#client?.close();
  }
}

function toRead(reply: ProcessReadResult): HostRead {
  return {
    chunks: reply.chunks.map((chunk) => ({
      seq: chunk.seq,
      stream: "stdout" as const,
      data: Buffer.from(chunk.data, "base64"),
    })),
    nextSeq: reply.nextSeq,
    droppedBytes: reply.droppedBytes,
    exit: reply.exited
      ? { exitCode: reply.exitCode, signal: null, sandboxDenied: reply.sandboxDenied }
      : null,
  };
}

function processOf(link: AgentLink, processId: string): HostProcess {
  let lastExit: HostExit | null = null;
  return {
    id: processId,
    async read(fromSeq, options = {}) {
      const waitMs = Math.min(options.waitMs ?? 0, READ_WAIT_MS);
      // A long poll is answered within its wait; much later means the agent is gone.
      const reply = await link.call<ProcessReadResult>(
        "process/read",
        { processId, afterSeq: Math.max(0, fromSeq - 1), waitMs, maxBytes: READ_MAX_BYTES },
        waitMs + 30_000,
      );
      const read = toRead(reply);
      if (read.exit !== null) lastExit = read.exit;
      return read;
    },
    async write(data, writeId) {
      await link.call("process/write", { processId, data: Buffer.from(data).toString("base64"), writeId });
    },
    async signal(signal) {
      const name = { SIGINT: "interrupt", SIGTERM: "terminate", SIGKILL: "kill" }[signal as string];
      if (name === undefined) {
        throw new RemoteError(
          "INVALID_REMOTE",
          `signal: a remote process takes SIGINT, SIGTERM or SIGKILL, not ${signal}`,
        );
      }
      await link.call("process/signal", { processId, signal: name });
    },
    async resize(cols, rows) {
      await link.call("process/resize", { processId, cols, rows });
    },
    async terminate() {
      const reply = await link.call<{ exitCode: number | null }>("process/terminate", { processId });
      return lastExit ?? { exitCode: reply.exitCode, signal: null, sandboxDenied: false };
    },
    async ack(seq) {
      await link.call("process/ack", { processId, seq });
    },
  };
}

/**
 * The backend for a conch-agent at `options.endpoint`. It is available once the agent answers,
 * accepts this conchd's binding and can sandbox (bwrap or Landlock); commands then start there, each
 * under the sandbox intent of its rules, or not at all.
 */
export function createAgentBackend(options: AgentBackendOptions): AgentBackend {
  if (typeof options.agentId !== "string" || options.agentId === "") {
    throw new RemoteError(
      "INVALID_REMOTE",
      `agentId: expected a non-empty string, received ${JSON.stringify(options.agentId)}`,
    );
  }
  const { endpoint } = options;
  if (
    !(typeof endpoint === "string" && endpoint !== "") &&
    !(Array.isArray(endpoint) && endpoint.length > 0 && endpoint.every((arg) => typeof arg === "string")) &&
    !(
      typeof endpoint === "object" &&
      endpoint !== null &&
      "url" in endpoint &&
      typeof endpoint.url === "function"
    )
  ) {
    throw new RemoteError(
      "INVALID_REMOTE",
      `endpoint: expected ws://HOST:PORT, unix:/PATH or a command (an array of strings), received ${JSON.stringify(endpoint)}`,
    );
  }
  const link = new AgentLink(options);
  // Read at each use: a found endpoint (a claimed pod) names itself and its agent once known.
  const whereNow = (): string => `agent ${link.agentId} at ${describe(endpoint)}`;
  // Set once a command ran with the pod as its only sandbox (podIsSandbox): every result says so.
  let unsandboxed = false;
  // Said once, by the next result: why the agent is a new one (reset).
  let pending: string | null = null;
  const host: AgentHost = {
    get where() {
      return whereNow();
    },
    note: () => {
      const parts = [
        ...(pending === null ? [] : [pending]),
        ...(unsandboxed
          ? [
              "the pod is the sandbox: neither bwrap nor Landlock can run there, so commands run without a sandbox of their own (config remote_pod_is_sandbox)",
            ]
          : []),
      ];
      pending = null;
      return parts.length === 0 ? null : parts.join("; ");
    },
    sandboxName: () => (unsandboxed ? "pod" : null),
    async start(request: HostStartRequest) {
      const intent = {
        ...sandboxIntent(request.rules, request.workspace),
        ...(options.podIsSandbox === true ? { fallback: "pod" as const } : {}),
      };
      const params = {
        processId: request.id,
        argv: request.spec.argv,
        cwd: request.spec.cwd,
        env: request.spec.env,
        tty: request.tty,
        ...(request.size === undefined ? {} : { cols: request.size.cols, rows: request.size.rows }),
        sandbox: intent,
      };
      try {
        let started: Partial<ProcessStartResult>;
        try {
          started = await link.call<Partial<ProcessStartResult>>("process/start", params);
        } catch (error) {
          // The agent went with its pod, as finding it said (not a lost connection, which the call itself
          // has already tried again): a new command starts on the next one.
          if (!isConchError(error) || error.code !== "AGENT_LOST" || isRemoteError(error)) throw error;
          started = await link.call<Partial<ProcessStartResult>>("process/start", params);
        }
        unsandboxed = started.sandbox === "pod";
      } catch (error) {
        if (error instanceof AgentCallError && error.code === "sandbox_unavailable") {
          throw new SandboxError(
            "SANDBOX_UNAVAILABLE",
            `the ${whereNow()} cannot sandbox this command (nothing ran): ${error.message}`,
          );
        }
        // A start sent again after a lost connection may find its first try: the process is there.
        if (!(error instanceof AgentCallError && error.code === "process_exists")) throw error;
      }
      return processOf(link, request.id);
    },
    async attach(id) {
      const entries = await host.list();
      return entries.some((entry) => entry.id === id) ? processOf(link, id) : null;
    },
    async list() {
      const { processes } = await link.call<{ processes: ProcessEntry[] }>("process/list", {});
      return processes.map((entry) => ({
        id: entry.processId,
        running: entry.running,
        workspace: entry.workspace,
      }));
    },
    async capabilities() {
      return (await link.initialized()).capabilities;
    },
  };
  let availability: Promise<Availability> | null = null;
  return {
    name: options.name ?? "agent",
    platform: process.platform,
    host,
    available() {
      availability ??= link.initialized().then(
        (init): Availability =>
          init.capabilities.bwrap || init.capabilities.landlock || options.podIsSandbox === true
            ? { available: true }
            : {
                available: false,
                reason: `the ${whereNow()} can sandbox nothing there (neither bwrap nor Landlock works)`,
                fix: "run the agent where bubblewrap can make namespaces (a container: --security-opt unmask=ALL and seccomp=unconfined) or where Landlock is enabled; or, if the pod or container is sandbox enough for these commands, set remote_pod_is_sandbox = true in conchd's config",
              },
        (error: unknown): Availability => {
          availability = null;
          return {
            available: false,
            reason: (error as Error).message,
            fix: `start the agent (conch-agent --listen ... --agent-id ${options.agentId} --binding-key ${options.publicKeyPath ?? "CONCHD.pub"}) and check that remote_url or remote_command reaches it and that it was given this conchd's public key`,
          };
        },
      );
      return availability;
    },
    close: () => link.close(),
    reset: (note) => {
      link.reset();
      availability = null;
      unsandboxed = false;
      pending = note ?? null;
    },
  };
}

/** A fresh process id for the agent: unique for its life. */
export function newProcessId(): string {
  return randomUUID();
}
