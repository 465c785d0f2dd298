import type { ExecPolicy } from "@conch/exec-policy";
import type { ApprovalPolicy, SandboxMode, SandboxPermissions } from "@conch/protocol";
import type { RequirementExplanation } from "./reasons.js";

export const REQUIREMENT_TYPES: readonly ["skip", "needs-approval", "forbidden"] = [
  "skip",
  "needs-approval",
  "forbidden",
] as const;

export type RequirementType = (typeof REQUIREMENT_TYPES)[number];

/** What must happen before a command may run (Codex's `ExecApprovalRequirement`). */
export interface ApprovalRequirement {
  /** `skip`: run without asking; `needs-approval`: ask first; `forbidden`: never run it. */
  type: RequirementType;
  /**
   * For `forbidden`, why, in words a model can act on. For `needs-approval`, the rule that asks (null
   * when the heuristics ask). Null for `skip`.
   */
  reason: string | null;
  /**
   * A prefix rule that would let this command (and its kind) run unasked next time, Codex's
   * `proposed_execpolicy_amendment`; null when none applies. Storing it still goes through
   * `storablePrefixRule`, which refuses banned and non-literal prefixes.
   */
  proposedRule: string[] | null;
  /**
   * `skip` only: the command may run outside the sandbox, because it was read with certainty (no
   * unmodelled builtin, evaluated text, command option or PATH change either), every part of it (behind
   * runners too) is allowed by a rule that says `sandbox = "none"`, and, when `programs` is given, every
   * program certainly resolves outside the writable roots. An allow rule alone only skips asking; the
   * heuristics never lift the sandbox.
   */
  bypassSandbox: boolean;
}

/** A requirement, and what decided it when it is not `skip` (`explainedApprovalRequirement`). */
export interface ExplainedRequirement {
  readonly requirement: ApprovalRequirement;
  readonly explanation: RequirementExplanation | null;
}

export interface ApprovalRequirementInput {
  /** The command as it will be spawned, e.g. `["bash", "-lc", "cargo build && echo ok"]`. */
  argv: readonly string[];
  /** The exec-policy rules. */
  execPolicy: ExecPolicy;
  approvalPolicy: ApprovalPolicy;
  /** The sandbox the command runs in; only its mode matters here. */
  sandboxMode: SandboxMode;
  sandboxPermissions: SandboxPermissions;
  /** The prefix rule the model asked to have approved along with this command (`prefix_rule`). */
  prefixRule?: readonly string[] | null;
  /**
   * How bare program names resolve when the command runs: its PATH (entries split on ":"; an empty or
   * relative entry is resolved against `cwd`), and the directories a sandboxed command can write. A
   * program that PATH resolves first to a file under one of `writableRoots` (checking the candidate path
   * and, if it is a symlink, where it leads), or that is named by a path under one (`./x`, `/ws/bin/x`),
   * or found through a relative or empty PATH entry, is not the program its name says.
   */
  programs?: ProgramLookup;
}

/**
 * Where the programs of a command are looked up (`ApprovalRequirementInput.programs`). When a command line
 * reaches a program that is not the one its name says, nothing in it is known safe, no allow rule applies
 * to it (prompt and forbidden rules still match by name), it never leaves the sandbox, and the reason
 * names the program and where it resolved. Resolution only reads file metadata.
 */
export interface ProgramLookup {
  /** The PATH the command runs with. */
  readonly path: string;
  /** The absolute directory the command starts in. */
  readonly cwd: string;
  /** The directories a sandboxed command can write (the workspace, its /tmp, configured extras). */
  readonly writableRoots: readonly string[];
}
