import { isatty } from "node:tty";
import type { ApprovalAnswer, Approver } from "@conch/approval";
import {
  CONFIG_SANDBOX_MODES,
  type ConchRuntime,
  type ConfigSandboxMode,
  createRuntime,
} from "@conch/orchestrator";
import {
  APPROVAL_POLICIES,
  type ApprovalPolicy,
  expectedReceived,
  type ReviewDecision,
  TOOL_PROFILE_NAMES,
  type ToolProfileName,
  visibleText,
} from "@conch/protocol";
import { PromptApprover } from "../approval/prompt-approver.js";
import { UsageError } from "../errors.js";

/** The options every command that runs something through the orchestrator shares. */
export const POLICY_SPECS = {
  approval: { type: "string" },
  sandbox: { type: "string" },
  approver: { type: "string" },
} as const;

const APPROVER_KINDS = ["tty", "approve", "approve-session", "deny", "none"] as const;
type ApproverKind = (typeof APPROVER_KINDS)[number];

/** What the model and stderr are told when nobody could be asked: how the person would allow it. */
const NO_APPROVER_HINT =
  "to allow it, run conch with --approver approve (or approve-session), or at a terminal with " +
  "--approver tty, or with another --approval policy";

const FIXED_ANSWERS: Readonly<Record<Exclude<ApproverKind, "tty" | "none">, ReviewDecision>> = {
  approve: "approved",
  "approve-session": "approved_for_session",
  deny: "denied",
};

function oneOf<T extends string>(
  option: string,
  choices: readonly T[],
  value: unknown,
  command: string,
): T | undefined {
  if (value === undefined) return undefined;
  if ((choices as readonly unknown[]).includes(value)) return value as T;
  throw new UsageError(expectedReceived(`--${option}`, `one of ${choices.join(", ")}`, value), command);
}

export interface PolicyOptions {
  readonly approvalPolicy: ApprovalPolicy | undefined;
  readonly sandbox: ConfigSandboxMode | undefined;
  readonly approver: ApproverKind;
  readonly profile: ToolProfileName | undefined;
}

/** `--approval`, `--sandbox`, `--approver` (and `--profile` where it applies), checked. */
export function policyOptions(options: Record<string, unknown>, command: string): PolicyOptions {
  return {
    approvalPolicy: oneOf("approval", APPROVAL_POLICIES, options.approval, command),
    sandbox: oneOf("sandbox", CONFIG_SANDBOX_MODES, options.sandbox, command),
    // Asking needs someone to answer: by default only when a person is at the terminal.
    approver:
      // isatty, not process.stdin.isTTY: that would open stdin as a stream (and load its modules) just to ask.
      oneOf("approver", APPROVER_KINDS, options.approver, command) ?? (isatty(0) ? "tty" : "none"),
    profile: oneOf("profile", TOOL_PROFILE_NAMES, options.profile, command),
  };
}

/** The runtime for one CLI invocation, config warnings printed, and how to release it. */
export async function openRuntime(
  cwd: string,
  policy: PolicyOptions,
  options: { readonly oneCommand?: boolean } = {},
): Promise<{ runtime: ConchRuntime; close: () => Promise<void> }> {
  let prompt: PromptApprover | null = null;
  let approver: Approver | null = null;
  let runtime: ConchRuntime | null = null;
  if (policy.approver === "tty") {
    const current = (): ApprovalPolicy => runtime?.orchestrator.approvalPolicy ?? "on-request";
    prompt = new PromptApprover(process.stdin, process.stderr, current);
    approver = prompt;
  } else if (policy.approver !== "none") {
    const decision = FIXED_ANSWERS[policy.approver];
    // Nobody was asked: a refusal says so, rather than passing for a person's no.
    const answer: ApprovalAnswer =
      decision === "denied"
        ? {
            decision,
            outcome: "not-approved",
            decidedBy: "policy",
            reason:
              "refused: conch runs with --approver deny, which refuses whatever needs a yes without asking anyone; the command did not run",
          }
        : { decision };
    approver = { request: async () => answer };
  }
  runtime = await createRuntime({
    cwd,
    approver,
    // One command per process has nobody to share a network namespace with (CreateRuntimeOptions).
    ...(options.oneCommand === true ? { sharedNetwork: false } : {}),
    ...(policy.approver === "none" ? { noApproverHint: NO_APPROVER_HINT } : {}),
    ...(policy.approvalPolicy === undefined ? {} : { approvalPolicy: policy.approvalPolicy }),
    ...(policy.sandbox === undefined ? {} : { sandbox: policy.sandbox }),
    ...(policy.profile === undefined ? {} : { profile: policy.profile }),
    onAuditError: (error, path) => {
      process.stderr.write(
        `conch: warning: the audit log ${visibleText(path)} cannot be written (${visibleText(error.message)}); commands are not being recorded\n`,
      );
    },
  });
  // A project's config is the repository's, not the user's: its keys and values are shown escaped.
  for (const warning of runtime.config.warnings) {
    process.stderr.write(`conch: warning: ${visibleText(warning)}\n`);
  }
  const opened = runtime;
  return {
    runtime: opened,
    close: async () => {
      prompt?.close();
      await opened.close();
    },
  };
}
