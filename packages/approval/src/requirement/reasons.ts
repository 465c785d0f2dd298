// The texts a model reads when a command is refused or waits for approval. Where Codex has a text, it
// is Codex's word for word, so a model trained on Codex recognises it.
import type { DangerousMatch } from "@conch/arity-rules";
import type { PrefixRuleMatch, RuleMatch } from "../rules/types.js";
import { renderCommand } from "./render-command.js";
import type { ApprovalPolicy } from "./types.js";

export const PROMPT_CONFLICT_REASON = "approval required by policy, but AskForApproval is set to Never";

/** Under any policy but `on-request`, nobody grants escalation (Codex says so in its shell handlers). */
export function escalationRejectedReason(approvalPolicy: ApprovalPolicy): string {
  return (
    `approval policy is ${approvalPolicy}; reject command — you should not ask for escalated permissions ` +
    `if the approval policy is ${approvalPolicy}. Run it again with sandbox_permissions "use_default".`
  );
}

/** The matching rule with the longest prefix, the last of equals (Rust's `max_by_key`). */
function mostSpecific(
  matchedRules: readonly RuleMatch[],
  decision: "prompt" | "forbidden",
): PrefixRuleMatch | null {
  let best: PrefixRuleMatch | null = null;
  for (const match of matchedRules) {
    if (match.type !== "prefixRuleMatch" || match.decision !== decision) continue;
    if (best === null || match.matchedPrefix.length >= best.matchedPrefix.length) best = match;
  }
  return best;
}

/** Why a prompt is needed, only when a rule asks for it; the heuristics' prompts carry no reason. */
export function promptReason(argv: readonly string[], matchedRules: readonly RuleMatch[]): string | null {
  const rule = mostSpecific(matchedRules, "prompt");
  if (rule === null) return null;
  const command = renderCommand(argv);
  return rule.justification === null
    ? `\`${command}\` requires approval by policy`
    : `\`${command}\` requires approval: ${rule.justification}`;
}

/**
 * Why the command is refused: the most specific forbidding rule (its justification, or the prefix it
 * forbids), else the dangerous command the heuristics refused under `never`.
 */
export function forbiddenReason(
  argv: readonly string[],
  matchedRules: readonly RuleMatch[],
  dangerous: DangerousMatch | null,
): string {
  const command = renderCommand(argv);
  const rule = mostSpecific(matchedRules, "forbidden");
  if (rule !== null) {
    return rule.justification === null
      ? `\`${command}\` rejected: policy forbids commands starting with \`${renderCommand(rule.matchedPrefix)}\``
      : `\`${command}\` rejected: ${rule.justification}`;
  }
  if (dangerous === null) return `\`${command}\` rejected: blocked by policy`;
  if (dangerous.kind === "forced-rm") {
    return `\`${command}\` rejected: rm -f style commands are not permitted. Use a safer approach`;
  }
  return `\`${command}\` rejected: ${dangerous.reason}; such commands are not permitted. Use a safer approach`;
}
