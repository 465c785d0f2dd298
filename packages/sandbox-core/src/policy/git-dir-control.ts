// What inside a git directory makes git run programs or read from elsewhere, so that git's ordinary
// writes (objects, refs, the index, logs, HEAD, rebase and merge state) can be the sandbox's while
// nothing the person's own git runs later can be planted. What exists is kept read-only (bound over,
// with `.git` itself pinned); what does not exist cannot be kept so by a bind, and is checked after the
// command instead (`checkGitAfterCommand`): what appeared and would make git run or read something is
// renamed aside, and the result says so.
import {
  closeSync,
  constants,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  writeSync,
} from "node:fs";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import type { GitWatch } from "../types.js";
import { gitEnv, hostGit, parseListing, runGit } from "./git-config-paths.js";
import { GIT_DIR_CONTROL } from "./git-exec-keys.js";
import { isSafeKey } from "./git-host-exposure.js";
import { canonical, gitdirPointers, isInside } from "./protected-paths.js";

// Submodules of submodules nest `modules/<a>/modules/<b>`; names with slashes nest plain directories.
const MAX_DEPTH = 8;
// A repository with more worktrees and submodules than this has only the first ones looked at; the
// others' git dirs are then protected whole (see `gitDirControl`).
const MAX_NESTED = 64;

function entries(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

const isRealDir = (path: string): boolean =>
  lstatSync(path, { throwIfNoEntry: false })?.isDirectory() === true;

/**
 * The git directories inside `gitDir`: its linked worktrees' (`worktrees/<id>`) and its submodules'
 * (`modules/…`, nested), at most MAX_NESTED; `complete` is false when there were more.
 */
function nestedGitDirs(gitDir: string): { dirs: string[]; complete: boolean } {
  const dirs: string[] = [];
  for (const id of entries(join(gitDir, "worktrees"))) {
    const path = join(gitDir, "worktrees", id);
    if (isRealDir(path)) dirs.push(path);
  }
  const walk = (dir: string, depth: number): void => {
    if (depth > MAX_DEPTH) return;
    for (const name of entries(dir)) {
      const path = join(dir, name);
      if (!isRealDir(path)) continue;
      if (lstatSync(join(path, "HEAD"), { throwIfNoEntry: false }) !== undefined) {
        dirs.push(path);
        walk(join(path, "modules"), depth + 1);
        for (const id of entries(join(path, "worktrees"))) {
          if (isRealDir(join(path, "worktrees", id))) dirs.push(join(path, "worktrees", id));
        }
      } else {
        walk(path, depth + 1);
      }
    }
  };
  walk(join(gitDir, "modules"), 0);
  return { dirs: dirs.slice(0, MAX_NESTED), complete: dirs.length <= MAX_NESTED };
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
      if (lstatSync(path, { throwIfNoEntry: false }) === undefined) absent.push(path);
      else present.push(path);
    }
  }
  return { present, absent, nested: dirs, incomplete: !complete };
}

/**
 * A path the command made or changed that would make git run or read something: renamed to `movedTo`,
 * or (a todo's exec lines) `disabled` where it is.
 */
export interface GitRepair {
  readonly path: string;
  /** Where it is now; null when it could not be moved (then `why` says so too). */
  readonly movedTo: string | null;
  /** It stays where it is, with what would run commented out. */
  readonly disabled?: true;
  readonly why: string;
}

/**
 * After a command ran in the sandbox (and, for a session, after each of its calls): every control path
 * that appeared in a git dir known before, every nested git dir that appeared in one (a new worktree or
 * submodule), and every repository the command made in a writable root, are read; what would make the
 * person's git run a program or read from elsewhere is renamed to `NAME.conch-moved-STAMP` beside it,
 * where git never looks. Reading a config file runs git on the host (`git config --file`, which runs
 * nothing); without a git there, such a file cannot be read and is moved. Never throws.
 */
export function checkGitAfterCommand(
  watch: GitWatch,
  env: Record<string, string | undefined> = process.env,
): GitRepair[] {
  const context: Context = { watch, env, repairs: [], stamp: stamp(), git: undefined };
  for (const path of watch.absent) {
    if (lstatSync(path, { throwIfNoEntry: false }) !== undefined) inspect(context, path);
  }
  for (const { path, nested } of watch.gitDirs) {
    if (!isRealDir(path)) continue;
    const before = new Set(nested);
    for (const dir of nestedGitDirs(path).dirs) if (!before.has(dir)) inspectGitDir(context, dir);
  }
  for (const dotGit of watch.newRepositories) inspectDotGit(context, dotGit);
  for (const { path, before } of watch.operations) inspectOperation(context, path, before);
  return context.repairs;
}

interface Context {
  readonly watch: GitWatch;
  readonly env: Record<string, string | undefined>;
  readonly repairs: GitRepair[];
  readonly stamp: string;
  /** The host's git, found once (null: none). */
  git: string | null | undefined;
}

function stamp(): string {
  const now = new Date();
  const pad = (value: number): string => String(value).padStart(2, "0");
  return `${now.getUTCFullYear()}${pad(now.getUTCMonth() + 1)}${pad(now.getUTCDate())}T${pad(now.getUTCHours())}${pad(now.getUTCMinutes())}${pad(now.getUTCSeconds())}`;
}

function inRoots(watch: GitWatch, path: string): boolean {
  return watch.roots.some((root) => path === root || isInside(path, root));
}

/** A `.git` that appeared in a writable root: the git dir it is, or the one it points to, must be harmless. */
function inspectDotGit(context: Context, dotGit: string): void {
  const info = lstatSync(dotGit, { throwIfNoEntry: false });
  if (info === undefined) return;
  if (info.isDirectory()) {
    inspectGitDir(context, dotGit);
    return;
  }
  const targets = info.isFile() ? gitdirPointers(dotGit).map((path) => canonical(path)) : [canonical(dotGit)];
  if (targets.length === 0 || targets.some((real) => real === undefined || !inRoots(context.watch, real))) {
    moveAside(context, dotGit, "it points git at a git directory outside the writable roots");
    return;
  }
  for (const target of new Set(targets as string[])) if (isRealDir(target)) inspectGitDir(context, target);
}

/** A git dir the command made (and the nested ones it holds): each of its control paths. */
function inspectGitDir(context: Context, gitDir: string): void {
  for (const dir of [gitDir, ...nestedGitDirs(gitDir).dirs]) {
    for (const name of GIT_DIR_CONTROL) {
      const path = join(dir, name);
      if (lstatSync(path, { throwIfNoEntry: false }) !== undefined) inspect(context, path);
    }
    for (const name of GIT_OPERATION_FILES) inspectOperation(context, join(dir, name), null);
  }
}

/**
 * The state of an operation in progress that the person's `git rebase --continue` or `git cherry-pick
 * --continue` acts on, outside the sandbox: a todo's `exec` lines run commands, a merge strategy that
 * is not git's own runs `git-merge-NAME` (a NAME with a slash, a program in the work tree).
 */
const GIT_OPERATION_FILES: readonly string[] = [
  "rebase-merge/git-rebase-todo",
  "sequencer/todo",
  "rebase-merge/strategy",
  "sequencer/opts",
];

// An operation's state is a few lines per commit; past this it is not read (and a changed one is moved).
const MAX_OPERATION_BYTES = 1024 * 1024;

// git's todo commands that run a command: `exec CMD`, `x CMD`.
const EXEC_LINE = /^[ \t]*(?:exec|x)(?:[ \t]|$)/;
// The merge strategies built into git; any other name runs a program.
const BUILT_IN_STRATEGIES = new Set(["ort", "recursive", "resolve", "octopus", "ours", "subtree"]);
const OPTS_STRATEGY = /^\s*strategy\s*=\s*"?([^"\n]*?)"?\s*$/im;

/** One operation file, as it is now against how it was (`before`, null: absent). */
function inspectOperation(context: Context, path: string, before: string | null): void {
  if (lstatSync(path, { throwIfNoEntry: false }) === undefined) return;
  const now = readSmall(path, MAX_OPERATION_BYTES);
  if (now === before) return;
  if (now === undefined) {
    moveAside(context, path, "it is not a file git's operation state can be read from");
    return;
  }
  if (path.endsWith("todo")) {
    const old = new Set((before ?? "").split("\n").filter((line) => EXEC_LINE.test(line)));
    const lines = now.split("\n");
    const added = lines.filter((line) => EXEC_LINE.test(line) && !old.has(line));
    if (added.length === 0) return;
    const kept = lines.map((line) =>
      EXEC_LINE.test(line) && !old.has(line) ? `# ${line}  (disabled by Conch: made in the sandbox)` : line,
    );
    try {
      if (!reachableInRoots(context, path)) throw new Error("its directory leads out of the writable roots");
      // Not through a link a live session may have put there since it was read.
      const fd = openSync(path, constants.O_WRONLY | constants.O_TRUNC | constants.O_NOFOLLOW);
      try {
        writeSync(fd, kept.join("\n"));
      } finally {
        closeSync(fd);
      }
      context.repairs.push({
        path,
        movedTo: path,
        disabled: true,
        why:
          `its ${added.length} exec line(s) (${added.map((line) => line.trim()).join("; ")}) would run at the ` +
          "person's `--continue`, outside the sandbox; they are commented out there",
      });
    } catch (error) {
      moveAside(context, path, `it has exec lines, and could not be rewritten (${(error as Error).message})`);
    }
    return;
  }
  const strategy = path.endsWith("opts") ? (OPTS_STRATEGY.exec(now)?.[1] ?? null) : now.trim();
  if (strategy === null || strategy === "" || BUILT_IN_STRATEGIES.has(strategy)) return;
  moveAside(
    context,
    path,
    `it names the merge strategy ${JSON.stringify(strategy)}, which is not git's own: git would run a program for it`,
  );
}

/** The git dir a control path belongs to, and its name there (`objects/info/alternates`). */
function controlName(path: string): { gitDir: string; name: string } {
  for (const name of GIT_DIR_CONTROL) {
    if (path.endsWith(`/${name}`)) return { gitDir: path.slice(0, -name.length - 1), name };
  }
  return { gitDir: dirname(path), name: basename(path) };
}

/** One control path that exists now and did not before: kept when harmless, else moved aside. */
function inspect(context: Context, path: string): void {
  const { gitDir, name } = controlName(path);
  const info = lstatSync(path, { throwIfNoEntry: false });
  if (info === undefined) return;
  switch (name) {
    case "config":
    case "config.worktree": {
      const why = info.isFile() ? unsafeSetting(context, path) : "it is not a regular file";
      if (why !== null) moveAside(context, path, why);
      return;
    }
    case "hooks":
    case "remotes":
    case "branches": {
      if (!info.isDirectory()) {
        moveAside(context, path, `it is not a directory, where git looks for ${name}`);
        return;
      }
      for (const entry of entries(path)) {
        const inside = join(path, entry);
        const harmless = name === "hooks" && entry.endsWith(".sample") && lstatSync(inside).isFile() === true;
        if (harmless) continue;
        moveAside(
          context,
          inside,
          name === "hooks"
            ? "git would run this hook at the person's next git command, outside the sandbox"
            : "it names a remote that `git fetch` would read",
        );
      }
      return;
    }
    case "commondir": {
      // A linked worktree's own, pointing at the repository that lists it, is what `git worktree add` writes.
      const common = worktreeCommon(gitDir);
      const target = pointerTarget(path, gitDir);
      if (common !== null && target !== undefined && target === canonical(common)) return;
      moveAside(
        context,
        path,
        "git would read this repository's config and hooks from the directory it names",
      );
      return;
    }
    case "gitdir": {
      const target = readSmall(path)?.trim();
      const own = worktreeCommon(gitDir) !== null && target !== undefined && isAbsolute(target);
      if (own && inRoots(context.watch, canonical(dirname(target)) ?? resolve(target))) return;
      moveAside(
        context,
        path,
        "it names a work tree outside the writable roots, which `git worktree remove` would delete",
      );
      return;
    }
    default:
      moveAside(context, path, "git would read objects from the directories it names");
  }
}

/** `<common>` when `gitDir` is `<common>/worktrees/<id>`, else null. */
function worktreeCommon(gitDir: string): string | null {
  const parent = dirname(gitDir);
  return basename(parent) === "worktrees" ? dirname(parent) : null;
}

function readSmall(path: string, limit = 4096): string | undefined {
  try {
    const info = lstatSync(path);
    if (!info.isFile() || info.size > limit) return undefined;
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

/** The canonical directory a pointer file names (relative to `base`), or undefined. */
function pointerTarget(path: string, base: string): string | undefined {
  const text = readSmall(path)?.trim();
  if (text === undefined || text === "") return undefined;
  return canonical(isAbsolute(text) ? text : resolve(base, text));
}

/**
 * Why a config file the command made would make git run or read something (its first key that is not
 * one of those `git init`, `git clone`, `git remote add` and `git branch -u` write, `core.hooksPath`
 * included), or null when every key is harmless.
 */
function unsafeSetting(context: Context, path: string): string | null {
  if (context.git === undefined) {
    context.git = hostGit(context.env.PATH, (dir) => inRoots(context.watch, canonical(dir) ?? dir));
  }
  if (context.git === null) return "no git on this machine could read it, so what it sets is not known";
  const run = runGit(
    context.git,
    ["config", "--file", path, "--list", "--show-origin", "-z"],
    "/",
    gitEnv(context.env),
  );
  if (!run.ok) return `git could not read it (${run.reason})`;
  const listing = parseListing(run.stdout);
  if (listing === null) return "git's listing of it could not be read";
  const unsafe = listing.find((entry) => entry.key === "core.hookspath" || !isSafeKey(entry.key));
  return unsafe === undefined
    ? null
    : `it sets ${unsafe.key}, which can make the person's git run a program or read from elsewhere`;
}

/**
 * Whether `path`'s directory is, followed through its links, inside a writable root: a live session may
 * have swapped a directory on the way for a link to elsewhere, where Conch must not rename or write.
 */
function reachableInRoots(context: Context, path: string): boolean {
  const parent = canonical(dirname(path));
  return parent !== undefined && inRoots(context.watch, parent);
}

function moveAside(context: Context, path: string, why: string): void {
  const movedTo = `${path}.conch-moved-${context.stamp}`;
  if (!reachableInRoots(context, path)) {
    context.repairs.push({
      path,
      movedTo: null,
      why: `${why}; its directory now leads out of the writable roots, so Conch left it: remove it before running git here`,
    });
    return;
  }
  try {
    renameSync(path, movedTo);
    context.repairs.push({ path, movedTo, why });
  } catch (error) {
    context.repairs.push({
      path,
      movedTo: null,
      why: `${why}; it could not be moved (${(error as Error).message}): remove it before running git here`,
    });
  }
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
export function gitDirProtections(roots: readonly string[]): GitDirProtections {
  const present: string[] = [];
  const whole: string[] = [];
  const extraRoots: string[] = [];
  const absent: string[] = [];
  const gitDirs: { path: string; nested: string[] }[] = [];
  const newRepositories: string[] = [];
  const operations: { path: string; before: string | null }[] = [];
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
    } else if (info.isFile()) {
      whole.push(dotGit);
      const targets = gitdirPointers(dotGit)
        .map((path) => canonical(path))
        .filter((path): path is string => path !== undefined && isRealDir(path));
      for (const target of targets) if (!inAnyRoot(target)) extraRoots.push(target);
      for (const target of targets) control(target);
    } else {
      // A symlink: bwrap cannot pin it, so the git dir it leads to stays read-only whole, as before.
      const real = canonical(dotGit);
      if (real !== undefined) whole.push(real);
    }
  }
  return {
    present,
    whole,
    extraRoots,
    watch: { roots: [...roots, ...extraRoots], absent, gitDirs, newRepositories, operations },
  };
}
