import { accessSync, constants, statSync } from "node:fs";
import { delimiter, isAbsolute, join, resolve } from "node:path";

// The distribution's bubblewrap first: a `bwrap` on PATH could be a file the agent wrote.
const SYSTEM_BWRAP: readonly string[] = ["/usr/bin/bwrap", "/bin/bwrap", "/usr/local/bin/bwrap"];

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function inside(path: string, roots: readonly string[]): boolean {
  return roots.some((root) => path === root || path.startsWith(root.endsWith("/") ? root : `${root}/`));
}

/**
 * The `bwrap` to run: a system one, else the first on PATH that is absolute and not inside any of
 * `untrusted` (the workspace and other writable roots, where the sandboxed agent could plant one).
 */
export function findBwrap(
  env: Readonly<Record<string, string | undefined>>,
  untrusted: readonly string[],
): string | null {
  for (const path of SYSTEM_BWRAP) if (isExecutableFile(path)) return path;
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (dir === "" || !isAbsolute(dir)) continue;
    const path = resolve(join(dir, "bwrap"));
    if (!inside(path, untrusted) && isExecutableFile(path)) return path;
  }
  return null;
}
