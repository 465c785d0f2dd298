// Anything exported here is public API of @conch/approval.

export { ApprovalCache, type ApprovalCacheKeyInput } from "./always-allow/approval-cache.js";
export { type AllowedPrefixRule, allowPrefixRule } from "./always-allow/rules-store.js";
export { bannedPrefixRuleReason, storablePrefixRule } from "./always-allow/storable-prefix-rule.js";
export {
  type ApprovalAnswer,
  type ApprovalAnswerer,
  type ApprovalRequest,
  type Approver,
  type NetworkQuestion,
  ScriptedApprover,
  type SessionInputQuestion,
} from "./approver.js";
export { APPROVAL_ERROR_CODES, ApprovalError, type ApprovalErrorCode, isApprovalError } from "./errors.js";
export { type ExplainOptions, type ExplainReport, explainCommand } from "./explain/explain-command.js";
export {
  approvalQuestionKey,
  type LiveQuestion,
  PENDING_APPROVAL_TTL_MS,
  type PendingApproval,
  PendingApprovals,
  type PendingApprovalsOptions,
  type PendingAsked,
  type PendingRoute,
  type PendingVerdict,
} from "./pending/pending-approvals.js";
export {
  type ApprovalField,
  approvalFields,
  networkRuleLine,
  networkTarget,
  proposedRuleText,
  sessionInputNeedsApproval,
  shellQuote,
  UNSANDBOXED_TERMINAL_TEXT,
} from "./prompt/approval-fields.js";
export { BANNED_PREFIX_SUGGESTIONS } from "./requirement/amendment.js";
export {
  approvalRequirement,
  explainedApprovalRequirement,
} from "./requirement/approval-requirement.js";
export { ESCALATION_EXPLANATION, type RequirementExplanation } from "./requirement/reasons.js";
export {
  type ApprovalRequirement,
  type ApprovalRequirementInput,
  type ExplainedRequirement,
  type ProgramLookup,
  REQUIREMENT_TYPES,
  type RequirementType,
} from "./requirement/types.js";
export { type UnmatchedCommandContext, unmatchedCommandDecision } from "./requirement/unmatched-command.js";
