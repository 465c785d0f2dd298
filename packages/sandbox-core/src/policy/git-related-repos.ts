import { lstatSync, readdirSync } from "node:fs";
import { dirname, isAbsolute, join } from "node:path";
import { readPointer } from "./protected-paths.js";

/**
 * A repository the person's git also runs in, known to another one's common git dir: a linked worktree
 * (`worktrees/<id>/gitdir` names its `.git` file, so `dir` is its top) or a submodule (`modules/...`, a
 * git dir whose config names its work tree).
 */
export type RelatedRepository = { readonly dir: string } | { readonly dir: "/"; readonly gitDir: string };

// Each one costs two git runs for every command: a repository with more than this many worktrees and
// submodules has only the first ones looked at.
export const MAX_RELATED = 32;
// Submodules of submodules nest `modules/<a>/modules/<b>`; names with slashes nest plain directories.
const MAX_DEPTH = 8;

function entries(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

const isDir = (path: string): boolean => lstatSync(path, { throwIfNoEntry: false })?.isDirectory() === true;

/** The worktrees and submodules `commonDir` lists, at most `limit`, whose work tree exists. */
export function relatedRepositories(commonDir: string, limit: number = MAX_RELATED): RelatedRepository[] {
  const related: RelatedRepository[] = [];
  for (const id of entries(join(commonDir, "worktrees"))) {
    const pointer = readPointer(join(commonDir, "worktrees", id, "gitdir"))?.trim();
    if (pointer === undefined || !isAbsolute(pointer)) continue;
    const top = dirname(pointer);
    if (isDir(top)) related.push({ dir: top });
  }
  const walk = (dir: string, depth: number): void => {
    if (depth > MAX_DEPTH) return;
    for (const name of entries(dir)) {
      const path = join(dir, name);
      if (!isDir(path)) continue;
      if (lstatSync(join(path, "HEAD"), { throwIfNoEntry: false }) !== undefined) {
        related.push({ dir: "/", gitDir: path });
        walk(join(path, "modules"), depth + 1);
      } else {
        walk(path, depth + 1);
      }
    }
  };
  walk(join(commonDir, "modules"), 0);
  return related.slice(0, limit);
}
