import { realpathSync } from "node:fs";
import { SandboxError, type SandboxRules } from "@conch/sandbox-core";

/** True when `path` is `root` or lies below it (both absolute and canonical). */
export function isAtOrInside(path: string, root: string): boolean {
  return path === root || path.startsWith(root === "/" ? "/" : `${root}/`);
}

/** The directories strictly between `root` and `path` (which lies inside it), outermost first. */
export function dirsBetween(root: string, path: string): string[] {
  const prefix = root === "/" ? "/" : `${root}/`;
  if (!path.startsWith(prefix)) return [];
  const parts = path.slice(prefix.length).split("/").slice(0, -1);
  return parts.map((_, i) => prefix + parts.slice(0, i + 1).join("/"));
}

/** `path` with its symlinks resolved, or as given when it does not resolve. */
function canonicalPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * Refuses rules a backend cannot enforce as they say, and programs it cannot rely on: none may lie where
 * the command could replace it (a writable root, by its path as run or where that leads), and one that runs
 * inside the sandbox (the shell, a helper bwrap starts) not where the sandbox hides it or replaces /tmp.
 */
export function checkRulesAndPrograms(
  rules: SandboxRules,
  backend: string,
  programs: { readonly outside: readonly string[]; readonly inside: readonly string[] },
): void {
  if (rules.readableRoots.length !== 1 || rules.readableRoots[0] !== "/") {
    throw new SandboxError(
      "SANDBOX_UNAVAILABLE",
      `cannot sandbox: the ${backend} backend reads from / less hidden paths, received readable roots ${JSON.stringify(rules.readableRoots)}`,
    );
  }
  for (const program of [...programs.outside, ...programs.inside]) {
    const fault = programFault(rules, program, programs.inside.includes(program));
    if (fault !== null) throw new SandboxError("SANDBOX_UNAVAILABLE", `cannot sandbox: ${fault}`);
  }
}

/** Why a sandbox cannot rely on `program` (see checkRulesAndPrograms), or null when it can. */
export function programFault(rules: SandboxRules, program: string, inside: boolean): string | null {
  const real = canonicalPath(program);
  const root = rules.writableRoots.find(
    ({ root }) => isAtOrInside(program, root) || isAtOrInside(real, root),
  );
  if (root !== undefined) {
    return `${program} lies inside the writable root ${root.root}, where the sandboxed command could replace it`;
  }
  if (!inside) return null;
  const hidden = rules.hidden.find(({ path }) => isAtOrInside(real, path))?.path;
  const tmp =
    rules.tmp.kind === "host" ? undefined : rules.tmp.targets.find((target) => isAtOrInside(real, target));
  if (hidden !== undefined || tmp !== undefined) {
    return `${program} lies in ${hidden ?? tmp}, which the sandbox hides or replaces`;
  }
  return null;
}
