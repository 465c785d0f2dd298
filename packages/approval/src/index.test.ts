import { describe, expect, it } from "vitest";
import * as api from "./index.js";

describe("@conch/approval public surface", () => {
  it("exports exactly these names", () => {
    expect(Object.keys(api).sort()).toEqual([
      "APPROVAL_ERROR_CODES",
      "ApprovalCache",
      "ApprovalError",
      "BANNED_PREFIX_SUGGESTIONS",
      "ESCALATION_EXPLANATION",
      "PENDING_APPROVAL_TTL_MS",
      "PendingApprovals",
      "REQUIREMENT_TYPES",
      "ScriptedApprover",
      "UNSANDBOXED_TERMINAL_TEXT",
      "allowPrefixRule",
      "approvalFields",
      "approvalQuestionKey",
      "approvalRequirement",
      "bannedPrefixRuleReason",
      "explainCommand",
      "explainedApprovalRequirement",
      "isApprovalError",
      "networkRuleLine",
      "networkTarget",
      "proposedRuleText",
      "sessionInputNeedsApproval",
      "shellQuote",
      "storablePrefixRule",
      "unmatchedCommandDecision",
    ]);
  });
});
