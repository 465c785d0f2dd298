import { expectedReceived, receivedValue } from "@conch/protocol";
import { SandboxError } from "../errors.js";
import { validatePolicy } from "../policy/validate-policy.js";
import type { SandboxBackend, SandboxPolicy } from "../types.js";

/**
 * Backends by platform, each platform's in a preference order, and the choice for a policy. An explicit
 * object, made where a runtime is made (there is no process-wide registry): two runtimes in one process
 * never see each other's backends.
 */
export interface SandboxRegistry {
  /**
   * Adds the backend after those of its platform already there: the earlier registered, the more
   * preferred (bwrap, then Landlock where bwrap cannot run). Registering the same object again is a
   * no-op; another backend of a name its platform already has is an error, so two packages cannot
   * silently race.
   */
  register(backend: SandboxBackend): void;
  /**
   * The backends that may wrap a command under `policy`, most preferred first: none for
   * `danger-full-access` and `external-sandbox`, else the platform's. Throws `SANDBOX_UNAVAILABLE` when
   * the platform has none (fail closed). `prepareSandbox` takes the first that can run here.
   */
  candidates(policy: SandboxPolicy, platform?: NodeJS.Platform): readonly SandboxBackend[];
  /** The most preferred of `candidates`, or `null` when the policy needs none. */
  select(policy: SandboxPolicy, platform?: NodeJS.Platform): SandboxBackend | null;
}

function checkBackend(backend: unknown): asserts backend is SandboxBackend {
  if (typeof backend !== "object" || backend === null) {
    throw new SandboxError(
      "INVALID_SANDBOX_BACKEND",
      `invalid sandbox backend: expected an object, received ${receivedValue(backend)}`,
    );
  }
  const record = backend as Record<string, unknown>;
  for (const field of ["name", "platform"]) {
    const value = record[field];
    if (typeof value !== "string" || value === "") {
      throw new SandboxError(
        "INVALID_SANDBOX_BACKEND",
        `invalid sandbox backend: ${expectedReceived(field, "a non-empty string", value)}`,
      );
    }
  }
  if (typeof record.available !== "function") {
    throw new SandboxError(
      "INVALID_SANDBOX_BACKEND",
      `invalid sandbox backend: ${expectedReceived("available", "a function", record.available)}`,
    );
  }
  // Exactly one way to run: rewritten here (`transform`) or started elsewhere (`host`).
  const local = record.transform !== undefined;
  const remote = record.host !== undefined;
  if (local === remote) {
    throw new SandboxError(
      "INVALID_SANDBOX_BACKEND",
      `invalid sandbox backend: ${record.name}: expected either transform (a local backend) or host (a remote one), received ${local ? "both" : "neither"}`,
    );
  }
  if (local && typeof record.transform !== "function") {
    throw new SandboxError(
      "INVALID_SANDBOX_BACKEND",
      `invalid sandbox backend: ${expectedReceived("transform", "a function", record.transform)}`,
    );
  }
  const host = record.host as Record<string, unknown> | null;
  if (remote && (typeof host !== "object" || host === null || typeof host.start !== "function")) {
    throw new SandboxError(
      "INVALID_SANDBOX_BACKEND",
      `invalid sandbox backend: ${expectedReceived("host", "an object with start()", record.host)}`,
    );
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
      `invalid sandbox backends: expected an array, received ${receivedValue(backends)}`,
    );
  }
  const byPlatform = new Map<string, SandboxBackend[]>();
  const registry: SandboxRegistry = {
    register(backend) {
      checkBackend(backend);
      const existing = byPlatform.get(backend.platform) ?? [];
      if (existing.includes(backend)) return;
      const same = existing.find((other) => other.name === backend.name);
      if (same !== undefined) {
        throw new SandboxError(
          "INVALID_SANDBOX_BACKEND",
          `a sandbox backend named ${backend.name} is already registered for ${backend.platform}`,
        );
      }
      byPlatform.set(backend.platform, [...existing, backend]);
    },
    candidates(policy, platform = process.platform) {
      const { mode } = validatePolicy(policy);
      if (mode === "danger-full-access" || mode === "external-sandbox") return [];
      const backends = byPlatform.get(platform) ?? [];
      if (backends.length === 0) {
        throw new SandboxError(
          "SANDBOX_UNAVAILABLE",
          `no sandbox backend for platform ${platform}: policy ${mode} cannot be enforced here; ` +
            "use danger-full-access or external-sandbox to run without Conch's sandbox",
        );
      }
      return backends;
    },
    select(policy, platform) {
      return registry.candidates(policy, platform)[0] ?? null;
    },
  };
  for (const backend of backends) registry.register(backend);
  return registry;
}
