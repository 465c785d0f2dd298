import { lstatSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { type GitConfigAnswer, type GitNamedPath, gitConfigPaths, hostGit } from "./git-config-paths.js";
import { GIT_DIR_CONTROL } from "./git-exec-keys.js";
import { type RelatedRepository, relatedRepositories } from "./git-related-repos.js";
import { pathChain } from "./path-chain.js";
import { canonical, gitdirPointers, isInside } from "./protected-paths.js";

/** What stays read-only so that the person's next git command runs only what it runs now. */
export interface GitProtections {
  /** Canonical paths strictly inside a writable root. */
  readonly paths: string[];
  /**
   * Writable roots that must be read-only whole: a link on the way to a path git names, or the deepest
   * existing directory of one that does not exist yet, is the root itself; a file git runs or reads has
   * other names on the root's file system; or git gave no answer for it.
   */
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
  watched: ReadonlySet<string> = new Set(),
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
  const rootDevices = roots.map((root) => ({ root, dev: lstatSync(root, { throwIfNoEntry: false })?.dev }));
  for (const root of roots) {
    const named = repositoryPaths(gitConfigPaths(root, { git, env }), root);
    if (named === null) {
      readOnlyRoots.add(root);
      continue;
    }
    // The worktrees and submodules of the repository: the person runs git in them too, and what their
    // config names relative to their own work tree lies there.
    for (const related of named.related) {
      if (!("gitDir" in related) && !inRoots(related.dir)) continue;
      const answer = gitConfigPaths(related.dir, {
        git,
        env,
        ...("gitDir" in related ? { gitDir: related.gitDir } : {}),
      });
      const more = repositoryPaths(answer, null);
      if (more === null) readOnlyRoots.add(root);
      else named.paths.push(...more.paths);
    }
    for (const { path, kind } of named.paths) {
      for (const step of pathChain(path)) {
        if (step.why === "missing" && kind === "command" && roots.includes(step.path)) continue;
        // A control path of a git dir that does not exist yet is checked after the command
        // (`checkGitAfterCommand`): its git dir stays writable for git's ordinary work.
        if (step.why === "missing" && isWatched(path, watched)) continue;
        keep(step.path);
        // A file with other names (hard links) is written through any of them, and those are not known:
        // every writable root on its file system is read-only.
        if (step.why === "target") {
          for (const shared of rootsSharing(step.path, rootDevices)) readOnlyRoots.add(shared);
        }
      }
    }
  }
  return { paths: [...paths], roots: [...readOnlyRoots] };
}

/** Whether `path` (its links unresolved) is one of the watched control paths (canonical). */
function isWatched(path: string, watched: ReadonlySet<string>): boolean {
  if (watched.has(path)) return true;
  const parent = canonical(dirname(path));
  return parent !== undefined && watched.has(join(parent, basename(path)));
}

/**
 * What git's answer names, with the work tree's `.git` as written: it may itself be a link
 * (`.git -> elsewhere`), or a file whose pointers go through one (`gitdir: link/store`), and git's
 * answer is where they lead. Null when git gave no answer.
 */
function repositoryPaths(
  answer: GitConfigAnswer,
  dir: string | null,
): { paths: GitNamedPath[]; related: RelatedRepository[] } | null {
  if (answer.status === "failed") return null;
  const paths = answer.status === "paths" ? [...answer.paths] : [];
  const tops = new Set([dir, answer.status === "paths" ? answer.top : null]);
  for (const top of tops) {
    if (top === null) continue;
    const dotGit = `${top === "/" ? "" : top}/.git`;
    const info = lstatSync(dotGit, { throwIfNoEntry: false });
    // A `.git` file or link is kept as it is; a `.git` directory only in its control paths, which git
    // names with the rest (`gitConfigPaths`), so that git's ordinary writes stay possible.
    if (info !== undefined && !info.isDirectory()) paths.push({ path: dotGit, kind: "path" });
    if (info?.isFile() === true) {
      for (const path of gitdirPointers(dotGit)) {
        for (const name of GIT_DIR_CONTROL) paths.push({ path: `${path}/${name}`, kind: "path" });
      }
    }
  }
  const commonDir = answer.status === "paths" ? answer.commonDir : null;
  return { paths, related: commonDir === null ? [] : relatedRepositories(commonDir) };
}

/** The writable roots on the file system of `path`, when it is a regular file with more than one name. */
function rootsSharing(
  path: string,
  rootDevices: readonly { readonly root: string; readonly dev: number | undefined }[],
): string[] {
  const info = lstatSync(path, { throwIfNoEntry: false });
  if (info === undefined || !info.isFile() || info.nlink < 2) return [];
  return rootDevices.filter(({ dev }) => dev === info.dev).map(({ root }) => root);
}
