import { createSandboxRegistry, type PreparedSandbox, type SandboxPolicy } from "@conch/sandbox-core";
import { createLinuxBackend } from "@conch/sandbox-linux";
import { sessionSandbox } from "../src/orchestrator/session-sandbox.js";

/** The session sandbox a runtime would pass an orchestrator: bwrap, from a registry of its own. */
export function bwrapSandbox(policy: SandboxPolicy, cwd: string): () => Promise<PreparedSandbox> {
  return sessionSandbox(policy, cwd, createSandboxRegistry([createLinuxBackend()]), {});
}
