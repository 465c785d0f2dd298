import { createSandboxRegistry, type SandboxPolicy, type SandboxRegistry } from "@conch/sandbox-core";
import {
  createLinuxBackends,
  describeLandlock,
  describeLimits,
  type ResourceLimits,
  type SandboxBackendChoice,
} from "@conch/sandbox-linux";
import { createSeatbeltBackend } from "@conch/sandbox-macos";

export interface PlatformSandboxOptions {
  /**
   * Where a successful probe of bwrap is kept, so that a one-shot CLI need not probe before every
   * command (LinuxBackendOptions.probeCache); none: probe once per registry.
   */
  readonly probeCache?: string;
  /** Commands without the host's network share one namespace (LinuxBackendOptions.sharedNetwork). */
  readonly sharedNetwork?: boolean;
  /** Config `sandbox_backend`: which Linux sandbox (createLinuxBackends); "auto" by default. */
  readonly backend?: SandboxBackendChoice;
  /** Config `limits`: what each command may consume (LinuxBackendOptions.limits); none by default. */
  readonly limits?: ResourceLimits;
}

/**
 * The sandbox backends Conch has, in its order of preference: on Linux bwrap, then Landlock where bwrap
 * cannot make its namespaces (as config `sandbox_backend` chooses); on macOS Seatbelt; none on other
 * platforms, where a sandboxed policy is then refused (fail closed). The one place they are assembled: each
 * runtime makes its own registry (there is no process-wide one), and `conch sandbox` makes the same.
 */
export function platformSandboxRegistry(options: PlatformSandboxOptions = {}): SandboxRegistry {
  const { probeCache, sharedNetwork, backend = "auto", limits } = options;
  return createSandboxRegistry([
    ...createLinuxBackends(backend, {
      ...(probeCache === undefined ? {} : { probeCache }),
      ...(sharedNetwork === undefined ? {} : { sharedNetwork }),
      ...(limits === undefined ? {} : { limits }),
    }),
    createSeatbeltBackend(),
  ]);
}

/**
 * What `conch sandbox --check` says of the choice: the backend that runs here, each more preferred one
 * that cannot and why, and, for Landlock, what it enforces and what it does not. Null when the policy
 * runs no sandbox. Throws nothing: a backend that cannot run is a line, and prepareSandbox refuses.
 */
export async function sandboxChoiceLines(
  registry: SandboxRegistry,
  policy: SandboxPolicy,
  choice: SandboxBackendChoice,
  limits?: ResourceLimits,
): Promise<string[]> {
  const lines: string[] = [];
  for (const backend of registry.candidates(policy)) {
    const availability = await backend.available();
    if (!availability.available) {
      lines.push(`${backend.name} cannot run here: ${availability.reason} (fix: ${availability.fix})`);
      continue;
    }
    const why =
      choice === "auto"
        ? lines.length === 0
          ? 'sandbox_backend = "auto", and it works here'
          : 'sandbox_backend = "auto", as the fallback'
        : `sandbox_backend = "${choice}"`;
    lines.push(`${backend.name} runs commands here (${why})`);
    if (backend.name === "landlock") lines.push(...(await describeLandlock()).map((line) => `  ${line}`));
    if (limits !== undefined && backend.platform === "linux") lines.push(...describeLimits(limits));
    if (limits !== undefined && backend.platform === "darwin") {
      lines.push("limits: not applied on macOS (no cgroups there; config `limits` is not enforced)");
    }
    return lines;
  }
  return lines;
}
