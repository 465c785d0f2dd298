import { execPolicyFromParts } from "./exec-policy.js";
import { matchCommand } from "./match.js";
import { RuleProblem } from "./problem.js";
import { shlexJoin, shlexSplit } from "./shlex.js";
import type { PatternToken, PrefixRule } from "./types.js";

/** An example as written: a string (shlex-split) or a list of tokens already checked to be strings. */
export function parseExample(example: string | readonly string[]): string[] {
  if (typeof example === "string") {
    const tokens = shlexSplit(example);
    if (tokens === null) throw new RuleProblem("invalid example: example string has invalid shell syntax");
    if (tokens.length === 0) throw new RuleProblem("invalid example: example cannot be an empty string");
    return tokens;
  }
  if (example.length === 0) throw new RuleProblem("invalid example: example cannot be an empty list");
  return [...example];
}

function renderPattern(pattern: readonly PatternToken[]): string {
  const render = (token: PatternToken): string =>
    typeof token === "string"
      ? JSON.stringify(token)
      : `[${token.map((alt) => JSON.stringify(alt)).join(", ")}]`;
  return `[${pattern.map(render).join(", ")}]`;
}

/** The examples of one rule, checked once the file that declares it has been read. */
export interface PendingExamples {
  /** The rules the pattern expanded to. */
  readonly rules: readonly PrefixRule[];
  readonly pattern: readonly PatternToken[];
  readonly matches: readonly (readonly string[])[];
  readonly notMatches: readonly (readonly string[])[];
}

/** Pending examples with where to blame a failure: the rule's line, and a label for TOML's `rule N`. */
export interface LocatedExamples extends PendingExamples {
  readonly line: number;
  readonly label: string | null;
}

/**
 * Codex's load-time check: no `not_match` example may match the rule, and every `match` example must,
 * each tried against this rule alone with host-executable resolution and the host executables known
 * so far.
 */
export function validateExamples(
  pending: PendingExamples,
  hostExecutables: ReadonlyMap<string, readonly string[]>,
): void {
  const rulesByProgram = new Map<string, PrefixRule[]>();
  for (const rule of pending.rules)
    rulesByProgram.set(rule.program, [...(rulesByProgram.get(rule.program) ?? []), rule]);
  const policy = execPolicyFromParts(rulesByProgram, hostExecutables, []);
  for (const example of pending.notMatches) {
    if (matchCommand(policy, example, "resolve").length > 0) {
      throw new RuleProblem(
        `expected example to not match rule \`${renderPattern(pending.pattern)}\`: ${shlexJoin(example)}`,
      );
    }
  }
  const unmatched = pending.matches.filter(
    (example) => matchCommand(policy, example, "resolve").length === 0,
  );
  if (unmatched.length > 0) {
    throw new RuleProblem(
      `expected every example to match rule \`${renderPattern(pending.pattern)}\`; unmatched examples: ${unmatched
        .map((example) => JSON.stringify(shlexJoin(example)))
        .join(", ")}`,
    );
  }
}
