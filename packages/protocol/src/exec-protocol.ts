// conch-exec/1: what conchd and a conch-agent say to each other, as JSON-RPC 2.0 (one message a line
// over stdio, or a frame over WebSocket). Modelled on Codex's exec-server: the agent runs processes and
// holds no policy; conchd decides (rules, approvals) before `process/start` and keeps the audit log.
// Output is numbered so that a reader that lost its connection reads on from where it was; writes carry
// an id so that one sent twice is typed once. Binary data is base64.

/** The protocol's name and version, as `initialize` gives it. */
export const EXEC_PROTOCOL_VERSION = "conch-exec/1";

/** What the agent can enforce and run here, said in `initialize`'s answer. */
export interface ExecCapabilities {
  readonly pty: boolean;
  readonly bwrap: boolean;
  readonly landlock: boolean;
  readonly seccomp: boolean;
}

/** The sandbox a process must run in; the agent refuses to start it when it cannot enforce this. */
export interface SandboxIntent {
  readonly mode: "read-only" | "workspace-write";
  /**
   * The session's workspace (absolute, canonical): under workspace-write its first writable root. The
   * process's cwd only says where it starts; it never widens what it may write.
   */
  readonly workspace: string;
  /** Writable roots besides the workspace (workspace-write only). */
  readonly writableRoots?: readonly string[];
  readonly network: boolean;
  /** Paths the process must not read, besides the agent's own defaults (conchd's hidden paths). */
  readonly denyRead?: readonly string[];
  /** Exceptions to `denyRead`. */
  readonly allowRead?: readonly string[];
  /** Paths inside the writable roots that stay read-only (conchd's protected paths). */
  readonly protect?: readonly string[];
  /**
   * What the agent does where it can enforce neither bwrap nor Landlock: absent, it refuses
   * (`sandbox_unavailable`); `"pod"`, it runs the command with the pod or container it is in as the only
   * sandbox (an operator's choice in conchd, `remote_pod_is_sandbox`, said in every result).
   */
  readonly fallback?: "pod";
}

export interface InitializeParams {
  readonly clientName: string;
  readonly protocolVersion: string;
  /** A token conchd signed for this agent (`payload.signature`, each base64url; Ed25519). */
  readonly binding: string;
  /**
   * The session a reconnecting conchd had: the agent refuses it (`session_expired`) when that session is
   * gone (its processes ended), so conchd knows. Absent: attach to whatever session the agent holds.
   */
  readonly resumeSessionId?: string;
  /**
   * Whether the agent sends `process/output` and `process/exited` to this connection (default true);
   * a caller that reads by sequence number (`process/read`) need not have the output twice.
   */
  readonly notify?: boolean;
}

export interface InitializeResult {
  readonly sessionId: string;
  readonly agentVersion: string;
  readonly capabilities: ExecCapabilities;
  /** The session existed before this connection (its processes kept while no conchd was attached). */
  readonly resumed: boolean;
  /** How long the agent keeps its processes and their unacknowledged output once the connection goes (ms). */
  readonly keepMs: number;
}

/** `process/output`, sent to the attached connection as output comes (the same chunks `process/read` gives). */
export interface ProcessOutputNotification {
  readonly processId: string;
  readonly seq: number;
  readonly data: string;
}

/** `process/exited`, sent once a process has exited and all its output was numbered. */
export interface ProcessExitedNotification {
  readonly processId: string;
  readonly exitCode: number;
  /** The sequence number the next chunk would have had: every chunk before it is the process's output. */
  readonly nextSeq: number;
  readonly sandboxDenied: boolean;
}

export interface ProcessStartParams {
  /** Chosen by the caller (conchd's session id), unique for the agent's life. */
  readonly processId: string;
  readonly argv: readonly string[];
  readonly cwd: string;
  readonly env?: Readonly<Record<string, string>>;
  readonly tty: boolean;
  readonly cols?: number;
  readonly rows?: number;
  readonly sandbox: SandboxIntent;
}

/** What `process/start` answers: the process, and the sandbox it runs in (`pod`: no sandbox per command). */
export interface ProcessStartResult {
  readonly processId: string;
  readonly sandbox: "bwrap" | "landlock" | "pod";
}

/** One numbered piece of a process's output: a terminal's, or its stdout and stderr interleaved. */
export interface ExecOutputChunk {
  readonly seq: number;
  readonly data: string;
}

export interface ProcessReadParams {
  readonly processId: string;
  /** The last sequence number the caller has; 0 for all the agent still holds. */
  readonly afterSeq: number;
  /** How long to wait for new output or the exit when there is none yet (ms; at most 30 000). */
  readonly waitMs?: number;
  /** At most this many bytes of output (at least one chunk when there is one); 1 MiB by default. */
  readonly maxBytes?: number;
}

export interface ProcessReadResult {
  readonly chunks: readonly ExecOutputChunk[];
  /** The sequence number the next chunk will have. */
  readonly nextSeq: number;
  readonly exited: boolean;
  readonly exitCode: number | null;
  /** The sandbox refused something the process did (its output says so). */
  readonly sandboxDenied: boolean;
  /** Output past `afterSeq` that the agent no longer holds (its ring was full and it was not acked). */
  readonly droppedBytes: number;
}

export interface ProcessWriteParams {
  readonly processId: string;
  readonly data: string;
  /** The same id twice is typed once. */
  readonly writeId: string;
}

export type ProcessWriteStatus = "accepted" | "duplicate";

export interface ProcessEntry {
  readonly processId: string;
  /** The workspace of the session that started it (its sandbox intent's). */
  readonly workspace: string;
  readonly tty: boolean;
  readonly running: boolean;
  readonly exitCode: number | null;
  readonly nextSeq: number;
}
