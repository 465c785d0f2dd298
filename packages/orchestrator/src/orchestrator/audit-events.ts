// The audit lines the orchestrator writes (DESIGN.md §4): every decision, every execution, and every
// input sent to a live session.
import type { ApprovalRequirement } from "@conch/approval";
import type { ProxyEvent } from "@conch/net-proxy";
import type { ApprovalPolicy, SandboxMode } from "@conch/protocol";
import type { AuditActor, AuditCommand, AuditDecider, AuditLog } from "../audit/audit-log.js";
import type { CommandRequest } from "./types.js";

/** How one attempt of a command ended, as its execution line records it. */
export interface ExecutionRecord {
  readonly exitCode: number | null;
  readonly durationMs: number;
  readonly timedOut: boolean;
  readonly canceled: boolean;
  readonly denied: boolean;
}

/** What was sent to a session: text written to it, or a signal. */
export type SessionInput = { readonly text: string } | { readonly signal: NodeJS.Signals };

/** Who acts on a live session: the model through a client's tool call, or a person (the console). */
export interface SessionActor {
  readonly by: AuditActor;
  /** The client whose call it was, for the model's input; null for a person. */
  readonly client?: string | null;
}

export class AuditEvents {
  readonly #log: AuditLog | null;
  readonly #approvalPolicy: ApprovalPolicy;
  readonly #sandboxMode: SandboxMode;

  constructor(log: AuditLog | null, approvalPolicy: ApprovalPolicy, sandboxMode: SandboxMode) {
    this.#log = log;
    this.#approvalPolicy = approvalPolicy;
    this.#sandboxMode = sandboxMode;
  }

  decision(
    request: CommandRequest,
    requirement: ApprovalRequirement,
    decision: string,
    decidedBy: AuditDecider,
    network?: string,
  ): void {
    this.#log?.record({
      type: "decision",
      tool: request.tool,
      client: request.client ?? null,
      ...auditCommand(request),
      cwd: request.cwd,
      approvalPolicy: this.#approvalPolicy,
      requirement: requirement.type,
      decision,
      decidedBy,
      sandbox: this.#sandboxMode,
      ...(network === undefined ? {} : { network }),
    });
  }

  /**
   * One attempt ran (or, for a session, started); `sandbox` is the backend it ran under, or `none`.
   * `sessionId`: the session it runs as; `spill`: where its whole output went when the model's text was cut.
   */
  execution(
    request: CommandRequest,
    sandbox: string,
    run: ExecutionRecord,
    where: {
      readonly sessionId?: number;
      readonly spill?: string | null;
      readonly remote?: { readonly where: string; readonly processId: string };
    } = {},
  ): void {
    this.#log?.record({
      type: "execution",
      tool: request.tool,
      client: request.client ?? null,
      ...auditCommand(request),
      cwd: request.cwd,
      sandbox,
      ...run,
      durationMs: Math.round(run.durationMs),
      ...(where.sessionId === undefined ? {} : { sessionId: where.sessionId }),
      ...(where.spill == null ? {} : { spill: where.spill }),
      ...(where.remote === undefined ? {} : { remote: where.remote }),
    });
  }

  /** Output of a remote command received by conchd: its sequence range, logged before it is acknowledged. */
  output(
    tool: string,
    sessionId: number | null,
    where: string,
    range: {
      readonly processId: string;
      readonly fromSeq: number;
      readonly toSeq: number;
      readonly bytes: number;
    },
  ): void {
    this.#log?.record({
      type: "output",
      tool,
      ...(sessionId === null ? {} : { sessionId }),
      where,
      ...range,
    });
  }

  /** Resolves once every line recorded so far is written. */
  flushed(): Promise<void> {
    return this.#log?.flush() ?? Promise.resolve();
  }

  /** A connection the command asked the network proxy for: decided, and for an allowed one closed. */
  network(request: CommandRequest, event: ProxyEvent, sessionId: number | null): void {
    this.#log?.record({
      type: "network",
      tool: request.tool,
      client: request.client ?? null,
      cwd: request.cwd,
      ...(sessionId === null ? {} : { sessionId }),
      host: event.host,
      port: event.port,
      protocol: event.protocol,
      decision: event.decision,
      decidedBy: event.by,
      reason: event.reason,
      bytesOut: event.bytesOut,
      bytesIn: event.bytesIn,
    });
  }

  /** A live session ended by Conch because nobody used it for `idleS` seconds. */
  sessionClosed(sessionId: number, command: string, idleS: number): void {
    this.#log?.record({
      type: "session-closed",
      tool: "conch",
      sessionId,
      command,
      reason: "idle",
      idleS,
    });
  }

  /** A live session closed by the model (terminal_close) or a person (the console's Kill). */
  sessionKilled(tool: string, sessionId: number, command: string, actor: SessionActor): void {
    this.#log?.record({
      type: "session-closed",
      tool,
      client: actor.client ?? null,
      sessionId,
      command,
      reason: "closed",
      by: actor.by,
    });
  }

  input(tool: string, sessionId: number, running: boolean, input: SessionInput, actor: SessionActor): void {
    this.#log?.record({
      type: "input",
      tool,
      client: actor.client ?? null,
      by: actor.by,
      sessionId,
      running,
      ...("text" in input ? { text: input.text } : { signal: input.signal }),
    });
  }
}

function auditCommand(request: CommandRequest): AuditCommand {
  return request.script === undefined ? { argv: [...request.argv] } : { script: request.script };
}
