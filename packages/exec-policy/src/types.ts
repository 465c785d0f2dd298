import type { Decision } from "./decision.js";

/** One pattern position: a literal token, or two or more alternatives any of which matches. */
export type PatternToken = string | readonly string[];

/** Where a rule was written: its file and the 1-based line of its `prefix_rule(` call or `[[rule]]` header. */
export interface RuleSource {
  readonly path: string;
  readonly line: number;
}

/**
 * A prefix rule keyed by its program. A pattern whose first position lists alternatives becomes one
 * rule per alternative (Codex does the same); later positions keep their alternatives.
 */
export interface PrefixRule {
  readonly program: string;
  readonly rest: readonly PatternToken[];
  readonly decision: Decision;
  readonly justification: string | null;
  /**
   * `"none"`: an allow rule that also lifts the sandbox (the command runs with the user's full rights).
   * Absent: the command runs in the sandbox, whatever the decision.
   */
  readonly sandbox?: "none";
  /** Where the rule was read from; absent for a rule made in memory (`withPrefixRule`). */
  readonly source?: RuleSource;
}

export type NetworkProtocol = "http" | "https" | "socks5_tcp" | "socks5_udp";

export interface NetworkRule {
  /** Lower-cased host without port, scheme or trailing dot. */
  readonly host: string;
  readonly protocol: NetworkProtocol;
  readonly decision: Decision;
  readonly justification: string | null;
}

/** A loaded exec policy. Build it with `loadExecPolicy`/`loadExecPolicyFiles`; treat it as immutable. */
export interface ExecPolicy {
  /** Rules by program (first token), each list in load order. */
  readonly rulesByProgram: ReadonlyMap<string, readonly PrefixRule[]>;
  /** Absolute paths allowed to resolve to each bare executable name; the last definition wins. */
  readonly hostExecutables: ReadonlyMap<string, readonly string[]>;
  readonly networkRules: readonly NetworkRule[];
}

export interface PrefixRuleMatch {
  readonly type: "prefixRuleMatch";
  /** The command tokens that matched the pattern (the basename when matched through a host path). */
  readonly matchedPrefix: readonly string[];
  readonly decision: Decision;
  /** The absolute program path when the match went through host-executable resolution. */
  readonly resolvedProgram: string | null;
  readonly justification: string | null;
  /** The rule's `sandbox`, when it says `"none"`. */
  readonly sandbox?: "none";
}

export interface HeuristicsRuleMatch {
  readonly type: "heuristicsRuleMatch";
  readonly command: readonly string[];
  readonly decision: Decision;
}

export type RuleMatch = PrefixRuleMatch | HeuristicsRuleMatch;

export interface ExecPolicyEvaluation {
  /** The strictest decision across `matchedRules` (forbidden > prompt > allow). */
  readonly decision: Decision;
  readonly matchedRules: readonly RuleMatch[];
}
