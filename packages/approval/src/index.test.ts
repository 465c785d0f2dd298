import { describe, expect, it } from "vitest";
import * as api from "./index.js";

describe("@conch/approval public surface", () => {
  it("exports exactly these names", () => {
    expect(Object.keys(api).sort()).toEqual([
      "APPROVAL_ERROR_CODES",
      "ApprovalCache",
      "ApprovalError",
      "BANNED_PREFIX_SUGGESTIONS",
      "DECISIONS",
      "REQUIREMENT_TYPES",
      "ScriptedApprover",
      "allowPrefixRule",
      "approvalRequirement",
      "bannedPrefixRuleReason",
      "checkPolicy",
      "compileNetworkDomains",
      "evaluatePolicy",
      "isApprovalError",
      "loadPolicy",
      "loadPolicyFiles",
      "storablePrefixRule",
      "unmatchedCommandDecision",
      "visibleText",
    ]);
  });
});
