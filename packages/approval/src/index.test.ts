import { describe, expect, it } from "vitest";
import * as api from "./index.js";

describe("@conch/approval public surface", () => {
  it("exports exactly these names", () => {
    expect(Object.keys(api).sort()).toEqual([
      "APPROVAL_ERROR_CODES",
      "APPROVAL_POLICIES",
      "ApprovalCache",
      "ApprovalError",
      "BANNED_PREFIX_SUGGESTIONS",
      "DECISIONS",
      "REQUIREMENT_TYPES",
      "REVIEW_DECISIONS",
      "SANDBOX_PERMISSIONS",
      "SANDBOX_POLICY_KINDS",
      "ScriptedApprover",
      "addPrefixRule",
      "appendAllowPrefixRule",
      "approvalRequirement",
      "bannedPrefixRuleReason",
      "checkPolicy",
      "compileNetworkDomains",
      "evaluatePolicy",
      "isApprovalError",
      "loadPolicy",
      "loadPolicyFiles",
      "storablePrefixRule",
      "storeAlwaysAllowRule",
      "unmatchedCommandDecision",
      "visibleText",
    ]);
  });
});
