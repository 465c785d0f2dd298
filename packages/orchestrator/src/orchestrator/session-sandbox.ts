import {
  type PreparedSandbox,
  type PrepareSandboxOptions,
  prepareSandbox,
  type SandboxPolicy,
  type SandboxRegistry,
} from "@conch/sandbox-core";

/**
 * The sandbox of one session, prepared (`prepareSandbox`) the first time it is asked for and then kept,
 * so its writable roots are resolved once and held by identity for the session. Only a sandbox that is
 * ready is kept: after `SANDBOX_UNAVAILABLE` (bwrap missing, say) the next call checks again.
 */
export function sessionSandbox(
  policy: SandboxPolicy,
  cwd: string,
  registry: SandboxRegistry,
  options: PrepareSandboxOptions,
): () => Promise<PreparedSandbox> {
  let prepared: Promise<PreparedSandbox> | null = null;
  return () => {
    prepared ??= prepareSandbox(policy, cwd, registry, options).catch((error: unknown) => {
      prepared = null;
      throw error;
    });
    return prepared;
  };
}
