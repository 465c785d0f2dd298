import { createSandboxRegistry, type SandboxRegistry } from "@conch/sandbox-core";
import { createLinuxBackend } from "@conch/sandbox-linux";

export interface PlatformSandboxOptions {
  /**
   * Where a successful probe of bwrap is kept, so that a one-shot CLI need not probe before every
   * command (LinuxBackendOptions.probeCache); none: probe once per registry.
   */
  readonly probeCache?: string;
  /** Commands without the host's network share one namespace (LinuxBackendOptions.sharedNetwork). */
  readonly sharedNetwork?: boolean;
}

/**
 * The sandbox backends Conch has, in its order of preference: bwrap on Linux; none on other platforms,
 * where a sandboxed policy is then refused (fail closed). The one place they are assembled: each
 * runtime makes its own registry (there is no process-wide one), and `conch sandbox` makes the same.
 */
export function platformSandboxRegistry(options: PlatformSandboxOptions = {}): SandboxRegistry {
  const { probeCache, sharedNetwork } = options;
  return createSandboxRegistry([
    createLinuxBackend({
      ...(probeCache === undefined ? {} : { probeCache }),
      ...(sharedNetwork === undefined ? {} : { sharedNetwork }),
    }),
  ]);
}
