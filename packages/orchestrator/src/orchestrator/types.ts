import type { Approver } from "@conch/approval";
import type { EnvPolicy, ExecRequest, ExecResult, OutputDelta, RunOptions } from "@conch/exec-core";
import type { ExecPolicy } from "@conch/exec-policy";
import type { NetProxy } from "@conch/net-proxy";
import type { ApprovalPolicy, ConchErrorCode, RejectionKind, SandboxPermissions } from "@conch/protocol";
import type { PreparedSandbox, SandboxPolicy } from "@conch/sandbox-core";
import type { Shell } from "@conch/shell-detect";
import type { SessionResponse } from "@conch/unified-exec";
import type { AuditDecider, AuditLog } from "../audit/audit-log.js";
import type { CollectorResult } from "../output/output-collector.js";
import type { SnapshotContext, SnapshotUse } from "../runtime/shell-snapshots.js";
import type { HostReaper } from "../sessions/host-reaper.js";
import type { RemoteLedger } from "../sessions/remote-ledger.js";
import type { SpillStore } from "../spill/spill-store.js";

/** One command a tool wants run, already validated and resolved by the tool's handler. */
export interface CommandRequest {
  /** The tool that asked: named in the audit log and the spill file. */
  readonly tool: string;
  /** What is spawned, e.g. `["/bin/bash", "-lc", "npm test"]`. */
  readonly argv: readonly string[];
  /** The script, for a shell tool: the audit log records it instead of the argv. */
  readonly script?: string;
  /**
   * Set when `argv` runs `script` in this shell as a login shell (`deriveExecArgs(shell, script,
   * { login: true })`): the orchestrator runs it with the shell's snapshot instead (non-login, the
   * profile's effect applied), when it has one. The approval and the audit see `argv` as given.
   */
  readonly loginShell?: Shell;
  /** Absolute. */
  readonly cwd: string;
  /** Kill the command's tree after this long (exit 124); no limit when absent. */
  readonly timeoutMs?: number;
  /** The model text's budget; output beyond it goes to a spill file. */
  /**
   * How long a person's out-of-band answer may be waited for when the command needs one and the client
   * cannot ask (`wait_for_approval_ms`); the approver returns at once with a pending id without it.
   */
  readonly approvalWaitMs?: number;
  readonly maxOutputTokens: number;
  /** False when nobody reads a model text (the CLI streams the output itself): no spill file is written. */
  readonly spill?: boolean;
  /**
   * False when nobody reads a model text of the output (the CLI streams it to its own stdout): the
   * output is not cleaned as it streams, and the outcome's `output` is a sample of its first and last
   * bytes (enough for the denial check), not the whole text. No spill file either.
   */
  readonly modelText?: boolean;
  /**
   * With `modelText: false`: a descriptor of this process that the command's stdout goes to directly
   * (the CLI's own stdout, when that is a pipe), so that it streams at the pipe's speed. Conch then
   * reads only stderr: the denial check and the outcome's sample see stderr alone.
   */
  readonly stdoutFd?: number;
  /**
   * True when the caller reads the run's own `stdout`/`stderr` (`outcome.result`, as `conch run --json`
   * does). Otherwise exec-core streams only (`buffer: false`) and the output collector holds the one copy.
   */
  readonly keepExecOutput?: boolean;
  /**
   * What the tool call asks of the sandbox. Absent when the tool has no `sandbox_permissions` field (the
   * `bash` and `argv` profiles): such a call cannot ask to leave the sandbox, and a denial says so.
   */
  readonly sandboxPermissions?: SandboxPermissions;
  /** The model's reason for `require_escalated`, shown to the person asked. */
  readonly justification?: string;
  /** The model's short description of the command (the `bash` profile), shown to the person asked. */
  readonly description?: string;
  /** The prefix rule the model proposes along with `require_escalated`. */
  readonly prefixRule?: readonly string[];
  /**
   * The client whose call it is (an MCP client's name, as it gave it: untrusted), for the audit log and
   * the console's session list. The orchestrator takes it from the call's context.
   */
  readonly client?: string;
}

export interface RunContext {
  /** Aborting stops the command and kills its tree (exit 130). */
  readonly signal?: AbortSignal;
  /**
   * Who is asked about this call, instead of the orchestrator's approver: e.g. the person behind the MCP
   * client that made it. The session's cache and stored rules are the same whoever asks.
   */
  readonly approver?: Approver;
  /**
   * Every chunk of output as it arrives (stdout and stderr), e.g. to stream it to a terminal. A returned
   * promise pauses that stream until it settles; any other return value is ignored.
   */
  readonly onOutput?: (delta: OutputDelta) => unknown;
  /** The client whose call this is (an MCP client's name: untrusted), for the audit log and the console. */
  readonly client?: string;
}

/** The command never ran: a rule or the policy forbids it, the person said no, or the sandbox cannot run here. */
export interface RejectedOutcome {
  readonly status: "rejected";
  readonly kind: RejectionKind;
  /** The text the model reads. */
  readonly reason: string;
  readonly decidedBy: AuditDecider;
}

/** The command could not be started (missing cwd, missing program, ...). */
export interface FailedOutcome {
  readonly status: "failed";
  /** A Conch error code (`CWD_NOT_FOUND`, `SPAWN_FAILED`, ...), or `INTERNAL` for a bug. */
  readonly code: ConchErrorCode | "INTERNAL";
  readonly message: string;
  /** The error thrown, when one was (a failure the door found itself, such as a missing cwd, has none). */
  readonly cause?: unknown;
}

/** The command ran (once, or in the sandbox and then outside it). */
export interface RanOutcome {
  readonly status: "ran";
  readonly exitCode: number;
  readonly signal: string | null;
  readonly durationMs: number;
  readonly timedOut: boolean;
  readonly canceled: boolean;
  /** The backend the final attempt ran under (`bwrap`), or `none`. */
  readonly sandbox: string;
  /**
   * The sandbox denied the command and it was not retried outside it (the policy does not allow a
   * retry): `hint` tells the model what it can do.
   */
  readonly denied: boolean;
  /** The first attempt was denied by the sandbox and the command ran again outside it. */
  readonly escalated: boolean;
  readonly hint: string | null;
  readonly output: CollectorResult;
  /**
   * exec-core's result of the final attempt. With `keepExecOutput`, stdout and stderr apart, each
   * bounded; otherwise the output is only in `output` and these are empty (`buffered: false`).
   */
  readonly result: ExecResult;
}

export type CommandOutcome = RejectedOutcome | FailedOutcome | RanOutcome;

/** A command to start as a live session (exec_command, terminal_open, a durable shell_command). */
export interface SessionRequest extends CommandRequest {
  /** A pseudo-terminal, or pipes with stdin closed. */
  readonly tty: boolean;
  /** How long to wait for it to exit before returning with it still running (clamped 250–30000). */
  readonly yieldTimeMs: number;
  /** Wait `yieldTimeMs` as given (a durable shell_command waits its whole timeout). */
  readonly unclampedYield?: boolean;
  /** Keep the session listed after it exits, until closed (the terminal tools). */
  readonly keepAfterExit?: boolean;
  /**
   * False: wait the whole yield window (or until the exit) even when the first output settles sooner
   * (exec_command given an explicit yield_time_ms). Default true.
   */
  readonly settle?: boolean;
}

export interface SessionRunContext {
  /** Stops waiting; the session keeps running. */
  readonly signal?: AbortSignal;
  /** Who is asked about this call, instead of the orchestrator's approver (as in RunContext). */
  readonly approver?: Approver;
  /** The client whose call this is (as in RunContext). */
  readonly client?: string;
}

/** The session started (and may already have exited within its yield window). */
interface StartedSessionOutcome {
  readonly status: "session";
  readonly response: SessionResponse;
  /** The backend it runs under, or `none`. */
  readonly sandbox: string;
  /** It exited at once, denied by the sandbox, and was not retried outside it: `hint` says what to do. */
  readonly denied: boolean;
  readonly escalated: boolean;
  readonly hint: string | null;
}

export type SessionOutcome = RejectedOutcome | FailedOutcome | StartedSessionOutcome;

/**
 * A later call's response of a session (write_stdin, terminal_read), with what Conch did after it in the
 * repository: a git control file the session made, moved aside, a line each (see `repairGit`).
 */
export interface SessionReply extends SessionResponse {
  readonly notices: readonly string[];
}

/** Where a login-shell command gets the argv that runs it with the shell's snapshot (ShellSnapshots). */
export interface ShellSnapshotSource {
  /** How `script` runs in `shell` with its snapshot (captured by `context.run`), or why it cannot. */
  use(shell: Shell, script: string, context: SnapshotContext): Promise<SnapshotUse>;
}

/** The one-shot runner; exec-core's `run` unless a caller wraps it (to count spawns, say). */
export type Execute = (request: ExecRequest, options: RunOptions) => Promise<ExecResult>;

export interface ToolOrchestratorOptions {
  /**
   * Runs each session outside the sandbox under a keeper that ends it, and all it started, when this
   * process ends (HostReaper.create); none by default.
   */
  readonly hostReaper?: HostReaper | null;
  /**
   * The session's working directory: tools resolve relative `workdir`s against it, and under
   * workspace-write it is the writable root. A call's `workdir` only says where its command starts.
   */
  readonly cwd: string;
  readonly approvalPolicy: ApprovalPolicy;
  readonly sandbox: SandboxPolicy;
  /**
   * The session's sandbox under `sandbox`, prepared once: `sessionSandbox(policy, cwd, registry, options)`
   * with the registry the runtime made, as `createRuntime` passes it (and exposes as `runtime.sandbox`).
   * The orchestrator selects no backend and resolves no workspace of its own. Without one it has no
   * backend: a command under read-only or workspace-write is rejected as sandbox-unavailable (fail
   * closed); danger-full-access and external-sandbox run as they are.
   */
  readonly sessionSandbox?: () => Promise<PreparedSandbox>;
  /** The exec-policy rules; none by default. */
  readonly rules?: ExecPolicy;
  /** Who is asked; without one, whatever needs asking is rejected with the reason. */
  readonly approver?: Approver | null;
  /**
   * Without an approver: how the person could allow such a command where this orchestrator runs (the
   * CLI's `--approver`, the daemon's `conch approve`), appended to the rejection the model reads.
   */
  readonly noApproverHint?: string;
  /** Where truncated output is saved in full; null to keep none. */
  readonly spill?: SpillStore | null;
  /** Where every decision and execution is recorded; null to record nothing. */
  readonly audit?: AuditLog | null;
  /** How each command's environment is built. */
  readonly env?: EnvPolicy;
  /** The user's login environment per shell, applied to login-shell commands; null to run login shells. */
  readonly shellSnapshots?: ShellSnapshotSource | null;
  /** The rules file `approved_always` appends to; null to offer no "always". */
  readonly rulesStorePath?: string | null;
  /**
   * How long a call on a session that exited (its end already returned), was pruned or closed says so,
   * rather than only that the id is unknown (config `session_exit_grace_s`). Default 10 minutes.
   */
  readonly sessionExitGraceMs?: number;
  /**
   * How long a live session's output must be quiet before a waiting call returns with it (config
   * `settle_ms`; a shell back at its prompt returns sooner); 0 waits the whole window. Default 100.
   */
  readonly settleMs?: number;
  /**
   * Where sandboxed commands without the host's network reach the network: Conch's proxy (`network =
   * "allowlist"`, or one closed to everything for `"off"`), through an endpoint of each command's own in
   * the namespace the workspace's commands share. None: such commands have no way out at all.
   */
  readonly networkProxy?: NetProxy | null;
  /**
   * Commands run only on a remote backend's host (config `remote`): one that would run on this machine
   * (outside the sandbox: an approved escalation, a rule's `sandbox = "none"`, a policy with no sandbox)
   * is refused, and nothing runs here. Default false.
   */
  readonly remoteOnly?: boolean;
  /**
   * Where remote sessions are noted as they start and end, so that a conchd that restarts finds them
   * again (`ToolOrchestrator.resumeRemoteSessions`); none by default.
   */
  readonly remoteLedger?: RemoteLedger | null;
  readonly execute?: Execute;
}
