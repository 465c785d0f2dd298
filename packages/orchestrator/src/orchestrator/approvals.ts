// Steps 1 and 2 of the one door (DESIGN.md §1): the approval requirement of a command, and the answer:
// the session cache, the approver, and the prefix rules `approved_always` stores.
import {
  type ApprovalAnswer,
  ApprovalCache,
  type ApprovalRequest,
  type Approver,
  allowPrefixRule,
  ESCALATION_EXPLANATION,
  type ExecPolicy,
  type ExplainedRequirement,
  explainedApprovalRequirement,
  type ProgramLookup,
  type RequirementExplanation,
  storablePrefixRule,
} from "@conch/approval";
import type { ApprovalPolicy, SandboxPermissions } from "@conch/protocol";
import type { SandboxPolicy } from "@conch/sandbox-core";
import { ESCALATION_REASON, noApproverText, REJECTED_BY_USER } from "../format/rejection-text.js";
import type { AuditEvents } from "./audit-events.js";
import { rejected } from "./outcomes.js";
import type { CommandRequest, RejectedOutcome } from "./types.js";

export interface ApprovalsOptions {
  readonly approvalPolicy: ApprovalPolicy;
  readonly sandboxPolicy: SandboxPolicy;
  readonly rules: ExecPolicy;
  readonly approver: Approver | null;
  readonly noApproverHint: string | null;
  readonly rulesStorePath: string | null;
  readonly audit: AuditEvents;
}

/**
 * What a retry outside the sandbox asks with: its own question, the end of the denied output, and what
 * the model reads when nobody can be asked.
 */
export interface RetryQuestion {
  readonly reason?: string;
  readonly sandboxDenial?: string;
  readonly explanation?: RequirementExplanation;
}

export class Approvals {
  readonly #options: ApprovalsOptions;
  readonly #cache = new ApprovalCache();
  #rules: ExecPolicy;

  constructor(options: ApprovalsOptions) {
    this.#options = options;
    this.#rules = options.rules;
  }

  /** The exec-policy rules in force, including those added by `approved_always` this session. */
  get rules(): ExecPolicy {
    return this.#rules;
  }

  /**
   * What the command needs: to run unasked, a person's yes, or nothing (forbidden), and what decided it.
   * Leaving a restricting sandbox takes a person's yes for this command, even when a rule lets it run
   * unasked inside the sandbox; only a rule that itself says `sandbox = "none"` lifts it.
   */
  async requirement(
    request: CommandRequest,
    permissions: SandboxPermissions,
    programs: ProgramLookup,
  ): Promise<ExplainedRequirement> {
    const { approvalPolicy, sandboxPolicy } = this.#options;
    const explained = await explainedApprovalRequirement({
      argv: request.argv,
      execPolicy: this.#rules,
      approvalPolicy,
      sandboxMode: sandboxPolicy.mode,
      sandboxPermissions: permissions,
      prefixRule: request.prefixRule ?? null,
      programs,
    });
    const { requirement } = explained;
    const restricting = sandboxPolicy.mode === "read-only" || sandboxPolicy.mode === "workspace-write";
    return requirement.type === "skip" &&
      permissions === "require_escalated" &&
      restricting &&
      !requirement.bypassSandbox
      ? {
          requirement: { ...requirement, type: "needs-approval", reason: ESCALATION_REASON },
          explanation: ESCALATION_EXPLANATION,
        }
      : explained;
  }

  /**
   * The cached answer, or the approver's; records the decision and applies `approved_always`.
   * `explanation` is what decided that it is asked, for the model when nobody can be.
   */
  async approve(
    request: CommandRequest,
    { requirement, explanation }: ExplainedRequirement,
    permissions: SandboxPermissions,
    retry: RetryQuestion,
    call: { readonly signal?: AbortSignal | undefined; readonly approver?: Approver | undefined },
  ): Promise<RejectedOutcome | { status: "approved" }> {
    const { audit, rulesStorePath } = this.#options;
    const { signal } = call;
    // The call's own approver (an MCP client's person, say) asks instead of the orchestrator's.
    const approver = call.approver ?? this.#options.approver;
    const tty = "tty" in request && request.tty === true;
    const key = { argv: request.argv, cwd: request.cwd, sandboxPermissions: permissions, tty };
    if (await this.#cache.isApprovedForSession(key)) {
      audit.decision(request, requirement, "approved_for_session", "cache");
      return { status: "approved" };
    }
    const why = retry.explanation ?? explanation;
    if (approver === null) {
      audit.decision(request, requirement, "denied", "policy");
      return rejected("no-approver", noApproverText(why, this.#options.noApproverHint), "policy");
    }
    const proposed =
      rulesStorePath === null || requirement.proposedRule === null
        ? null
        : storablePrefixRule(requirement.proposedRule);
    const ask: ApprovalRequest = {
      argv: request.argv,
      cwd: request.cwd,
      reason: retry.reason ?? requirement.reason,
      proposedRule: proposed,
      sandboxMode: this.#options.sandboxPolicy.mode,
      sandboxPermissions: permissions,
      tty,
      ...(request.justification === undefined ? {} : { justification: request.justification }),
      ...(request.description === undefined ? {} : { description: request.description }),
      ...(retry.sandboxDenial === undefined ? {} : { sandboxDenial: retry.sandboxDenial }),
      ...(why === null ? {} : { explanation: why }),
    };
    const given = await approver.request(ask, signal === undefined ? {} : { signal });
    const answer: ApprovalAnswer = typeof given === "string" ? { decision: given } : given;
    const { decision } = answer;
    const decidedBy = answer.decidedBy ?? "user";
    if (answer.outcome === "pending") {
      // Nobody has answered yet: nothing is cached, and the retry asks again.
      audit.decision(request, requirement, "pending", decidedBy);
      return rejected("approval-pending", answer.reason ?? REJECTED_BY_USER, decidedBy);
    }
    const approved =
      decision === "approved" || decision === "approved_for_session" || decision === "approved_always";
    if (!approved) {
      const kind =
        answer.outcome === "not-approved"
          ? "not-approved"
          : decision === "abort"
            ? "aborted-by-user"
            : "denied-by-user";
      audit.decision(
        request,
        requirement,
        answer.outcome === "not-approved" ? "not-approved" : decision,
        decidedBy,
      );
      return rejected(kind, answer.reason ?? REJECTED_BY_USER, decidedBy);
    }
    audit.decision(request, requirement, decision, decidedBy);
    await this.#cache.record(key, decision);
    if (decision === "approved_always" && proposed !== null && rulesStorePath !== null) {
      const allowed = allowPrefixRule(this.#rules, proposed, rulesStorePath);
      this.#rules = allowed.rules;
      // The person said yes: a rules file that cannot be written costs the "always", not this run.
      await allowed.stored.catch((error: unknown) => {
        audit.decision(
          request,
          requirement,
          `approved_always (not stored: ${(error as Error).message})`,
          decidedBy,
        );
      });
    }
    return { status: "approved" };
  }
}
