import { DECISIONS, type Decision, parseDecision } from "./decision.js";
import { ExecPolicyError } from "./errors.js";
import { RuleProblem } from "./problem.js";
import type { ExecPolicy, NetworkRule, PatternToken, PrefixRule, RuleSource } from "./types.js";

/** Checks a pattern and returns it with one-alternative lists reduced to their single token. */
export function normalizePattern(pattern: readonly PatternToken[]): PatternToken[] {
  if (pattern.length === 0) throw new RuleProblem("invalid pattern element: pattern cannot be empty");
  return pattern.map((token) => {
    if (typeof token === "string") return token;
    if (token.length === 0)
      throw new RuleProblem("invalid pattern element: pattern alternatives cannot be empty");
    return token.length === 1 ? (token[0] as string) : [...token];
  });
}

/** One rule per alternative of the pattern's first position, sharing the rest. */
export function expandPattern(
  pattern: readonly PatternToken[],
  decision: Decision,
  justification: string | null,
  sandbox: "none" | undefined,
  source: RuleSource,
): PrefixRule[] {
  const [first, ...rest] = normalizePattern(pattern);
  const programs = typeof first === "string" ? [first] : (first as readonly string[]);
  return programs.map((program) => ({
    program,
    rest,
    decision,
    justification,
    ...(sandbox === undefined ? {} : { sandbox }),
    source,
  }));
}

/**
 * A rule's `sandbox`: absent, or `"none"`, the only value, which an allow rule needs to lift the sandbox
 * (a rule that asks or forbids has no sandbox to lift).
 */
export function parseRuleSandbox(raw: string | null, decision: Decision): "none" | undefined {
  if (raw === null) return undefined;
  if (raw !== "none") {
    throw new RuleProblem(
      `invalid sandbox: ${JSON.stringify(raw)} (expected "none", which runs the command outside the sandbox)`,
    );
  }
  if (decision !== "allow") {
    throw new RuleProblem(
      `invalid sandbox: sandbox = "none" needs decision = "allow" (this rule's decision is "${decision}")`,
    );
  }
  return "none";
}

export function parseJustification(raw: string | null): string | null {
  if (raw !== null && raw.trim() === "") throw new RuleProblem("invalid rule: justification cannot be empty");
  return raw;
}

export function parseRuleDecision(raw: string | null): Decision {
  return raw === null ? "allow" : parseDecision(raw);
}

/** Accumulates the rules of one or more files in load order. */
export class ExecPolicyBuilder {
  readonly rulesByProgram: Map<string, PrefixRule[]> = new Map();
  readonly hostExecutables: Map<string, readonly string[]> = new Map();
  readonly networkRules: NetworkRule[] = [];

  /** Adds a rule read from a rules file, while loading; the built policy is immutable. */
  addRule(rule: PrefixRule): void {
    const rules = this.rulesByProgram.get(rule.program);
    if (rules === undefined) this.rulesByProgram.set(rule.program, [rule]);
    else rules.push(rule);
  }

  /** Replaces any earlier definition for the same name. */
  setHostExecutable(name: string, paths: readonly string[]): void {
    this.hostExecutables.set(name, [...new Set(paths)]);
  }

  addNetworkRule(rule: NetworkRule): void {
    this.networkRules.push(rule);
  }

  build(): ExecPolicy {
    return execPolicyFromParts(this.rulesByProgram, this.hostExecutables, this.networkRules);
  }
}

export function execPolicyFromParts(
  rulesByProgram: ReadonlyMap<string, readonly PrefixRule[]>,
  hostExecutables: ReadonlyMap<string, readonly string[]>,
  networkRules: readonly NetworkRule[],
): ExecPolicy {
  return Object.freeze({
    rulesByProgram: new Map(
      [...rulesByProgram].map(([program, rules]) => [program, Object.freeze([...rules])]),
    ),
    hostExecutables: new Map(hostExecutables),
    networkRules: Object.freeze([...networkRules]),
  });
}

/**
 * Adds a rule in memory only: a copy of `policy` with one more literal prefix rule (Codex's
 * `Policy::add_prefix_rule`); `policy` is left as it was, no file is written and nothing checks whether
 * the prefix may be stored (that is `allowPrefixRule`'s job).
 */
export function withPrefixRule(
  policy: ExecPolicy,
  prefix: readonly string[],
  decision: Decision,
): ExecPolicy {
  const [program, ...rest] = prefix;
  if (program === undefined) {
    throw new ExecPolicyError("INVALID_RULES", "invalid pattern element: prefix cannot be empty");
  }
  if (!DECISIONS.includes(decision))
    throw new ExecPolicyError("INVALID_RULES", `invalid decision: ${decision}`);
  const rulesByProgram = new Map(policy.rulesByProgram);
  rulesByProgram.set(program, [
    ...(policy.rulesByProgram.get(program) ?? []),
    { program, rest, decision, justification: null },
  ]);
  return execPolicyFromParts(rulesByProgram, policy.hostExecutables, policy.networkRules);
}
