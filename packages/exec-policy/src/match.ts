import { executableName, normalizeAbsolutePath } from "./host-executable.js";
import type { ExecPolicy, PrefixRule, PrefixRuleMatch } from "./types.js";

/**
 * How a command whose first token is a path (`/usr/bin/git`) relates to rules written for the bare
 * name (`git`), as in Codex:
 * - `resolve`: exact first-token rules first; if none matches and the token is an absolute path, the
 *   rules for its basename apply, unless `host_executable()` lists paths for that name and this path is
 *   not one of them. Matches found that way carry `resolvedProgram`.
 * - `exact`: only rules whose first token is the token as written.
 * - `restrictive`: exact matches plus every `prompt`/`forbidden` basename match, whatever the path
 *   (relative too) and whatever `host_executable()` says, so no spelling escapes a restriction.
 */
export type HostExecutableResolution = "resolve" | "exact" | "restrictive";

function matchRule(
  rule: PrefixRule,
  command: readonly string[],
  resolvedProgram: string | null,
): PrefixRuleMatch | null {
  const length = rule.rest.length + 1;
  if (command.length < length || command[0] !== rule.program) return null;
  for (let i = 0; i < rule.rest.length; i++) {
    const expected = rule.rest[i] as string | readonly string[];
    const actual = command[i + 1] as string;
    if (typeof expected === "string" ? expected !== actual : !expected.includes(actual)) return null;
  }
  return {
    type: "prefixRuleMatch",
    matchedPrefix: command.slice(0, length),
    decision: rule.decision,
    resolvedProgram,
    justification: rule.justification,
    ...(rule.sandbox === undefined ? {} : { sandbox: rule.sandbox }),
  };
}

function matchRules(
  rules: readonly PrefixRule[] | undefined,
  command: readonly string[],
  resolvedProgram: string | null,
): PrefixRuleMatch[] {
  const matches: PrefixRuleMatch[] = [];
  for (const rule of rules ?? []) {
    const match = matchRule(rule, command, resolvedProgram);
    if (match !== null) matches.push(match);
  }
  return matches;
}

function matchExact(policy: ExecPolicy, command: readonly string[]): PrefixRuleMatch[] {
  const program = command[0];
  return program === undefined ? [] : matchRules(policy.rulesByProgram.get(program), command, null);
}

function matchHostExecutable(policy: ExecPolicy, command: readonly string[]): PrefixRuleMatch[] {
  const [first, ...args] = command;
  // Codex also resolves a relative path, against its own working directory; that says nothing about
  // where the command runs, so here only absolute paths resolve.
  if (first === undefined || !first.startsWith("/")) return [];
  const name = executableName(first);
  if (name === null) return [];
  const program = normalizeAbsolutePath(first);
  const allowedPaths = policy.hostExecutables.get(name);
  if (allowedPaths !== undefined && !allowedPaths.includes(program)) return [];
  return matchRules(policy.rulesByProgram.get(name), [name, ...args], program);
}

function matchRestrictive(policy: ExecPolicy, command: readonly string[]): PrefixRuleMatch[] {
  const [first, ...args] = command;
  if (first === undefined) return [];
  const name = executableName(first);
  if (name === null) return [];
  const program = first.startsWith("/") ? normalizeAbsolutePath(first) : null;
  return matchRules(policy.rulesByProgram.get(name), [name, ...args], program).filter(
    (match) => match.decision !== "allow",
  );
}

function sameMatch(a: PrefixRuleMatch, b: PrefixRuleMatch): boolean {
  return (
    a.decision === b.decision &&
    a.resolvedProgram === b.resolvedProgram &&
    a.justification === b.justification &&
    a.sandbox === b.sandbox &&
    a.matchedPrefix.length === b.matchedPrefix.length &&
    a.matchedPrefix.every((token, i) => token === b.matchedPrefix[i])
  );
}

/** Every rule of the policy that matches one command, in rule order; no fallback. */
export function matchCommand(
  policy: ExecPolicy,
  command: readonly string[],
  resolution: HostExecutableResolution,
): PrefixRuleMatch[] {
  const exact = matchExact(policy, command);
  switch (resolution) {
    case "exact":
      return exact;
    case "resolve":
      return exact.length > 0 ? exact : matchHostExecutable(policy, command);
    case "restrictive": {
      const matches = [...exact];
      for (const match of matchRestrictive(policy, command)) {
        if (!matches.some((existing) => sameMatch(existing, match))) matches.push(match);
      }
      return matches;
    }
  }
}

/**
 * Restrictive rules a command may match once its words that are not literal are expanded (`npm $verb`
 * for `npm publish`, `curl $opts -X DELETE` for `curl -X DELETE`): each such word may become any words or
 * none, so a rule applies when its pattern agrees with every literal word before the first of them and
 * goes on past it. `dynamic` holds the indexes of those words. The match is not certain, so it asks
 * (`prompt`) whatever the rule decides; a certain match is `matchCommand`'s.
 */
export function possibleRestrictiveMatches(
  policy: ExecPolicy,
  command: readonly string[],
  dynamic: readonly number[],
): PrefixRuleMatch[] {
  const [first] = command;
  const firstDynamic = dynamic[0];
  if (first === undefined || firstDynamic === undefined || firstDynamic === 0) return [];
  const name = executableName(first);
  if (name === null) return [];
  const matches: PrefixRuleMatch[] = [];
  for (const rule of policy.rulesByProgram.get(name) ?? []) {
    if (rule.decision === "allow" || rule.rest.length < firstDynamic) continue;
    const agrees = rule.rest.slice(0, firstDynamic - 1).every((expected, index) => {
      const actual = command[index + 1] as string;
      return typeof expected === "string" ? expected === actual : expected.includes(actual);
    });
    if (!agrees) continue;
    matches.push({
      type: "prefixRuleMatch",
      matchedPrefix: [name, ...command.slice(1, firstDynamic + 1)],
      decision: "prompt",
      resolvedProgram: null,
      justification: rule.justification,
    });
  }
  return matches;
}

/**
 * The rule a match came from, to say where it was written: the first rule of the matched program (by
 * name, as `matchedPrefix` gives it after host-executable resolution) with the match's decision and
 * justification whose pattern matches `matchedPrefix` whole. Null for a match no rule of the policy
 * makes (one built by hand).
 */
export function ruleOfMatch(policy: ExecPolicy, match: PrefixRuleMatch): PrefixRule | null {
  const [program, ...words] = match.matchedPrefix;
  if (program === undefined) return null;
  const name = executableName(program) ?? program;
  for (const rule of policy.rulesByProgram.get(name) ?? []) {
    if (rule.decision !== match.decision || rule.justification !== match.justification) continue;
    if (rule.rest.length !== words.length) continue;
    const agrees = rule.rest.every((expected, index) => {
      const actual = words[index] as string;
      return typeof expected === "string" ? expected === actual : expected.includes(actual);
    });
    if (agrees) return rule;
  }
  return null;
}
