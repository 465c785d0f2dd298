import { lstatSync } from "node:fs";
import { gitConfigPaths, hostGit } from "./git-config-paths.js";
import { pathChain } from "./path-chain.js";
import { gitdirPointers, isInside } from "./protected-paths.js";

/** What stays read-only so that the person's next git command runs only what it runs now. */
export interface GitProtections {
  /** Canonical paths strictly inside a writable root. */
  readonly paths: string[];
  /** Writable roots that must be read-only whole: a link or a missing path git names sits right in them. */
  readonly roots: string[];
}

const atOrInside = (path: string, root: string): boolean => path === root || isInside(path, root);

/**
 * For each writable root: every path git's config names for the repository found from it (see
 * `gitConfigPaths`), with every symlink on the way and, for a path that does not exist yet, the deepest
 * directory that does (creating the rest is the same as writing it). A path git resolves but names
 * only as a word of a command may be no path at all: missing, it makes no root read-only. When git
 * gives no answer for a root, that root is read-only: what its config names is not known.
 */
export function gitProtections(
  roots: readonly string[],
  env: Record<string, string | undefined>,
): GitProtections {
  const inRoots = (path: string): boolean => roots.some((root) => atOrInside(path, root));
  const git = hostGit(env.PATH, inRoots);
  const paths = new Set<string>();
  const readOnlyRoots = new Set<string>();
  const keep = (path: string): void => {
    const root = roots.find((candidate) => atOrInside(path, candidate));
    if (root === undefined) return;
    if (path === root) readOnlyRoots.add(root);
    else paths.add(path);
  };
  for (const root of roots) {
    const answer = gitConfigPaths(root, { git, env });
    if (answer.status === "failed") {
      readOnlyRoots.add(root);
      continue;
    }
    const named = answer.status === "paths" ? answer.paths : [];
    // The `.git` git found may itself be a link in the root (`.git -> elsewhere`): git's answer is
    // where it points, so the name is walked too.
    const dotGit = `${root === "/" ? "" : root}/.git`;
    const dotGitInfo = lstatSync(dotGit, { throwIfNoEntry: false });
    if (dotGitInfo !== undefined) named.push({ path: dotGit, kind: "path" });
    // A `.git` file's pointers as written (`gitdir: link/store`), for the links on their way.
    if (dotGitInfo?.isFile() === true) {
      for (const path of gitdirPointers(dotGit)) named.push({ path, kind: "path" });
    }
    for (const { path, kind } of named) {
      for (const step of pathChain(path)) {
        if (step.why === "missing" && kind === "command" && roots.includes(step.path)) continue;
        keep(step.path);
      }
    }
  }
  return { paths: [...paths], roots: [...readOnlyRoots] };
}
