// What happens to a command no rule matches: Codex's `render_decision_for_unmatched_command`.
import { type DangerousMatch, dangerousCommandMatch, isKnownSafeCommand } from "@conch/arity-rules";
import type { Decision } from "@conch/exec-policy";
import type { ApprovalPolicy, SandboxMode, SandboxPermissions } from "@conch/protocol";

export interface UnmatchedCommandContext {
  approvalPolicy: ApprovalPolicy;
  sandboxMode: SandboxMode;
  sandboxPermissions: SandboxPermissions;
  /**
   * Codex's `used_complex_parsing`: the command was not read with certainty (a heredoc's command words,
   * or a script that is judged whole), so it never counts as known safe.
   */
  usedComplexParsing: boolean;
}

/** The heuristics' decision, and the dangerous command that drove it, if one did. */
export interface HeuristicVerdict {
  decision: Decision;
  dangerous: DangerousMatch | null;
}

/**
 * The heuristics for one command:
 * 1. known safe (and read with certainty) under `untrusted`: allow;
 * 2. dangerous (forced `rm`, `git reset --hard`, …): prompt, or forbidden under `never`;
 * 3. otherwise by policy: `never` and `on-failure` allow (the sandbox holds it), `untrusted` prompts,
 *    `on-request` allows unless it asks to leave a restricting sandbox (`require_escalated` under
 *    `read-only`/`workspace-write`).
 */
export async function judgeUnmatchedCommand(
  argv: readonly string[],
  context: UnmatchedCommandContext,
): Promise<HeuristicVerdict> {
  const { approvalPolicy, sandboxMode, sandboxPermissions, usedComplexParsing } = context;
  if (approvalPolicy === "untrusted" && !usedComplexParsing && (await isKnownSafeCommand(argv))) {
    return { decision: "allow", dangerous: null };
  }
  const dangerous = await dangerousCommandMatch(argv);
  if (dangerous !== null) return { decision: approvalPolicy === "never" ? "forbidden" : "prompt", dangerous };
  switch (approvalPolicy) {
    case "never":
    case "on-failure":
      return { decision: "allow", dangerous: null };
    case "untrusted":
      return { decision: "prompt", dangerous: null };
    case "on-request": {
      const unrestricted = sandboxMode === "danger-full-access" || sandboxMode === "external-sandbox";
      const escalates = sandboxPermissions === "require_escalated";
      return { decision: !unrestricted && escalates ? "prompt" : "allow", dangerous: null };
    }
  }
}

/** The decision for a command no exec-policy rule matches. */
export async function unmatchedCommandDecision(
  argv: readonly string[],
  context: UnmatchedCommandContext,
): Promise<Decision> {
  return (await judgeUnmatchedCommand(argv, context)).decision;
}
