// The steps every command takes (DESIGN.md §1) around `launch`, which runs it once, in the given sandbox
// or none: the requirement, asking, the sandbox choice, the denial check and the retry.
import { statSync } from "node:fs";
import type { Approver, ExplainedRequirement } from "@conch/approval";
import type { ApprovalPolicy, SandboxPermissions } from "@conch/protocol";
import {
  type GitHostExposure,
  isSandboxError,
  type PreparedSandbox,
  type SandboxPolicy,
} from "@conch/sandbox-core";
import type { Approvals } from "./approvals.js";
import type { Attempt } from "./attempts.js";
import type { AuditEvents } from "./audit-events.js";
import { blockedHint, blockedPaths } from "./blocked-paths.js";
import {
  denialHint,
  gitConfigHint,
  looksLikeGitConfigWrite,
  looksLikeNetworkFailure,
  noNetworkHint,
  sandboxCutsNetwork,
} from "./denial-hint.js";
import { withRepairs } from "./git-repairs.js";
import { rejected } from "./outcomes.js";
import {
  CANCELED_BEFORE_START,
  cwdNotFoundText,
  forbiddenText,
  REJECTED_BY_POLICY,
  RETRY_WITHOUT_SANDBOX_REASON,
  retryExplanation,
} from "./rejection-text.js";
import type { GitRepositoryPin, SpawnPlan, SpawnPlanner } from "./spawn-plan.js";
import type { CommandRequest, FailedOutcome, RejectedOutcome } from "./types.js";

export interface PipelineSteps {
  readonly approvalPolicy: ApprovalPolicy;
  readonly sandboxPolicy: SandboxPolicy;
  /** The session's sandbox, prepared once; rejects with `SANDBOX_UNAVAILABLE` when it cannot run here. */
  readonly sandbox: () => Promise<PreparedSandbox>;
  readonly approvals: Approvals;
  readonly planner: SpawnPlanner;
  readonly audit: AuditEvents;
  /** How many live sessions are running now. */
  readonly liveSessions: () => number;
  /**
   * Commands run only on a remote agent (config `remote`): nothing may run outside the sandbox here, so
   * an escalation is refused before anyone is asked, a rule's `sandbox = "none"` runs in the agent's
   * sandbox, and a denial is final.
   */
  readonly remoteOnly?: boolean;
}

const REMOTE_ONLY_TEXT =
  'Commands run only on the remote agent (config `remote`), in its sandbox: sandbox_permissions "require_escalated" would run this one on conchd\'s own machine, outside any sandbox, which is not possible here. The command did not run.';

/** The command ran: the final attempt, and how it got there. */
export interface Done<T extends Attempt> {
  readonly status: "done";
  readonly value: T;
  /** The sandbox denied the first attempt and it ran again outside it. */
  readonly escalated: boolean;
  /** The sandbox denied it and the policy allows no retry outside it: `hint` says what the model can do. */
  readonly denied: boolean;
  /** What the model can do after a denial, or after a failure for want of network in the sandbox. */
  readonly hint: string | null;
}

/** Runs the command once: under `sandbox` (whose backend may be none, as the policy says), or outside it when null. */
export type Launch<T extends Attempt> = (sandbox: PreparedSandbox | null, plan: SpawnPlan) => Promise<T>;

export async function runPipeline<T extends Attempt>(
  steps: PipelineSteps,
  request: CommandRequest,
  context: { readonly signal?: AbortSignal | undefined; readonly approver?: Approver | undefined },
  launch: Launch<T>,
): Promise<RejectedOutcome | FailedOutcome | Done<T>> {
  const { signal, approver } = context;
  const { approvalPolicy, sandboxPolicy, approvals } = steps;
  // Checked first: nobody should be asked about a command that cannot start.
  if (!isDirectory(request.cwd)) {
    return { status: "failed", code: "CWD_NOT_FOUND", message: cwdNotFoundText(request.cwd) };
  }
  const permissions: SandboxPermissions = request.sandboxPermissions ?? "use_default";
  // What will spawn, before the approval: a login-shell command may run with the user's snapshot, whose
  // PATH is where its programs resolve.
  const plan = await steps.planner.plan(request);
  const { explained, repository } = await liftedByRuleAlone(
    steps,
    request,
    await approvals.requirement(request, permissions, steps.planner.programLookup(request.cwd, plan)),
  );
  const { requirement } = explained;

  if (requirement.type === "forbidden") {
    steps.audit.decision(request, requirement, "forbidden", "policy");
    const reason = forbiddenText(requirement.reason ?? REJECTED_BY_POLICY, explained.explanation);
    return rejected("forbidden", reason, "policy");
  }

  // An escalation a person approved, or a command every part of which a rule runs with `sandbox = "none"`,
  // runs outside the sandbox. The sandbox is checked before anyone is asked: nobody should approve what
  // cannot run.
  if (permissions === "require_escalated" && steps.remoteOnly === true) {
    steps.audit.decision(request, requirement, "forbidden", "policy");
    return rejected("sandbox-unavailable", REMOTE_ONLY_TEXT, "policy");
  }
  // Under remote, a rule's `sandbox = "none"` still runs in the agent's sandbox: nothing runs here.
  const unsandboxed =
    permissions === "require_escalated" || (requirement.bypassSandbox && steps.remoteOnly !== true);
  let prepared: PreparedSandbox | null = null;
  if (unsandboxed) {
    // The session's roots are still pinned first: what a command run outside the sandbox does (the
    // workspace moved aside, a symlink in its place) must not choose where later commands may write.
    // Preparing may fail here (no bwrap): the later sandboxed commands are then refused anyway.
    await steps.sandbox().catch(() => null);
  } else {
    try {
      prepared = await steps.sandbox();
    } catch (error) {
      // Fail closed: an unavailable sandbox is a rejection, never a run outside it.
      if (!isSandboxError(error) || error.code !== "SANDBOX_UNAVAILABLE") throw error;
      return rejected("sandbox-unavailable", `${error.message}. The command did not run.`, "policy");
    }
  }

  const unasked = requirement.type !== "needs-approval";
  if (requirement.type === "needs-approval") {
    const answer = await approvals.approve(request, explained, permissions, {}, { signal, approver });
    if (answer.status === "rejected") return answer;
  } else {
    steps.audit.decision(request, requirement, "approved", requirement.bypassSandbox ? "rule" : "policy");
  }
  if (signal?.aborted) return rejected("canceled", CANCELED_BEFORE_START, "user");

  // Outside the sandbox by a rule alone, nobody looked at the repository it runs git in: no hooks.
  const first = await launch(
    prepared,
    unasked && unsandboxed
      ? { ...plan, hostGitGuard: true, ...(repository === null ? {} : { gitRepository: repository }) }
      : plan,
  );
  if (!first.denied) {
    const offline =
      prepared !== null &&
      prepared.backend !== null &&
      sandboxCutsNetwork(sandboxPolicy) &&
      failedOffline(first);
    const canEscalate = request.sandboxPermissions !== undefined && steps.remoteOnly !== true;
    const hintPolicy = steps.remoteOnly === true ? "never" : approvalPolicy;
    const hint = offline
      ? noNetworkHint(sandboxPolicy.mode, hintPolicy, canEscalate)
      : sandboxed(prepared) && looksLikeGitConfigWrite(first.denialExcerpt())
        ? gitConfigHint(hintPolicy, canEscalate)
        : first.failed
          ? blockedText(first, request.cwd, hintPolicy, canEscalate)
          : null;
    // Outside a restricting sandbox because the model asked and a person said yes: escalated.
    const restricting = sandboxPolicy.mode === "read-only" || sandboxPolicy.mode === "workspace-write";
    return {
      status: "done",
      value: first,
      escalated: restricting && permissions === "require_escalated" && prepared === null,
      denied: false,
      hint: withRepairs(hint, first.notices),
    };
  }

  // The sandbox denied it. It may run outside the sandbox only where a person can be asked first, and is
  // asked again even when the command itself was approved (that approval was for the sandbox), unless
  // this very retry was approved for the session.
  if (approvalPolicy === "never" || approvalPolicy === "on-request" || steps.remoteOnly === true) {
    // Under remote no retry outside the sandbox exists: the hint offers none.
    const policy = steps.remoteOnly === true ? "never" : approvalPolicy;
    const canEscalate = request.sandboxPermissions !== undefined && steps.remoteOnly !== true;
    const hint = looksLikeGitConfigWrite(first.denialExcerpt())
      ? gitConfigHint(policy, canEscalate)
      : (blockedText(first, request.cwd, policy, canEscalate) ??
        denialHint(sandboxPolicy.mode, policy, canEscalate));
    return {
      status: "done",
      value: first,
      escalated: false,
      denied: true,
      hint: withRepairs(hint, first.notices),
    };
  }
  await first.discard();
  const answer = await approvals.approve(
    request,
    explained,
    "require_escalated",
    {
      reason: RETRY_WITHOUT_SANDBOX_REASON,
      sandboxDenial: first.denialExcerpt(),
      explanation: retryExplanation(sandboxPolicy.mode),
    },
    { signal, approver },
  );
  if (answer.status === "rejected") return answer;
  if (signal?.aborted) return rejected("canceled", CANCELED_BEFORE_START, "user");
  // What the sandboxed attempt left in the repository was moved aside before the retry: say so.
  const notices = first.notices;
  return {
    status: "done",
    value: await launch(null, plan),
    escalated: true,
    denied: false,
    hint: withRepairs(null, notices),
  };
}

/**
 * The requirement, unless a rule alone lifts the sandbox (`sandbox = "none"`, nobody asked) for a command
 * whose gits would read config a sandboxed command could have written (`hostGitExposure`): the host git
 * guard turns off hooks and fsmonitor, but not an alias, a filter or a credential helper of that config.
 * Then the person is asked, with that reason; where nobody is ever asked (`never`), it runs in the sandbox.
 */
async function liftedByRuleAlone(
  steps: PipelineSteps,
  request: CommandRequest,
  explained: ExplainedRequirement,
): Promise<{ explained: ExplainedRequirement; repository: GitRepositoryPin | null }> {
  const { requirement } = explained;
  const mode = steps.sandboxPolicy.mode;
  const unchanged = { explained, repository: null };
  if (requirement.type !== "skip" || !requirement.bypassSandbox) return unchanged;
  if (mode !== "read-only" && mode !== "workspace-write") return unchanged;
  // A sandboxed session still running can change the repository between this check and the run.
  const live = steps.liveSessions();
  const exposure: GitHostExposure =
    live > 0
      ? {
          exposed: true,
          reason: `${live} live session${live === 1 ? " is" : "s are"} running, which could change the repository while it runs`,
        }
      : await steps.planner.hostGitExposure(request);
  if (!exposure.exposed) return { explained, repository: exposure.repository };
  if (steps.approvalPolicy === "never") {
    return {
      explained: {
        requirement: { ...requirement, bypassSandbox: false },
        explanation: explained.explanation,
      },
      repository: null,
    };
  }
  const why = `a rule runs it outside the sandbox, but git there could run what sandboxed commands wrote: ${exposure.reason}`;
  return {
    explained: {
      requirement: { ...requirement, type: "needs-approval", reason: why },
      explanation: {
        why,
        advice:
          "Run it in the sandbox instead, or tell the user what it needs: only a person may run it outside the sandbox now.",
        notAsked: null,
      },
    },
    repository: null,
  };
}

/**
 * What the sandbox kept the command from, said for what it was (a hidden secret, a path only its owner
 * reads, a read-only path), from what it printed; null when it printed no such error.
 */
function blockedText(
  attempt: Attempt,
  cwd: string,
  approvalPolicy: ApprovalPolicy,
  canEscalate: boolean,
): string | null {
  if (attempt.rules === null) return null;
  return blockedHint(
    blockedPaths(attempt.denialExcerpt(), attempt.rules, cwd, { sandbox: attempt.sandbox }),
    attempt.rules,
    escalationWords(approvalPolicy, canEscalate),
    { sandbox: attempt.sandbox },
  );
}

/** How a tool asks to leave the sandbox, in the words of a hint; null where it cannot. */
export function escalationWords(approvalPolicy: ApprovalPolicy, canEscalate: boolean): string | null {
  return approvalPolicy === "on-request" && canEscalate
    ? 'run it again with sandbox_permissions "require_escalated" and a justification, and the user will be asked'
    : null;
}

/** It failed, and what it printed says a connection or a name lookup failed. */
function failedOffline(attempt: Attempt): boolean {
  return attempt.failed && looksLikeNetworkFailure(attempt.denialExcerpt());
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}

/** Whether a command ran under a sandbox of this machine (not none, not outside it). */
function sandboxed(prepared: PreparedSandbox | null): boolean {
  return prepared !== null && prepared.backend !== null;
}
