// Anything exported here is public API of @conch/exec-policy.
export { appendAllowRuleToFile, appendNetworkRuleToFile } from "./amend.js";
export { DECISIONS, type Decision, strictestDecision } from "./decision.js";
export {
  EXEC_POLICY_ERROR_CODES,
  ExecPolicyError,
  type ExecPolicyErrorCode,
  isExecPolicyError,
} from "./errors.js";
export {
  checkExecPolicy,
  type EvaluateExecPolicyOptions,
  type ExecPolicyCheckOutput,
  type ExecPolicyCheckRuleMatch,
  evaluateExecPolicy,
} from "./evaluate.js";
export { withPrefixRule } from "./exec-policy.js";
export { executableName, normalizeAbsolutePath } from "./host-executable.js";
export { loadExecPolicy, loadExecPolicyFiles, type RulesFile } from "./load.js";
export {
  type HostExecutableResolution,
  matchCommand,
  possibleRestrictiveMatches,
  ruleOfMatch,
} from "./match.js";
export { compileNetworkDomains } from "./network.js";
export type {
  ExecPolicy,
  ExecPolicyEvaluation,
  HeuristicsRuleMatch,
  NetworkProtocol,
  NetworkRule,
  PatternToken,
  PrefixRule,
  PrefixRuleMatch,
  RuleMatch,
  RuleSource,
} from "./types.js";
