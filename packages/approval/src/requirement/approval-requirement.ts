// Whether a command may run, must be approved first, or must never run: Codex's
// `create_exec_approval_requirement_for_command`, over Conch's analyser and rules.
import { analyze, type OpaqueReason, reachableCommands, shellScript } from "@conch/arity-rules";
import { type Decision, strictestDecision } from "../rules/decision.js";
import { evaluatePolicy } from "../rules/evaluate.js";
import { matchCommand } from "../rules/match.js";
import type { Policy, PrefixRuleMatch, RuleMatch } from "../rules/types.js";
import { deriveRequestedPrefixRule, prefixRuleForAllow, prefixRuleForPrompt } from "./amendment.js";
import { commandsForPolicy } from "./policy-commands.js";
import {
  escalationRejectedReason,
  forbiddenReason,
  PROMPT_CONFLICT_REASON,
  promptReason,
} from "./reasons.js";
import type { ApprovalRequirement, ApprovalRequirementInput } from "./types.js";
import { type HeuristicVerdict, judgeUnmatchedCommand } from "./unmatched-command.js";

function forbidden(reason: string): ApprovalRequirement {
  return { type: "forbidden", reason, proposedRule: null, bypassSandbox: false };
}

/**
 * The requirement for one command. A `bash|zsh|sh|dash -c|-lc SCRIPT` read with certainty is split into
 * its simple commands, and each is checked against the rules; a command no rule matches falls back to
 * the heuristics (known safe, dangerous, then the approval policy). The strictest decision wins
 * (forbidden > prompt > allow). A script the analyser cannot read with certainty is judged whole and
 * never counts as known safe; rules that prompt for or forbid a command inside it still apply.
 * Never runs anything.
 */
export async function approvalRequirement(input: ApprovalRequirementInput): Promise<ApprovalRequirement> {
  const { argv, policy, approvalPolicy, sandboxPolicy, sandboxPermissions } = input;
  if (sandboxPermissions === "require_escalated" && approvalPolicy !== "on-request") {
    return forbidden(escalationRejectedReason(approvalPolicy));
  }

  const parsed = await commandsForPolicy(argv);
  const context = {
    approvalPolicy,
    sandboxPolicy,
    sandboxPermissions,
    usedComplexParsing: !parsed.mayBeKnownSafe,
  };
  const verdicts = new Map<string, HeuristicVerdict>();
  for (const command of parsed.commands) {
    verdicts.set(JSON.stringify(command), await judgeUnmatchedCommand(command, context));
  }
  const verdictOf = (command: readonly string[]): HeuristicVerdict => {
    const verdict = verdicts.get(JSON.stringify(command));
    if (verdict === undefined) throw new Error(`no heuristic verdict for ${JSON.stringify(command)}`);
    return verdict;
  };
  const fallback = (command: readonly string[]): Decision => verdictOf(command).decision;

  const evaluation = evaluatePolicy(policy, parsed.commands, { fallback });
  // Rules that prompt for or forbid a program apply to whatever runs it, however it is reached: behind
  // wrappers and runners (`timeout 5 rm`, `sudo rm`), in substitutions, eval, trap or find -exec, and in
  // scripts judged as a whole. Rules that allow apply only to the commands above.
  const judged = new Set([argv, ...parsed.commands].map((command) => JSON.stringify(command)));
  const reached = [...parsed.innerCommands, ...(await reachableCommands(argv))].filter(
    (command) => !judged.has(JSON.stringify(command)),
  );
  const restrictions = [
    ...reached.flatMap((command) =>
      matchCommand(policy, command, "restrictive").filter((match) => match.decision !== "allow"),
    ),
    ...(await unreadScriptRestrictions(argv, policy)),
  ];
  const matchedRules: RuleMatch[] = [...evaluation.matchedRules, ...restrictions];
  const decision = strictestDecision(matchedRules.map((match) => match.decision)) as Decision;
  // A heredoc command's words are not all of what runs, so no rule is proposed from them.
  const proposalsAllowed = !parsed.usedComplexParsing;

  switch (decision) {
    case "forbidden": {
      const refused = matchedRules.find(
        (match) => match.type === "heuristicsRuleMatch" && match.decision === "forbidden",
      );
      const dangerous = refused?.type === "heuristicsRuleMatch" ? verdictOf(refused.command).dangerous : null;
      return forbidden(forbiddenReason(argv, matchedRules, dangerous));
    }
    case "prompt": {
      if (approvalPolicy === "never") return forbidden(PROMPT_CONFLICT_REASON);
      const requested = proposalsAllowed
        ? deriveRequestedPrefixRule(input.prefixRule, matchedRules, policy, parsed.commands, fallback)
        : null;
      return {
        type: "needs-approval",
        reason: promptReason(argv, matchedRules),
        proposedRule: requested ?? (proposalsAllowed ? prefixRuleForPrompt(matchedRules) : null),
        bypassSandbox: false,
      };
    }
    case "allow":
      return {
        type: "skip",
        reason: null,
        proposedRule: proposalsAllowed ? prefixRuleForAllow(matchedRules) : null,
        // Only when a rule explicitly allows every part: the heuristics never lift the sandbox.
        bypassSandbox: parsed.commands.every((command) =>
          matchCommand(policy, command, "resolve").some((match) => match.decision === "allow"),
        ),
      };
  }
}

/** Opaque parts that mean the analyser could not read the script's structure, so its commands are unknown. */
const UNREAD: ReadonlySet<OpaqueReason> = new Set([
  "parse-error",
  "unsupported-syntax",
  "too-large",
  "too-deep",
]);

/**
 * A script the analyser could not read may run any program named in it: every rule that prompts for
 * or forbids a program applies when that program appears anywhere in the script as a word, with line
 * continuations joined (`r\<newline>m` is `rm`). Fails closed; an allow rule never applies this way.
 */
async function unreadScriptRestrictions(argv: readonly string[], policy: Policy): Promise<PrefixRuleMatch[]> {
  const wrapped = shellScript(argv);
  if (wrapped === null) return [];
  const analysis = await analyze(wrapped.script);
  if (!analysis.opaque.some((part) => UNREAD.has(part.reason))) return [];
  const words = new Set<string>();
  for (const word of wrapped.script.replace(/\\\r?\n/g, "").split(/[\s;&|()<>`$'"\\{}=]+/)) {
    if (word !== "") words.add(word.slice(word.lastIndexOf("/") + 1));
  }
  const matches: PrefixRuleMatch[] = [];
  for (const [program, rules] of policy.rulesByProgram) {
    if (!words.has(program)) continue;
    for (const rule of rules) {
      if (rule.decision === "allow") continue;
      matches.push({
        type: "prefixRuleMatch",
        matchedPrefix: [program],
        decision: rule.decision,
        resolvedProgram: null,
        justification: rule.justification,
      });
    }
  }
  return matches;
}
