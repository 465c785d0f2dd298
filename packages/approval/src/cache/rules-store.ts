import { appendAllowPrefixRule } from "../rules/amend.js";
import { storablePrefixRule } from "./storable-prefix-rule.js";

/**
 * "Always allow" for `argv`: derives the prefix rule with `storablePrefixRule` and appends it to the rules
 * file (`.rules` or `.toml`) atomically. Returns the stored prefix, the prefix when an identical rule was
 * already there, or null when no rule may be stored for this command (banned, non-literal, or empty):
 * then nothing is written and the approval holds for this command only.
 */
export async function storeAlwaysAllowRule(path: string, argv: readonly string[]): Promise<string[] | null> {
  const prefix = storablePrefixRule(argv);
  if (prefix === null) return null;
  await appendAllowPrefixRule(path, prefix);
  return prefix;
}
