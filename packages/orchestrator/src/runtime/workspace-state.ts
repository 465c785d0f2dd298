import { createHash } from "node:crypto";
import { realpathSync } from "node:fs";
import { basename, join } from "node:path";

/**
 * The name of a workspace's own directories under Conch's state dir: the cwd's base name (for a person
 * reading the dir) and a hash of its real path (so two projects never share one).
 */
function workspaceId(cwd: string): string {
  let real = cwd;
  try {
    real = realpathSync(cwd);
  } catch {
    // A cwd that does not exist fails later, where it is checked; the name only needs to be stable.
  }
  const name =
    basename(real)
      .replace(/[^A-Za-z0-9._-]+/g, "_")
      .slice(0, 32) || "root";
  return `${name}-${createHash("sha256").update(real).digest("hex").slice(0, 12)}`;
}

/** This workspace's directories under `stateDir`: its spill files and its private /tmp. */
export function workspaceDirs(stateDir: string, cwd: string): { spill: string; tmp: string } {
  const id = workspaceId(cwd);
  return { spill: join(stateDir, "spill", id), tmp: join(stateDir, "tmp", id) };
}
