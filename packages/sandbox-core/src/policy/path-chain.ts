import { lstatSync, readlinkSync, type Stats } from "node:fs";
import { dirname, join } from "node:path";

/**
 * What must stay as it is for `path` to name, later, what it names now:
 * - `target`: the file or directory it resolves to;
 * - `link`: a directory holding a symlink on the way. A bind mount cannot pin a symlink (the kernel
 *   follows it), and whoever can write the directory can replace the link: the directory itself must
 *   stay read-only;
 * - `missing`: the deepest directory that exists on the way to a path that does not. Whoever can write
 *   it can create the rest.
 * All canonical; the caller keeps those that lie in a writable root.
 */
export interface ChainStep {
  readonly path: string;
  readonly why: "target" | "link" | "missing";
}

// As the kernel's own limit on symlinks followed in one lookup (ELOOP).
const MAX_LINKS = 40;

function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path, { throwIfNoEntry: false }) ?? null;
  } catch {
    return null;
  }
}

/** The steps of resolving the absolute `path` component by component, following links as the kernel does. */
export function pathChain(path: string): ChainStep[] {
  const steps: ChainStep[] = [];
  let pending = path.split("/").filter((part) => part !== "");
  let current = "/";
  let links = 0;
  while (pending.length > 0) {
    const part = pending.shift() as string;
    if (part === ".") continue;
    // `current` is canonical, so its parent is the physical `..`, as after a followed link.
    if (part === "..") {
      current = dirname(current);
      continue;
    }
    const next = join(current, part);
    const info = lstatOrNull(next);
    if (info === null || (info.isSymbolicLink() && ++links > MAX_LINKS)) {
      steps.push({ path: current, why: "missing" });
      return steps;
    }
    if (!info.isSymbolicLink()) {
      current = next;
      continue;
    }
    steps.push({ path: current, why: "link" });
    let target: string;
    try {
      target = readlinkSync(next);
    } catch {
      return steps;
    }
    if (target.startsWith("/")) current = "/";
    pending = [...target.split("/").filter((component) => component !== ""), ...pending];
  }
  steps.push({ path: current, why: "target" });
  return steps;
}
