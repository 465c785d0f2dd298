// Steps 1 and 2 of the one door (DESIGN.md §1): the approval requirement of a command, and the answer:
// the session cache, the approver, and the prefix rules `approved_always` stores.
import {
  type ApprovalAnswer,
  ApprovalCache,
  type ApprovalRequest,
  type Approver,
  allowPrefixRule,
  ESCALATION_EXPLANATION,
  type ExplainedRequirement,
  explainedApprovalRequirement,
  type NetworkQuestion,
  networkRuleLine,
  networkTarget,
  type ProgramLookup,
  type RequirementExplanation,
  storablePrefixRule,
} from "@conch/approval";
import { appendNetworkRuleToFile, type ExecPolicy } from "@conch/exec-policy";
import type { ApprovalPolicy, SandboxPermissions } from "@conch/protocol";
import type { SandboxPolicy } from "@conch/sandbox-core";
import type { AuditEvents } from "./audit-events.js";
import { rejected } from "./outcomes.js";
import { ESCALATION_REASON, noApproverText, REJECTED_BY_USER } from "./rejection-text.js";
import type { CommandRequest, RejectedOutcome } from "./types.js";

const INPUT_REASON = "text typed into a session that runs outside the sandbox";

export interface ApprovalsOptions {
  readonly approvalPolicy: ApprovalPolicy;
  readonly sandboxPolicy: SandboxPolicy;
  readonly rules: ExecPolicy;
  readonly approver: Approver | null;
  readonly noApproverHint: string | null;
  readonly rulesStorePath: string | null;
  readonly audit: AuditEvents;
}

/** A live session outside the sandbox, as the question about typing into it names it. */
export interface InputTarget {
  readonly id: number;
  readonly argv: readonly string[];
  readonly script?: string;
  readonly cwd: string;
  readonly tty: boolean;
  /**
   * What the model typed into it since its last line end (`\r` or `\n`): the line the next input adds
   * to. An Enter alone looks harmless; what it enters is this.
   */
  readonly line: string;
}

/** Why typed input is asked, for the model when nobody can be asked. */
const INPUT_EXPLANATION: RequirementExplanation = {
  why: "the session runs outside the sandbox, and what is typed into it runs on the host: each input needs a person's yes",
  advice:
    "Run what you need as a command of its own, in the sandbox, or tell the user what you would type and why.",
  notAsked: null,
};

/** How long a person's yes to a connection lasts: this command, while Conch runs, or always (stored). */
export type NetworkGrant = "command" | "session" | "always";

/** Why a connection is asked, for the model when nobody can be. */
const NETWORK_EXPLANATION: RequirementExplanation = {
  why: "the command connects to a host that is not in network_allow",
  advice: "Ask the user to add the host to network_allow, or to allow it when asked.",
  notAsked: null,
};

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
  // Input a person allowed for the session: the same text to the same session is not asked again.
  readonly #inputs = new Set<string>();
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
    const given = await approver.request(ask, {
      ...(signal === undefined ? {} : { signal }),
      ...(request.approvalWaitMs === undefined ? {} : { waitMs: request.approvalWaitMs }),
    });
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
      // A person's no keeps their words (Codex's "rejected by user", their note) and adds what Conch
      // had asked them about, so the model knows what was refused and why it was asked at all.
      const said = answer.reason ?? REJECTED_BY_USER;
      const asked = kind === "denied-by-user" && why !== null ? `\nIt was asked because ${why.why}.` : "";
      return rejected(kind, `${said}${asked}`, decidedBy);
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

  /**
   * A person's answer about a connection a sandboxed command opens to a host the configuration does not
   * list (the proxy waits for it): how long the yes lasts, or null for anything but a yes. Asked like a
   * command, through the call's approver; never under `never`, and never without someone to ask. An
   * "always" appends the host's `network_rule` to the rules file (a file that cannot be written costs the
   * "always", said in the audit line, not this connection). Recorded as a decision of `request.tool`.
   */
  async approveNetwork(
    request: CommandRequest,
    question: NetworkQuestion,
    call: {
      readonly signal: AbortSignal;
      readonly approver?: Approver | undefined;
      readonly tty?: boolean;
    },
  ): Promise<{ grant: NetworkGrant | null; answer: "allow" | "deny" | "no-answer" | "not-asked" }> {
    const { audit, rulesStorePath, approvalPolicy } = this.#options;
    const approver = call.approver ?? this.#options.approver;
    const target = networkTarget(question.host, question.port);
    const requirement = {
      type: "needs-approval",
      reason: `network access to ${question.host}:${question.port}`,
      proposedRule: null,
      bypassSandbox: false,
    } as const;
    if (approver === null || approvalPolicy === "never") {
      audit.decision(request, requirement, "denied", "policy", target);
      return { grant: null, answer: "not-asked" };
    }
    const line = networkRuleLine(question);
    const ask: ApprovalRequest = {
      argv: request.argv,
      cwd: request.cwd,
      reason: requirement.reason,
      proposedRule: rulesStorePath === null ? null : [line],
      sandboxMode: this.#options.sandboxPolicy.mode,
      sandboxPermissions: "use_default",
      tty: call.tty === true,
      network: question,
      explanation: NETWORK_EXPLANATION,
      ...(request.justification === undefined ? {} : { justification: request.justification }),
      ...(request.description === undefined ? {} : { description: request.description }),
    };
    let answer: ApprovalAnswer;
    try {
      const given = await approver.request(ask, { signal: call.signal });
      answer = typeof given === "string" ? { decision: given } : given;
    } catch {
      answer = { decision: "denied", outcome: "not-approved" };
    }
    const decidedBy = answer.decidedBy ?? "user";
    const { decision } = answer;
    const approved =
      answer.outcome !== "pending" &&
      (decision === "approved" || decision === "approved_for_session" || decision === "approved_always");
    audit.decision(
      request,
      requirement,
      answer.outcome === "pending" || answer.outcome === "not-approved" ? "not-approved" : decision,
      decidedBy,
      target,
    );
    if (!approved) {
      const unanswered = answer.outcome === "pending" || answer.outcome === "not-approved";
      return { grant: null, answer: unanswered || decision === "abort" ? "no-answer" : "deny" };
    }
    if (decision === "approved_always" && rulesStorePath !== null) {
      await appendNetworkRuleToFile(rulesStorePath, {
        host: question.host,
        protocol: question.protocol,
      }).catch((error: unknown) => {
        audit.decision(
          request,
          requirement,
          `approved_always (not stored: ${(error as Error).message})`,
          decidedBy,
          target,
        );
      });
      return { grant: "always", answer: "allow" };
    }
    return { grant: decision === "approved" ? "command" : "session", answer: "allow" };
  }

  /**
   * A person's yes for `text` typed into `session`, which runs outside the sandbox, asked like a command:
   * the question shows the text, the line it adds to and the session, and a yes for the session covers
   * that same text added to that same line of that same session. Recorded in the audit log as a decision of `tool`.
   */
  async approveInput(
    tool: string,
    session: InputTarget,
    text: string,
    call: {
      readonly signal?: AbortSignal | undefined;
      readonly approver?: Approver | undefined;
      readonly client?: string | undefined;
    },
  ): Promise<RejectedOutcome | { status: "approved" }> {
    const { audit } = this.#options;
    const request: CommandRequest = {
      tool,
      argv: session.argv,
      ...(session.script === undefined ? {} : { script: session.script }),
      cwd: session.cwd,
      maxOutputTokens: 0,
      ...(call.client === undefined ? {} : { client: call.client }),
    };
    const requirement = {
      type: "needs-approval",
      reason: INPUT_REASON,
      proposedRule: null,
      bypassSandbox: false,
    } as const;
    const key = JSON.stringify([session.id, session.line, text]);
    if (this.#inputs.has(key)) {
      audit.decision(request, requirement, "approved_for_session", "cache");
      return { status: "approved" };
    }
    const approver = call.approver ?? this.#options.approver;
    if (approver === null) {
      audit.decision(request, requirement, "denied", "policy");
      return rejected(
        "no-approver",
        noApproverText(INPUT_EXPLANATION, this.#options.noApproverHint).replace(
          "the command did not run",
          "nothing was typed",
        ),
        "policy",
      );
    }
    const ask: ApprovalRequest = {
      argv: session.argv,
      cwd: session.cwd,
      reason: INPUT_REASON,
      proposedRule: null,
      sandboxMode: this.#options.sandboxPolicy.mode,
      sandboxPermissions: "require_escalated",
      tty: session.tty,
      input: { sessionId: session.id, text, ...(session.line === "" ? {} : { line: session.line }) },
      explanation: INPUT_EXPLANATION,
    };
    const given = await approver.request(ask, call.signal === undefined ? {} : { signal: call.signal });
    const answer: ApprovalAnswer = typeof given === "string" ? { decision: given } : given;
    const decidedBy = answer.decidedBy ?? "user";
    const { decision } = answer;
    if (answer.outcome === "pending") {
      audit.decision(request, requirement, "pending", decidedBy);
      return rejected("approval-pending", answer.reason ?? REJECTED_BY_USER, decidedBy);
    }
    if (decision !== "approved" && decision !== "approved_for_session" && decision !== "approved_always") {
      audit.decision(
        request,
        requirement,
        answer.outcome === "not-approved" ? "not-approved" : decision,
        decidedBy,
      );
      const kind =
        answer.outcome === "not-approved"
          ? "not-approved"
          : decision === "abort"
            ? "aborted-by-user"
            : "denied-by-user";
      return rejected(kind, `${answer.reason ?? REJECTED_BY_USER}: nothing was typed`, decidedBy);
    }
    // No rule is stored for typed text: "always" counts as this session's yes.
    audit.decision(request, requirement, decision, decidedBy);
    if (decision !== "approved") this.#inputs.add(key);
    return { status: "approved" };
  }
}
