import { describe, expect, it } from "vitest";
import { APPROVAL_POLICIES, REVIEW_DECISIONS } from "../policies.js";
import { toJsonSchema } from "./json-schema.js";
import { ApprovalPolicySchema, CodexSandboxPolicySchema, ReviewDecisionSchema } from "./policies.js";

describe("CodexSandboxPolicySchema", () => {
  it.each([
    [{ type: "read-only" }, { type: "read-only" }],
    [{ type: "danger-full-access" }, { type: "danger-full-access" }],
    [
      { type: "workspace-write" },
      {
        type: "workspace-write",
        writable_roots: [],
        network_access: false,
        exclude_tmpdir_env_var: false,
        exclude_slash_tmp: false,
      },
    ],
    [
      { type: "workspace-write", writable_roots: ["/data"], network_access: true },
      {
        type: "workspace-write",
        writable_roots: ["/data"],
        network_access: true,
        exclude_tmpdir_env_var: false,
        exclude_slash_tmp: false,
      },
    ],
    [{ type: "external-sandbox" }, { type: "external-sandbox", network_access: "restricted" }],
    [
      { type: "external-sandbox", network_access: "enabled" },
      { type: "external-sandbox", network_access: "enabled" },
    ],
  ])("parses Codex's wire form %j", (input, parsed) => {
    expect(CodexSandboxPolicySchema.parse(input)).toEqual(parsed);
  });

  it.each([
    [{ type: "workspace_write" }, "type", "invalid_union"],
    [{ mode: "read-only" }, "type", "invalid_union"],
    [{ type: "read-only", network_access: true }, "", "unrecognized_keys"],
    [{ type: "workspace-write", writableRoots: ["/data"] }, "", "unrecognized_keys"],
    [{ type: "workspace-write", writable_roots: ["data"] }, "writable_roots.0", "custom"],
    [{ type: "workspace-write", network_access: "yes" }, "network_access", "invalid_type"],
    [{ type: "external-sandbox", network_access: true }, "network_access", "invalid_value"],
  ])("rejects %j at %j (%s)", (input, path, code) => {
    const issue = CodexSandboxPolicySchema.safeParse(input).error?.issues[0];
    expect(issue?.path.join(".")).toBe(path);
    expect(issue?.code).toBe(code);
  });

  it("says why a relative writable root is refused", () => {
    const issue = CodexSandboxPolicySchema.safeParse({ type: "workspace-write", writable_roots: ["data"] })
      .error?.issues[0];
    expect(issue?.message).toBe("Expected an absolute path");
  });

  it("exports one closed object per policy type", () => {
    const variants = toJsonSchema(CodexSandboxPolicySchema).oneOf as Record<string, unknown>[];
    expect(variants.map((variant) => (variant.properties as { type: { const: string } }).type.const)).toEqual(
      ["read-only", "workspace-write", "danger-full-access", "external-sandbox"],
    );
    for (const variant of variants) {
      expect(variant.required).toEqual(["type"]);
      expect(variant.additionalProperties).toBe(false);
    }
  });
});

describe("ApprovalPolicySchema", () => {
  it("accepts exactly Codex's four policies", () => {
    expect(APPROVAL_POLICIES).toEqual(["untrusted", "on-failure", "on-request", "never"]);
    for (const policy of APPROVAL_POLICIES) expect(ApprovalPolicySchema.parse(policy)).toBe(policy);
    expect(ApprovalPolicySchema.safeParse("unless-trusted").error?.issues[0]?.code).toBe("invalid_value");
    expect(toJsonSchema(ApprovalPolicySchema).enum).toEqual([...APPROVAL_POLICIES]);
  });
});

describe("ReviewDecisionSchema", () => {
  it("accepts exactly the five decisions", () => {
    expect(REVIEW_DECISIONS).toEqual([
      "approved",
      "approved_for_session",
      "approved_always",
      "denied",
      "abort",
    ]);
    for (const decision of REVIEW_DECISIONS) expect(ReviewDecisionSchema.parse(decision)).toBe(decision);
    expect(ReviewDecisionSchema.safeParse("approved-for-session").error?.issues[0]?.code).toBe(
      "invalid_value",
    );
    expect(toJsonSchema(ReviewDecisionSchema).enum).toEqual([...REVIEW_DECISIONS]);
  });
});
