import type { CodexSandboxPolicy } from "@conch/protocol";
import type { SandboxPolicy } from "../types.js";

/**
 * A sandbox policy in Codex's wire form (`CodexSandboxPolicySchema` of @conch/protocol/schemas, as config
 * files and MCP clients written for Codex send it) as the policy Conch enforces. Codex's tmp exclusions
 * hold whatever their value: Conch never lets a command write the host's `/tmp` or `$TMPDIR`, it binds a
 * private directory there. An external sandbox's `network_access` is the outer sandbox's to enforce.
 */
export function fromCodexSandboxPolicy(policy: CodexSandboxPolicy): SandboxPolicy {
  switch (policy.type) {
    case "workspace-write":
      return {
        mode: "workspace-write",
        writableRoots: [...policy.writable_roots],
        networkAccess: policy.network_access,
      };
    case "read-only":
    case "danger-full-access":
    case "external-sandbox":
      return { mode: policy.type };
  }
}
