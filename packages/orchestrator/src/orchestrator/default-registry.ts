import { createSandboxRegistry, type SandboxRegistry } from "@conch/sandbox-core";
import { createLinuxBackend } from "@conch/sandbox-linux";

let registry: SandboxRegistry | null = null;

/** A registry holding this platform's backend (bwrap on Linux; none elsewhere yet, so sandboxing fails closed). */
export function defaultSandboxRegistry(): SandboxRegistry {
  if (registry === null) {
    registry = createSandboxRegistry();
    if (process.platform === "linux") registry.register(createLinuxBackend());
  }
  return registry;
}
