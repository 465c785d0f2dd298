// Anything exported here is public API of @conch/approval.
export {
  type ApprovalRequest,
  type Approver,
  REVIEW_DECISIONS,
  type ReviewDecision,
  ScriptedApprover,
} from "./approver.js";
export { ApprovalCache, type ApprovalCacheKeyInput } from "./cache/approval-cache.js";
export { storeAlwaysAllowRule } from "./cache/rules-store.js";
export { bannedPrefixRuleReason, storablePrefixRule } from "./cache/storable-prefix-rule.js";
export { APPROVAL_ERROR_CODES, ApprovalError, type ApprovalErrorCode, isApprovalError } from "./errors.js";
export { type VisibleTextOptions, visibleText } from "./prompt/visible-text.js";
export { BANNED_PREFIX_SUGGESTIONS } from "./requirement/amendment.js";
export { approvalRequirement } from "./requirement/approval-requirement.js";
export {
  APPROVAL_POLICIES,
  type ApprovalPolicy,
  type ApprovalRequirement,
  type ApprovalRequirementInput,
  type ProgramLookup,
  REQUIREMENT_TYPES,
  type RequirementType,
  SANDBOX_PERMISSIONS,
  SANDBOX_POLICY_KINDS,
  type SandboxPermissions,
  type SandboxPolicyKind,
} from "./requirement/types.js";
export { type UnmatchedCommandContext, unmatchedCommandDecision } from "./requirement/unmatched-command.js";
export { appendAllowPrefixRule } from "./rules/amend.js";
export { DECISIONS, type Decision } from "./rules/decision.js";
export {
  checkPolicy,
  type EvaluatePolicyOptions,
  evaluatePolicy,
  type PolicyCheckOutput,
  type PolicyCheckRuleMatch,
} from "./rules/evaluate.js";
export { loadPolicy, loadPolicyFiles, type RulesFile } from "./rules/load.js";
export type { HostExecutableResolution } from "./rules/match.js";
export { compileNetworkDomains } from "./rules/network.js";
export { addPrefixRule } from "./rules/policy.js";
export type {
  HeuristicsRuleMatch,
  NetworkProtocol,
  NetworkRule,
  PatternToken,
  Policy,
  PolicyEvaluation,
  PrefixRule,
  PrefixRuleMatch,
  RuleMatch,
} from "./rules/types.js";
