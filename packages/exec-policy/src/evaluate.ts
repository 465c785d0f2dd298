import { type Decision, strictestDecision } from "./decision.js";
import { type HostExecutableResolution, matchCommand } from "./match.js";
import type { ExecPolicy, ExecPolicyEvaluation, RuleMatch } from "./types.js";

export interface EvaluateExecPolicyOptions {
  /** The decision for a command no rule matches (Codex's heuristics fallback). */
  readonly fallback: Decision | ((command: readonly string[]) => Decision);
  /** Default `resolve`. */
  readonly hostExecutables?: HostExecutableResolution;
}

function isCommandList(
  commands: readonly string[] | readonly (readonly string[])[],
): commands is readonly (readonly string[])[] {
  return commands.length > 0 && Array.isArray(commands[0]);
}

/**
 * Checks one command (an argv) or several (the parts of a script) against the policy. Every matching
 * rule is reported; a command no rule matches gets one `heuristicsRuleMatch` with the fallback's
 * decision; the decision is the strictest of all. An empty argv is one command that matches nothing.
 */
export function evaluateExecPolicy(
  policy: ExecPolicy,
  commands: readonly string[] | readonly (readonly string[])[],
  options: EvaluateExecPolicyOptions,
): ExecPolicyEvaluation {
  const list: readonly (readonly string[])[] = isCommandList(commands)
    ? commands
    : [commands as readonly string[]];
  const resolution = options.hostExecutables ?? "resolve";
  const matchedRules: RuleMatch[] = [];
  for (const command of list) {
    const matches = matchCommand(policy, command, resolution);
    if (matches.length > 0) {
      matchedRules.push(...matches);
    } else {
      const { fallback } = options;
      const decision = typeof fallback === "function" ? fallback(command) : fallback;
      matchedRules.push({ type: "heuristicsRuleMatch", command: [...command], decision });
    }
  }
  return {
    decision: strictestDecision(matchedRules.map((match) => match.decision)) as Decision,
    matchedRules,
  };
}

/** One entry of `matchedRules` as `codex execpolicy check` prints it (serde's externally tagged enum). */
export interface ExecPolicyCheckRuleMatch {
  readonly prefixRuleMatch: {
    readonly matchedPrefix: readonly string[];
    readonly decision: Decision;
    readonly resolvedProgram?: string;
    readonly justification?: string;
    /** Conch's own: present when the rule lifts the sandbox. */
    readonly sandbox?: "none";
  };
}

/** What `codex execpolicy check` prints: without a matching rule, `{"matchedRules":[]}` and no decision. */
export interface ExecPolicyCheckOutput {
  readonly matchedRules: readonly ExecPolicyCheckRuleMatch[];
  readonly decision?: Decision;
}

/**
 * `codex execpolicy check` for one argv, ready for `JSON.stringify`: the matching rules only (no
 * fallback) in Codex's output shape, absent fields omitted as Codex omits them.
 */
export function checkExecPolicy(
  policy: ExecPolicy,
  command: readonly string[],
  options: { readonly hostExecutables?: HostExecutableResolution } = {},
): ExecPolicyCheckOutput {
  const matches = matchCommand(policy, command, options.hostExecutables ?? "resolve");
  const matchedRules = matches.map(
    (match): ExecPolicyCheckRuleMatch => ({
      prefixRuleMatch: {
        matchedPrefix: match.matchedPrefix,
        decision: match.decision,
        ...(match.resolvedProgram === null ? {} : { resolvedProgram: match.resolvedProgram }),
        ...(match.justification === null ? {} : { justification: match.justification }),
        ...(match.sandbox === undefined ? {} : { sandbox: match.sandbox }),
      },
    }),
  );
  const decision = strictestDecision(matches.map((match) => match.decision));
  return decision === undefined ? { matchedRules } : { matchedRules, decision };
}
