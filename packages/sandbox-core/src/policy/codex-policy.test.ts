import { CodexSandboxPolicySchema } from "@conch/protocol/schemas";
import { describe, expect, it } from "vitest";
import { fromCodexSandboxPolicy } from "./codex-policy.js";
import { validatePolicy } from "./validate-policy.js";

describe("fromCodexSandboxPolicy", () => {
  it.each([
    [{ type: "read-only" }, { mode: "read-only" }],
    [{ type: "workspace-write" }, { mode: "workspace-write", writableRoots: [], networkAccess: false }],
    [
      { type: "workspace-write", writable_roots: ["/data"], network_access: true, exclude_slash_tmp: true },
      { mode: "workspace-write", writableRoots: ["/data"], networkAccess: true },
    ],
    [{ type: "danger-full-access" }, { mode: "danger-full-access" }],
    [{ type: "external-sandbox", network_access: "enabled" }, { mode: "external-sandbox" }],
  ])("turns Codex's %j into %j, a policy Conch accepts", (wire, policy) => {
    const converted = fromCodexSandboxPolicy(CodexSandboxPolicySchema.parse(wire));
    expect(converted).toEqual(policy);
    expect({ ...validatePolicy(converted) }).toEqual(policy);
  });
});
