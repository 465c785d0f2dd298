// What inside a git directory makes git run programs or read from elsewhere, so that git's ordinary
// writes (objects, refs, the index, logs, HEAD, rebase and merge state) can be the sandbox's while
// nothing the person's own git runs later can be planted. What exists is kept read-only (bound over,
// with `.git` itself pinned); what does not exist cannot be kept so by a bind, and is checked after the
// command instead (`checkGitAfterCommand`): what appeared and would make git run or read something is
// renamed aside, and the result says so.
import { lstatSync, readdirSync, readFileSync, type Stats } from "node:fs";
import { join } from "node:path";
import type { GitWatch } from "../types.js";
import { gitEnv, hostGit, runGit } from "./git-config-paths.js";
import { GIT_DIR_CONTROL } from "./git-exec-keys.js";
import { canonical, gitdirPointers, isInside } from "./protected-paths.js";

// Submodules of submodules nest `modules/<a>/modules/<b>`; names with slashes nest plain directories.
const MAX_DEPTH = 8;
// A repository with more worktrees and submodules than this has only the first ones looked at; the
// others' git dirs are then protected whole (see `gitDirControl`).
const MAX_NESTED = 64;

export function entries(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** `lstat`, or undefined when the path is missing or cannot be looked at (a file on the way: ENOTDIR). */
export function lstatQuiet(path: string): Stats | undefined {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

export const isRealDir = (path: string): boolean => lstatQuiet(path)?.isDirectory() === true;

/** A small regular file's text (not through a link), or undefined. */
export function readSmall(path: string, limit = 4096): string | undefined {
  try {
    const info = lstatSync(path);
    if (!info.isFile() || info.size > limit) return undefined;
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

/**
 * The state of an operation in progress that the person's `git rebase --continue` or `git cherry-pick
 * --continue` acts on, outside the sandbox: a todo's `exec` lines run commands, a merge strategy that
 * is not git's own runs `git-merge-NAME`.
 */
export const GIT_OPERATION_FILES: readonly string[] = [
  "rebase-merge/git-rebase-todo",
  "sequencer/todo",
  "rebase-merge/strategy",
  "sequencer/opts",
  // `git am`'s options for `git apply`, which can name files it writes (`--build-fake-ancestor=PATH`).
  "rebase-apply/apply-opt",
];

// An operation's state is a few lines per commit; past this it is not read (and a changed one is moved).
export const MAX_OPERATION_BYTES: number = 1024 * 1024;

/** The index's identity and size, so that one the command changed is known (null: none). */
export function indexSignature(gitDir: string): string | null {
  const info = lstatQuiet(join(gitDir, "index"));
  return info === undefined ? null : `${info.ino}:${info.size}:${info.mtimeMs}:${info.ctimeMs}`;
}

/**
 * The git directories inside `gitDir`: its linked worktrees' (`worktrees/<id>`) and its submodules'
 * (`modules/…`, nested), at most MAX_NESTED; `complete` is false when there were more.
 */
export function nestedGitDirs(
  gitDir: string,
  limit: number = MAX_NESTED,
): { dirs: string[]; complete: boolean } {
  const dirs: string[] = [];
  const walk = (dir: string, depth: number): void => {
    if (depth > MAX_DEPTH) return;
    for (const name of entries(dir)) {
      const path = join(dir, name);
      if (!isRealDir(path)) continue;
      if (lstatQuiet(join(path, "HEAD")) !== undefined) {
        addGitDir(path, depth + 1);
      } else {
        walk(path, depth + 1);
      }
    }
  };
  // A git dir's worktrees and submodules, and theirs: a linked worktree has submodules of its own
  // (`worktrees/<id>/modules/…`).
  const addGitDir = (path: string, depth: number): void => {
    dirs.push(path);
    walk(join(path, "modules"), depth);
    for (const id of entries(join(path, "worktrees"))) {
      const worktree = join(path, "worktrees", id);
      if (isRealDir(worktree)) addGitDir(worktree, depth + 1);
    }
  };
  for (const id of entries(join(gitDir, "worktrees"))) {
    const path = join(gitDir, "worktrees", id);
    if (isRealDir(path)) addGitDir(path, 1);
  }
  walk(join(gitDir, "modules"), 0);
  return { dirs: dirs.slice(0, limit), complete: dirs.length <= limit };
}

/** A git directory's control paths (its own and its nested git dirs'), as they are now. */
interface GitDirControl {
  /** Those that exist (as written: their links are for `pathChain` to follow). */
  readonly present: string[];
  /** Those that do not: they must not appear (`checkGitAfterCommand`). */
  readonly absent: string[];
  /** The nested git dirs found, so that one that appears later is known to be new. */
  readonly nested: string[];
  /** More nested git dirs than were looked at: the git dir must be kept read-only whole. */
  readonly incomplete: boolean;
}

function gitDirControl(gitDir: string): GitDirControl {
  const { dirs, complete } = nestedGitDirs(gitDir);
  const present: string[] = [];
  const absent: string[] = [];
  for (const dir of [gitDir, ...dirs]) {
    for (const name of GIT_DIR_CONTROL) {
      const path = join(dir, name);
      if (lstatQuiet(path) === undefined) absent.push(path);
      else present.push(path);
    }
  }
  return { present, absent, nested: dirs, incomplete: !complete };
}

/** What the git dirs of the writable roots need (see `gitDirProtections`). */
export interface GitDirProtections {
  /** Control paths that exist: read-only (the caller walks their chains, as for any protected path). */
  readonly present: string[];
  /** Kept read-only whole: a `.git` file or symlink, and a git dir with more nested ones than are read. */
  readonly whole: string[];
  /**
   * Git dirs outside every writable root that a root's `.git` file points to (a linked worktree's own
   * and its repository's): writable like a root's own `.git`, for a commit there writes objects and refs.
   */
  readonly extraRoots: string[];
  readonly watch: GitWatch;
}

/**
 * For each writable root (canonical): its `.git` directory, or the git dirs its `.git` file points to,
 * with their control paths (`GIT_DIR_CONTROL`, nested worktrees and submodules included) kept read-only
 * when they exist and watched when they do not; a root without `.git` is watched for one.
 */
export function gitDirProtections(
  roots: readonly string[],
  env: Record<string, string | undefined>,
): GitDirProtections {
  const present: string[] = [];
  const whole: string[] = [];
  const extraRoots: string[] = [];
  const absent: string[] = [];
  const gitDirs: { path: string; nested: string[] }[] = [];
  const newRepositories: string[] = [];
  const operations: { path: string; before: string | null }[] = [];
  const repositories: { root: string; gitDir: string; index: string | null; gitlinks: string[] }[] = [];
  const startedAt = Date.now();
  const seen = new Set<string>();
  const inAnyRoot = (path: string): boolean =>
    [...roots, ...extraRoots].some((root) => path === root || isInside(path, root));
  const control = (gitDir: string): void => {
    if (seen.has(gitDir)) return;
    seen.add(gitDir);
    const found = gitDirControl(gitDir);
    if (found.incomplete) {
      whole.push(gitDir);
      return;
    }
    present.push(...found.present);
    absent.push(...found.absent);
    gitDirs.push({ path: gitDir, nested: found.nested });
    for (const dir of [gitDir, ...found.nested]) {
      for (const name of GIT_OPERATION_FILES) {
        const path = join(dir, name);
        operations.push({ path, before: readSmall(path, MAX_OPERATION_BYTES) ?? null });
      }
    }
  };
  for (const root of roots) {
    const dotGit = `${root === "/" ? "" : root}/.git`;
    const info = lstatSync(dotGit, { throwIfNoEntry: false });
    if (info === undefined) {
      newRepositories.push(dotGit);
    } else if (info.isDirectory()) {
      control(dotGit);
      repositories.push({ root, gitDir: dotGit, index: indexSignature(dotGit), gitlinks: [] });
    } else if (info.isFile()) {
      whole.push(dotGit);
      const targets = gitdirPointers(dotGit)
        .map((path) => canonical(path))
        .filter((path): path is string => path !== undefined && isRealDir(path));
      for (const target of targets) if (!inAnyRoot(target)) extraRoots.push(target);
      for (const target of targets) control(target);
      const own = targets[0];
      if (own !== undefined)
        repositories.push({ root, gitDir: own, index: indexSignature(own), gitlinks: [] });
    } else {
      // A symlink: bwrap cannot pin it, so the git dir it leads to stays read-only whole, as before.
      const real = canonical(dotGit);
      if (real !== undefined) whole.push(real);
    }
  }
  // The repositories the index names (gitlinks): the person's `git status` recurses into each, so its
  // git dir is kept as a root's is (`.git` in the work tree, or where its gitfile points), and one not
  // there yet is watched like a root's missing `.git`.
  for (const repository of repositories) {
    repository.gitlinks = gitlinksOf(repository.root, repository.gitDir, env);
    for (const path of repository.gitlinks) {
      const dotGit = join(repository.root, path, ".git");
      const info = lstatQuiet(dotGit);
      if (info === undefined) {
        if (isRealDir(join(repository.root, path))) newRepositories.push(dotGit);
      } else if (info.isDirectory()) {
        control(dotGit);
      } else if (info.isFile()) {
        whole.push(dotGit);
        for (const target of gitdirPointers(dotGit).slice(0, 1)) {
          const real = canonical(target);
          if (real !== undefined && isRealDir(real) && inAnyRoot(real)) control(real);
        }
      } else {
        const real = canonical(dotGit);
        if (real !== undefined) whole.push(real);
      }
    }
  }
  return {
    present,
    whole,
    extraRoots,
    watch: {
      roots: [...roots, ...extraRoots],
      startedAt,
      absent,
      gitDirs,
      newRepositories,
      operations,
      repositories,
    },
  };
}

// What `git ls-files --stage` may print before a repository's gitlinks are no longer looked for.
const MAX_INDEX_LISTING = 64 * 1024 * 1024;
// Each repository's gitlinks, by the index they were read from, so an index unchanged is not read again.
const GITLINKS = new Map<string, { readonly signature: string; readonly gitlinks: string[] }>();
const MAX_CACHED = 64;

/**
 * The paths of `root`'s gitlinks (mode 160000 in its index), as the host's git lists them, its
 * fsmonitor off; none without a git, an index or an answer.
 */
export function gitlinksOf(root: string, gitDir: string, env: Record<string, string | undefined>): string[] {
  const signature = indexSignature(gitDir);
  if (signature === null) return [];
  const cached = GITLINKS.get(gitDir);
  if (cached?.signature === signature) return cached.gitlinks;
  if (!mayHoldGitlinks(join(gitDir, "index"))) {
    if (GITLINKS.size >= MAX_CACHED) GITLINKS.clear();
    GITLINKS.set(gitDir, { signature, gitlinks: [] });
    return [];
  }
  const git = hostGit(env.PATH, () => false);
  if (git === null) return [];
  const run = runGit(
    git,
    ["-c", "core.fsmonitor=false", "ls-files", "--stage", "-z"],
    root,
    gitEnv(env),
    MAX_INDEX_LISTING,
  );
  if (!run.ok) return [];
  const gitlinks: string[] = [];
  for (const entry of run.stdout.split("\0")) {
    if (!entry.startsWith("160000 ")) continue;
    const tab = entry.indexOf("\t");
    if (tab !== -1) gitlinks.push(entry.slice(tab + 1));
  }
  if (GITLINKS.size >= MAX_CACHED) GITLINKS.clear();
  GITLINKS.set(gitDir, { signature, gitlinks });
  return gitlinks;
}

// A gitlink's entry in the index holds its mode, 0o160000, as four big-endian bytes.
const GITLINK_MODE = Buffer.from([0x00, 0x00, 0xe0, 0x00]);
// The split-index extension's signature.
const SPLIT_INDEX = Buffer.from("link");
// An index this large is not read here: git lists it.
const MAX_INDEX_SCAN = 64 * 1024 * 1024;

/**
 * Whether an index may name a gitlink: every gitlink entry holds the mode's four bytes, so an index
 * without them holds none (and git need not be asked, which a one-command process would pay each time).
 * Unreadable or too large: may.
 */
function mayHoldGitlinks(index: string): boolean {
  const info = lstatQuiet(index);
  if (info === undefined || !info.isFile() || info.size > MAX_INDEX_SCAN) return true;
  try {
    const index_ = readFileSync(index);
    // A split index keeps entries in a shared index file: git lists them.
    return index_.includes(GITLINK_MODE) || index_.includes(SPLIT_INDEX);
  } catch {
    return true;
  }
}
