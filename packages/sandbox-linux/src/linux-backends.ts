// The Linux backends in Conch's order of preference, for config `sandbox_backend`:
// - "auto" (the default): bubblewrap where it works; Landlock only where bubblewrap cannot make its
//   namespaces (any other reason bubblewrap cannot run, such as it not being installed, is refused with
//   its fix: installing bubblewrap gives more than Landlock can);
// - "bwrap": bubblewrap or refusal; "landlock": Landlock or refusal.
import type { LocalSandboxBackend } from "@conch/sandbox-core";
import { createLinuxBackend, type LinuxBackendOptions } from "./bwrap/backend.js";
import { createLandlockBackend } from "./landlock/backend.js";

export const SANDBOX_BACKEND_CHOICES = ["auto", "bwrap", "landlock"] as const;
export type SandboxBackendChoice = (typeof SANDBOX_BACKEND_CHOICES)[number];

export function createLinuxBackends(
  choice: SandboxBackendChoice = "auto",
  options: LinuxBackendOptions = {},
): LocalSandboxBackend[] {
  if (!(SANDBOX_BACKEND_CHOICES as readonly unknown[]).includes(choice)) {
    throw new TypeError(
      `invalid sandbox_backend: expected one of ${SANDBOX_BACKEND_CHOICES.join(", ")}, received ${JSON.stringify(choice)}`,
    );
  }
  const shared = {
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(options.limits === undefined ? {} : { limits: options.limits }),
  };
  if (choice === "landlock") return [createLandlockBackend(shared)];
  const bwrap = createLinuxBackend(options);
  if (choice === "bwrap") return [bwrap];
  return [bwrap, createLandlockBackend({ ...shared, onlyWhen: () => bwrap.available() })];
}
