import {
  type Decision,
  type ExecPolicy,
  evaluateExecPolicy,
  type RuleMatch,
  withPrefixRule,
} from "@conch/exec-policy";

/**
 * Prefix rules a model may ask for that are never proposed (Codex's `BANNED_PREFIX_SUGGESTIONS`, its
 * latest list): each would approve every script of an interpreter or shell, every package script, or
 * everything behind `env`, `sudo`, `git` or `rm`. Only an exact match is refused;
 * `["python3", "-c", "print(1)"]` may still be proposed.
 */
export const BANNED_PREFIX_SUGGESTIONS: readonly (readonly string[])[] = [
  ["/bin/bash"],
  ["/bin/bash", "-c"],
  ["/bin/bash", "-lc"],
  ["/bin/sh"],
  ["/bin/sh", "-c"],
  ["/bin/sh", "-lc"],
  ["/bin/zsh"],
  ["/bin/zsh", "-c"],
  ["/bin/zsh", "-lc"],
  ["Rscript"],
  ["bash"],
  ["bash", "-c"],
  ["bash", "-lc"],
  ["bun"],
  ["bun", "-e"],
  ["bun", "run"],
  ["cmd"],
  ["cmd", "/c"],
  ["cmd", "/k"],
  ["cmd.exe"],
  ["cmd.exe", "/c"],
  ["cmd.exe", "/k"],
  ["dash"],
  ["dash", "-c"],
  ["deno"],
  ["deno", "eval"],
  ["env"],
  ["fish"],
  ["fish", "-c"],
  ["git"],
  ["julia"],
  ["julia", "-e"],
  ["ksh"],
  ["ksh", "-c"],
  ["lua"],
  ["lua", "-e"],
  ["node"],
  ["node", "-e"],
  ["nodejs"],
  ["nodejs", "-e"],
  ["npm", "run"],
  ["osascript"],
  ["perl"],
  ["perl", "-e"],
  ["php"],
  ["php", "-r"],
  ["pnpm", "run"],
  ["powershell"],
  ["powershell", "-Command"],
  ["powershell", "-EncodedCommand"],
  ["powershell", "-File"],
  ["powershell", "-c"],
  ["powershell.exe"],
  ["powershell.exe", "-Command"],
  ["powershell.exe", "-EncodedCommand"],
  ["powershell.exe", "-File"],
  ["powershell.exe", "-c"],
  ["pwsh"],
  ["pwsh", "-Command"],
  ["pwsh", "-EncodedCommand"],
  ["pwsh", "-File"],
  ["pwsh", "-c"],
  ["pwsh", "-e"],
  ["pwsh", "-ec"],
  ["pwsh", "-f"],
  ["py"],
  ["py", "-3"],
  ["pypy"],
  ["pypy3"],
  ["python"],
  ["python", "-"],
  ["python", "-c"],
  ["python3"],
  ["python3", "-"],
  ["python3", "-c"],
  ["pythonw"],
  ["pyw"],
  ["rm"],
  ["ruby"],
  ["ruby", "-e"],
  ["sh"],
  ["sh", "-c"],
  ["sh", "-lc"],
  ["sudo"],
  ["yarn", "run"],
  ["zsh"],
  ["zsh", "-c"],
  ["zsh", "-lc"],
];

function sameTokens(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((token, i) => token === b[i]);
}

const isPrefixRuleMatch = (match: RuleMatch): boolean => match.type === "prefixRuleMatch";

/** Would allowing `prefix` make every command run unasked (each then evaluates to `allow`)? */
function approvesAllCommands(
  policy: ExecPolicy,
  prefix: readonly string[],
  commands: readonly (readonly string[])[],
  fallback: (command: readonly string[]) => Decision,
): boolean {
  const amended = withPrefixRule(policy, prefix, "allow");
  return commands.every(
    (command) => evaluateExecPolicy(amended, [command], { fallback }).decision === "allow",
  );
}

/**
 * The prefix rule the model asked for, if it may be proposed (Codex's
 * `derive_requested_execpolicy_amendment_from_prefix_rule`): not empty, not banned, no rule already
 * matches the command (a new one could conflict or not apply), and allowing it would let every part of
 * the command run unasked.
 */
export function deriveRequestedPrefixRule(
  prefixRule: readonly string[] | null | undefined,
  matchedRules: readonly RuleMatch[],
  policy: ExecPolicy,
  commands: readonly (readonly string[])[],
  fallback: (command: readonly string[]) => Decision,
): string[] | null {
  if (prefixRule === null || prefixRule === undefined || prefixRule.length === 0) return null;
  if (BANNED_PREFIX_SUGGESTIONS.some((banned) => sameTokens(banned, prefixRule))) return null;
  if (matchedRules.some(isPrefixRuleMatch)) return null;
  return approvesAllCommands(policy, prefixRule, commands, fallback) ? [...prefixRule] : null;
}

/**
 * For a prompt the heuristics raised: the first command they asked about, whose allowing would skip
 * that prompt next time. None when a rule prompts, since a new rule would not lift that rule's prompt.
 */
export function prefixRuleForPrompt(matchedRules: readonly RuleMatch[]): string[] | null {
  if (matchedRules.some((match) => isPrefixRuleMatch(match) && match.decision === "prompt")) return null;
  for (const match of matchedRules) {
    if (match.type === "heuristicsRuleMatch" && match.decision === "prompt") return [...match.command];
  }
  return null;
}

/**
 * For a command the heuristics let run in the sandbox: the first such command, so that after a sandbox
 * denial the user may allow it outside the sandbox for good. None when any rule matched, since the
 * command would then already run as the rules say.
 */
export function prefixRuleForAllow(matchedRules: readonly RuleMatch[]): string[] | null {
  if (matchedRules.some(isPrefixRuleMatch)) return null;
  for (const match of matchedRules) {
    if (match.type === "heuristicsRuleMatch" && match.decision === "allow") return [...match.command];
  }
  return null;
}
