import { isLiteralToken } from "@conch/arity-rules";
import { appendAllowRuleToFile, type ExecPolicy, withPrefixRule } from "@conch/exec-policy";
import { ApprovalError } from "../errors.js";
import { bannedPrefixRuleReason } from "./storable-prefix-rule.js";

/** What `allowPrefixRule` gives back. */
export interface AllowedPrefixRule {
  /** The rules with the new allow rule: use them from now on. */
  readonly rules: ExecPolicy;
  /**
   * Settles once the rules file holds the rule: true when it was appended, false when the file already
   * had it (and at once, false, without a file). Rejects when the file cannot be written; `rules` still
   * hold the rule, for this session only.
   */
  readonly stored: Promise<boolean>;
}

/**
 * The one public way to add a rule, for a person's "always allow" of `prefix`: checks that the prefix
 * may be stored, then gives `rules` with an allow rule for it (Codex's `Policy::add_prefix_rule`) and,
 * given a `file`, appends the same rule to that rules file: Codex's `prefix_rule(...)` line in a `.rules`
 * file, a `[[rule]]` table in a `.toml` one; the file and its directory are created if needed, and the
 * file is replaced atomically (a symlinked file at its target). `prefix` is what `storablePrefixRule`
 * returned, as shown to the person who said yes: a banned or non-literal prefix is refused with
 * `INVALID_RULES`, and nothing changes.
 */
export function allowPrefixRule(
  rules: ExecPolicy,
  prefix: readonly string[],
  file?: string,
): AllowedPrefixRule {
  const refusal = prefix.every(isLiteralToken)
    ? bannedPrefixRuleReason(prefix)
    : "only literal tokens are stored";
  if (refusal !== null) {
    throw new ApprovalError(
      "INVALID_RULES",
      `prefix rule ${JSON.stringify(prefix)} is never stored: ${refusal}`,
    );
  }
  const stored = file === undefined ? Promise.resolve(false) : appendAllowRuleToFile(file, prefix);
  // A caller that keeps only `rules` must not crash the process with an unhandled rejection; one that
  // awaits `stored` still sees the failure.
  stored.catch(() => undefined);
  return { rules: withPrefixRule(rules, prefix, "allow"), stored };
}
