// The audit lines the orchestrator writes (DESIGN.md §4): every decision, every execution, and every
// input sent to a live session.
import type { ApprovalRequirement } from "@conch/approval";
import type { ApprovalPolicy, SandboxMode } from "@conch/protocol";
import type { AuditCommand, AuditDecider, AuditLog } from "../audit/audit-log.js";
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
  ): void {
    this.#log?.record({
      type: "decision",
      tool: request.tool,
      ...auditCommand(request),
      cwd: request.cwd,
      approvalPolicy: this.#approvalPolicy,
      requirement: requirement.type,
      decision,
      decidedBy,
      sandbox: this.#sandboxMode,
    });
  }

  /** One attempt ran; `sandbox` is the backend it ran under, or `none`. */
  execution(request: CommandRequest, sandbox: string, run: ExecutionRecord): void {
    this.#log?.record({
      type: "execution",
      tool: request.tool,
      ...auditCommand(request),
      cwd: request.cwd,
      sandbox,
      ...run,
      durationMs: Math.round(run.durationMs),
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

  input(tool: string, sessionId: number, running: boolean, input: SessionInput): void {
    this.#log?.record({
      type: "input",
      tool,
      sessionId,
      running,
      ...("text" in input ? { text: input.text } : { signal: input.signal }),
    });
  }
}

function auditCommand(request: CommandRequest): AuditCommand {
  return request.script === undefined ? { argv: [...request.argv] } : { script: request.script };
}
