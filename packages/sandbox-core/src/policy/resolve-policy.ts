import { statSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { SandboxError } from "../errors.js";
import type { SandboxPolicy, SandboxRules, WritableRoot } from "../types.js";
import { canonical, isInside, protectedPathsOf } from "./protected-paths.js";
import { validatePolicy, validateResolveOptions } from "./validate-policy.js";

export interface ResolveOptions {
  /** Absolute working directory of the command; must exist. */
  cwd: string;
  /** Where `TMPDIR` is read from; defaults to `process.env`. */
  env?: Record<string, string | undefined>;
}

function canonicalDirectory(path: string): string | undefined {
  const real = canonical(path);
  if (real === undefined) return undefined;
  try {
    return statSync(real).isDirectory() ? real : undefined;
  } catch {
    return undefined;
  }
}

function unique(paths: Iterable<string>): string[] {
  return [...new Set(paths)];
}

/**
 * Writable roots for workspace-write. Roots nested in another root are merged into the outer one, and
 * their protected paths move with them, so the roots a backend binds are disjoint and every protected
 * path belongs to exactly one of them. A root at or below a protected path is dropped: protection wins.
 */
function workspaceRoots(cwd: string, extras: readonly string[], tmpdir: string | undefined): WritableRoot[] {
  const candidates = [
    cwd,
    "/tmp",
    ...(tmpdir === undefined ? [] : [tmpdir]),
    ...extras.map((p) => resolve(cwd, p)),
  ];
  const roots = unique(candidates.map(canonicalDirectory).filter((p): p is string => p !== undefined));

  const allProtected = unique(roots.flatMap(protectedPathsOf));
  const cwdConch = join(cwd, ".conch");
  const blocked = canonical(cwdConch) === undefined ? [cwdConch] : [];
  const covered = (path: string): boolean => allProtected.some((p) => p === path || isInside(path, p));

  const outer = roots.filter((root) => !covered(root) && !roots.some((other) => isInside(root, other)));
  // A protected path inside another one is already read-only through it.
  const readOnly = allProtected.filter((path) => !allProtected.some((other) => isInside(path, other)));
  return outer.map((root) => ({
    root,
    readOnlySubpaths: readOnly.filter((path) => isInside(path, root)).sort(),
    blockedMissing: blocked.filter((path) => isInside(path, root) && !covered(path)),
  }));
}

/**
 * A policy resolved against a cwd into the rules a backend enforces.
 *
 * `danger-full-access` and `external-sandbox` resolve to one writable root `/` with nothing protected
 * and the network on: what the command may really do. No backend ever sees these rules, since
 * `selectBackend` selects none for them.
 */
export function resolveSandboxPolicy(policy: SandboxPolicy, options: ResolveOptions): SandboxRules {
  const checked = validatePolicy(policy);
  const { cwd, env } = validateResolveOptions(options);
  const realCwd = canonicalDirectory(cwd);
  if (realCwd === undefined) {
    throw new SandboxError("CWD_NOT_FOUND", `cwd is not an existing directory: ${cwd}`);
  }
  switch (checked.mode) {
    case "danger-full-access":
    case "external-sandbox":
      return {
        mode: checked.mode,
        readableRoots: ["/"],
        writableRoots: [{ root: "/", readOnlySubpaths: [], blockedMissing: [] }],
        network: true,
      };
    case "read-only":
      return { mode: "read-only", readableRoots: ["/"], writableRoots: [], network: false };
    case "workspace-write": {
      const tmpdir = env["TMPDIR"];
      return {
        mode: "workspace-write",
        readableRoots: ["/"],
        writableRoots: workspaceRoots(
          realCwd,
          checked.writableRoots ?? [],
          typeof tmpdir === "string" && isAbsolute(tmpdir) ? tmpdir : undefined,
        ),
        network: checked.networkAccess === true,
      };
    }
  }
}
