import { SandboxError } from "../errors.js";
import { describeValue, validatePolicy } from "../policy/validate-policy.js";
import type { SandboxBackend, SandboxPolicy } from "../types.js";

/**
 * Backends by platform, and the choice of one for a policy. An explicit object, made where a runtime is
 * made (there is no process-wide registry): two runtimes in one process never see each other's backends.
 */
export interface SandboxRegistry {
  /**
   * Adds the backend for its platform. Registering the same object again is a no-op; a different
   * backend for a platform that already has one is an error, so two packages cannot silently race.
   */
  register(backend: SandboxBackend): void;
  /**
   * The backend that must wrap a command under `policy`: `null` for `danger-full-access` and
   * `external-sandbox`, else the platform's backend. Throws `SANDBOX_UNAVAILABLE` when none is
   * registered (fail closed). Whether it works here is `backend.available()`'s answer, which
   * `prepareSandbox` checks.
   */
  select(policy: SandboxPolicy, platform?: NodeJS.Platform): SandboxBackend | null;
}

function checkBackend(backend: unknown): asserts backend is SandboxBackend {
  if (typeof backend !== "object" || backend === null) {
    throw new SandboxError(
      "INVALID_SANDBOX_BACKEND",
      `invalid sandbox backend: expected an object, received ${describeValue(backend)}`,
    );
  }
  const record = backend as Record<string, unknown>;
  for (const field of ["name", "platform", "available", "transform"]) {
    const value = record[field];
    const wantsFunction = field === "available" || field === "transform";
    const ok = wantsFunction ? typeof value === "function" : typeof value === "string" && value !== "";
    if (!ok) {
      throw new SandboxError(
        "INVALID_SANDBOX_BACKEND",
        `invalid sandbox backend: ${field}: expected ${wantsFunction ? "a function" : "a non-empty string"}, received ${describeValue(value)}`,
      );
    }
  }
}

/**
 * A registry holding `backends` (each registered as by `register`). A backend for another platform may
 * be among them: it is only ever selected on its own platform.
 */
export function createSandboxRegistry(backends: readonly SandboxBackend[] = []): SandboxRegistry {
  if (!Array.isArray(backends)) {
    throw new SandboxError(
      "INVALID_SANDBOX_BACKEND",
      `invalid sandbox backends: expected an array, received ${describeValue(backends)}`,
    );
  }
  const byPlatform = new Map<string, SandboxBackend>();
  const registry: SandboxRegistry = {
    register(backend) {
      checkBackend(backend);
      const existing = byPlatform.get(backend.platform);
      if (existing === backend) return;
      if (existing !== undefined) {
        throw new SandboxError(
          "INVALID_SANDBOX_BACKEND",
          `a sandbox backend is already registered for ${backend.platform}: ${existing.name} (cannot add ${backend.name})`,
        );
      }
      byPlatform.set(backend.platform, backend);
    },
    select(policy, platform = process.platform) {
      const { mode } = validatePolicy(policy);
      if (mode === "danger-full-access" || mode === "external-sandbox") return null;
      const backend = byPlatform.get(platform);
      if (backend === undefined) {
        throw new SandboxError(
          "SANDBOX_UNAVAILABLE",
          `no sandbox backend for platform ${platform}: policy ${mode} cannot be enforced here; ` +
            "use danger-full-access or external-sandbox to run without Conch's sandbox",
        );
      }
      return backend;
    },
  };
  for (const backend of backends) registry.register(backend);
  return registry;
}
