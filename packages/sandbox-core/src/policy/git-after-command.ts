// After a command ran in the sandbox (and after each call of a session): what it did in the git dirs
// it may write that no bind could keep read-only, read on the host, and what would make the person's
// own git run a program, read from elsewhere, or write outside the workspace renamed aside
// (`NAME.conch-moved-STAMP` beside it, where git never looks), a line each in the result.
import { closeSync, constants, openSync, renameSync, type Stats, unlinkSync, writeSync } from "node:fs";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import type { GitWatch } from "../types.js";
import { gitEnv, hostGit, parseListing, runGit } from "./git-config-paths.js";
import {
  entries,
  GIT_OPERATION_FILES,
  gitlinksOf,
  indexSignature,
  isRealDir,
  lstatQuiet,
  MAX_OPERATION_BYTES,
  nestedGitDirs,
  readSmall,
} from "./git-dir-control.js";
import { GIT_DIR_CONTROL } from "./git-exec-keys.js";
import { isSafeKey } from "./git-host-exposure.js";
import { canonical, gitdirPointers, isInside, pointerText } from "./protected-paths.js";

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
  /** It is gone: a link, FIFO, socket or device, whose removal touches nothing else. */
  readonly removed?: true;
  readonly why: string;
}

// The walks for links read at most this many directory entries; past it, what is left is said unchecked
// (after every exact check has run).
const MAX_ENTRIES = 500_000;
// At most this many config files are given to the host's git; the rest are moved aside unread.
const MAX_GIT_RUNS = 256;
// A config a command makes is a few lines; a larger one is not read (git could take seconds) but moved.
const MAX_CONFIG_BYTES = 64 * 1024;
// Entries whose ctime is this close before the rules were found may be the command's (coarse clocks).
const CLOCK_SLACK_MS = 50;

interface Context {
  readonly watch: GitWatch;
  readonly env: Record<string, string | undefined>;
  readonly repairs: GitRepair[];
  readonly stamp: string;
  /** Git dirs read as the command's own (inspected whole), so each is read once. */
  readonly inspected: Set<string>;
  /** The host's git, found once (null: none). */
  git: string | null | undefined;
  /** Directory entries read so far (MAX_ENTRIES). */
  budget: number;
  /** Config files given to the host's git so far (MAX_GIT_RUNS). */
  gitRuns: number;
}

/**
 * Checks what `watch` says the command's sandbox could not protect, and renames aside what is harmful:
 * - a control path (`GIT_DIR_CONTROL`) that appeared in a git dir known before;
 * - a git dir the command made: a `.git` in a root that had none, a new worktree or submodule, a git dir
 *   a root's git now resolves to instead of its own (a `HEAD` broken so that git falls back to the work
 *   tree as a bare repository), the git dir of a gitlink added to the index (a nested repository the
 *   person's `git status` recurses into): its config unless every key is one `git init`, `clone` or
 *   `remote add` write, its hooks but `*.sample`, its pointers out of the roots;
 * - a symlink, FIFO, socket or device the command put in a git dir (git makes none; through them the
 *   person's git would write, delete or hang outside the workspace);
 * - exec lines added to a rebase's or cherry-pick's todo (commented out; the person's own stay) and a
 *   merge strategy that is not git's own.
 * Reading a config file runs the host's git (`git config --file`, which runs nothing); without one, the
 * file is moved. Never throws: a failure is one more repair that says what was left unchecked.
 */
export function checkGitAfterCommand(
  watch: GitWatch,
  env: Record<string, string | undefined> = process.env,
): GitRepair[] {
  const context: Context = {
    watch,
    env,
    repairs: [],
    stamp: stamp(),
    inspected: new Set(),
    git: undefined,
    budget: MAX_ENTRIES,
    gitRuns: 0,
  };
  // The exact checks first, each on its own (one that fails leaves the others to run), the walks last.
  const step = (what: string, run: () => void): void => {
    try {
      run();
    } catch (error) {
      context.repairs.push({
        path: watch.roots[0] ?? "/",
        movedTo: null,
        why: `Conch could not finish ${what} after the command (${(error as Error).message}): look in .git before running git here`,
      });
    }
  };
  step("reading the operations in progress", () => {
    for (const { path, before } of watch.operations) inspectOperation(context, path, before);
  });
  step("checking the control files", () => {
    for (const path of watch.absent) if (lstatQuiet(path) !== undefined) inspect(context, path);
  });
  step("checking new repositories", () => {
    for (const dotGit of watch.newRepositories) inspectDotGit(context, dotGit);
  });
  step("checking the repositories' gitlinks and git dirs", () => {
    for (const repository of watch.repositories) checkRepository(context, repository);
    for (const dotGit of watch.newRepositories) checkRoot(context, dirname(dotGit), null);
  });
  step("checking new worktrees and submodules", () => {
    for (const { path, nested } of watch.gitDirs) {
      if (!isRealDir(path)) continue;
      const before = new Set(nested);
      for (const dir of nestedGitDirs(path, Number.POSITIVE_INFINITY).dirs) {
        if (!before.has(dir)) inspectGitDir(context, dir);
      }
    }
  });
  step("looking for links in the git dirs", () => {
    for (const { path } of watch.gitDirs) if (isRealDir(path)) strangeEntries(context, path);
  });
  return context.repairs;
}

function stamp(): string {
  const now = new Date();
  const pad = (value: number): string => String(value).padStart(2, "0");
  return `${now.getUTCFullYear()}${pad(now.getUTCMonth() + 1)}${pad(now.getUTCDate())}T${pad(now.getUTCHours())}${pad(now.getUTCMinutes())}${pad(now.getUTCSeconds())}`;
}

function inRoots(watch: GitWatch, path: string): boolean {
  return watch.roots.some((root) => path === root || isInside(path, root));
}

function isNew(context: Context, info: Stats): boolean {
  return info.ctimeMs >= context.watch.startedAt - CLOCK_SLACK_MS;
}

function spend(context: Context, count: number): void {
  context.budget -= count;
  if (context.budget < 0) throw new Error(`more than ${MAX_ENTRIES} entries to read`);
}

/** A `.git` that appeared in a writable root: the git dir it is, or the one it points to, must be harmless. */
function inspectDotGit(context: Context, dotGit: string): void {
  const info = lstatQuiet(dotGit);
  if (info === undefined) return;
  if (info.isDirectory()) {
    inspectGitDir(context, dotGit);
    return;
  }
  // git follows a `.git` link, to a directory or to a gitfile: Conch does not.
  if (!info.isFile()) {
    moveAside(context, dotGit, "a .git that is a link points git at what the command chose");
    return;
  }
  const targets = gitdirPointers(dotGit).map((path) => canonical(path));
  if (targets.length === 0 || targets.some((real) => real === undefined || !inRoots(context.watch, real))) {
    moveAside(context, dotGit, "it points git at a git directory outside the writable roots");
    return;
  }
  for (const target of new Set(targets as string[])) if (isRealDir(target)) inspectGitDir(context, target);
}

/**
 * A git dir the command made (and the nested ones it holds): each of its control paths and entries.
 * `onlyNew`: a git dir that may be the person's (one a gitlink or the root's git leads to): only what
 * changed since the rules were found is read as the command's.
 */
function inspectGitDir(context: Context, gitDir: string, onlyNew = false): void {
  if (context.inspected.has(gitDir)) return;
  context.inspected.add(gitDir);
  for (const dir of [gitDir, ...nestedGitDirs(gitDir, Number.POSITIVE_INFINITY).dirs]) {
    for (const name of GIT_DIR_CONTROL) {
      const path = join(dir, name);
      if (lstatQuiet(path) !== undefined) inspect(context, path, onlyNew);
    }
    for (const name of GIT_OPERATION_FILES) inspectOperation(context, join(dir, name), null, onlyNew);
  }
  strangeEntries(context, gitDir);
}

// The directories of a git dir that git reads, and so walks for links; others (a command's own junk)
// git never looks into.
const READ_DIRS: ReadonlySet<string> = new Set([
  "refs",
  "logs",
  "worktrees",
  "modules",
  "rebase-merge",
  "rebase-apply",
  "sequencer",
  "info",
  "objects",
]);
// Under `objects`, only these are read through (the loose-object directories hold only objects).
const OBJECT_DIRS: ReadonlySet<string> = new Set(["info", "pack"]);

/**
 * A symlink, FIFO, socket or device in a git dir, whatever its age: git makes none, and through one the
 * person's git would write (`COMMIT_EDITMSG`, a reflog), delete (`git worktree prune` through
 * `worktrees/<id>`) or wait (a FIFO index) outside the workspace. Every entry of the git dir is looked
 * at, and every entry below the directories git reads (nested git dirs included), but inside `objects`
 * only `info` and `pack`.
 */
function strangeEntries(context: Context, gitDir: string): void {
  const pending: { dir: string; top: boolean; objects: boolean }[] = [
    { dir: gitDir, top: true, objects: false },
  ];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const names = entries(next.dir);
    spend(context, names.length);
    for (const name of names) {
      const path = join(next.dir, name);
      const info = lstatQuiet(path);
      if (info === undefined) continue;
      if (!info.isFile() && !info.isDirectory()) {
        remove(context, path);
        continue;
      }
      if (!info.isDirectory()) continue;
      if (next.top && !READ_DIRS.has(name)) continue;
      if (next.objects && !OBJECT_DIRS.has(name)) continue;
      pending.push({ dir: path, top: false, objects: name === "objects" });
    }
  }
}

/** The git dir a control path belongs to, and its name there (`objects/info/alternates`). */
function controlName(path: string): { gitDir: string; name: string } {
  for (const name of GIT_DIR_CONTROL) {
    if (path.endsWith(`/${name}`)) return { gitDir: path.slice(0, -name.length - 1), name };
  }
  return { gitDir: dirname(path), name: basename(path) };
}

/** One control path that exists now and did not before: kept when harmless, else moved aside. */
function inspect(context: Context, path: string, onlyNew = false): void {
  const { gitDir, name } = controlName(path);
  const info = lstatQuiet(path);
  if (info === undefined) return;
  if (onlyNew && !isNew(context, info) && !info.isDirectory()) return;
  switch (name) {
    case "config":
    case "config.worktree": {
      const why = info.isFile() ? unsafeSetting(context, path, info.size) : "it is not a regular file";
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
      const names = entries(path);
      spend(context, names.length);
      for (const entry of names) {
        const inside = join(path, entry);
        const entryInfo = lstatQuiet(inside);
        if (entryInfo === undefined || (onlyNew && !isNew(context, entryInfo))) continue;
        const harmless = name === "hooks" && entry.endsWith(".sample") && entryInfo.isFile();
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

/** The canonical directory a pointer file names (relative to `base`), or undefined. */
function pointerTarget(path: string, base: string): string | undefined {
  const text = pointerText(readSmall(path), "");
  if (text === null) return undefined;
  return canonical(isAbsolute(text) ? text : resolve(base, text));
}

function hostGitOf(context: Context): string | null {
  if (context.git === undefined) {
    context.git = hostGit(context.env.PATH, (dir) => inRoots(context.watch, canonical(dir) ?? dir));
  }
  return context.git;
}

/** The entries of a config file, read by the host's git (which runs nothing to do so), or why not. */
function configEntries(context: Context, path: string): { key: string; value: string | null }[] | string {
  if (++context.gitRuns > MAX_GIT_RUNS)
    return `more than ${MAX_GIT_RUNS} config files appeared, so it was not read`;
  const git = hostGitOf(context);
  if (git === null) return "no git on this machine could read it, so what it sets is not known";
  const run = runGit(
    git,
    ["config", "--file", path, "--list", "--show-origin", "-z"],
    "/",
    gitEnv(context.env),
  );
  if (!run.ok) return `git could not read it (${run.reason})`;
  return parseListing(run.stdout) ?? "git's listing of it could not be read";
}

/**
 * Why a config file the command made would make git run or read something (its first key that is not
 * one of those `git init`, `git clone`, `git remote add` and `git branch -u` write, `core.hooksPath`
 * included), or null when every key is harmless.
 */
function unsafeSetting(context: Context, path: string, size: number): string | null {
  if (size > MAX_CONFIG_BYTES)
    return `it is larger than ${MAX_CONFIG_BYTES / 1024} KiB, more than a repository's own`;
  const listing = configEntries(context, path);
  if (typeof listing === "string") return listing;
  const unsafe = listing.find((entry) => entry.key === "core.hookspath" || !isSafeKey(entry.key));
  return unsafe === undefined
    ? null
    : `it sets ${unsafe.key}, which can make the person's git run a program or read from elsewhere`;
}

// The `git apply` options `git am` stores in rebase-apply/apply-opt (`am_load`), none naming a file.
const AM_APPLY_OPTION =
  /^(?:-p\d+|-C\d+|--whitespace=[a-z-]+|--directory=.*|--exclude=.*|--include=.*|--reject|--ignore-space-change|--ignore-whitespace|--allow-empty|--quiet|-q)$/s;

/** The words of apply-opt, as git's `sq_dequote_to_strvec` reads them; a word not so quoted is returned as is. */
function applyOptions(text: string): string[] {
  const words: string[] = [];
  const pattern = /\s*('(?:[^']|'\\'')*')/gy;
  let at = 0;
  const trimmed = text.replace(/\s+$/, "");
  while (at < trimmed.length) {
    pattern.lastIndex = at;
    const match = pattern.exec(trimmed);
    if (match === null) return [...words, trimmed.slice(at)];
    words.push((match[1] as string).slice(1, -1).replaceAll("'\\''", "'"));
    at = pattern.lastIndex;
  }
  return words;
}

// git's todo commands that run a command: `exec CMD`, `x CMD`.
const EXEC_LINE = /^[ \t]*(?:exec|x)(?:[ \t]|$)/;
// The merge strategies built into git; any other name runs a program.
const BUILT_IN_STRATEGIES = new Set(["ort", "recursive", "resolve", "octopus", "ours", "subtree"]);

/** One operation file, as it is now against how it was (`before`, null: absent). */
function inspectOperation(context: Context, path: string, before: string | null, onlyNew = false): void {
  const info = lstatQuiet(path);
  if (info === undefined || (onlyNew && !isNew(context, info))) return;
  const now = readSmall(path, MAX_OPERATION_BYTES);
  if (now === before) return;
  if (now === undefined) {
    moveAside(context, path, "it is not a file git's operation state can be read from");
    return;
  }
  if (path.endsWith("todo")) {
    disableExecLines(context, path, before, now);
    return;
  }
  if (path.endsWith("apply-opt")) {
    const foreign = applyOptions(now).find((option) => !AM_APPLY_OPTION.test(option));
    if (foreign !== undefined) {
      moveAside(
        context,
        path,
        `it gives \`git apply\` the option ${JSON.stringify(foreign)}, which \`git am\` never stores (one can write files outside the workspace)`,
      );
    }
    return;
  }
  let strategies: (string | null)[];
  if (path.endsWith("opts")) {
    // Read as git reads it: every value of options.strategy counts (git takes the last).
    const listing = configEntries(context, path);
    if (typeof listing === "string") {
      moveAside(context, path, `its options could not be read (${listing})`);
      return;
    }
    strategies = listing.filter((entry) => entry.key === "options.strategy").map((entry) => entry.value);
  } else {
    // git reads the one line less its newline, nothing else trimmed.
    strategies = [now.replace(/\r?\n$/, "")];
  }
  const foreign = strategies.find((strategy) => strategy === null || !BUILT_IN_STRATEGIES.has(strategy));
  if (foreign === undefined) return;
  moveAside(
    context,
    path,
    `it names the merge strategy ${JSON.stringify(foreign)}, which is not git's own: git would run a program for it`,
  );
}

function disableExecLines(context: Context, path: string, before: string | null, now: string): void {
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
}

/**
 * A root's repository after the command: gitlinks the command added to its index (a nested repository
 * the person's `git status` recurses into), and the git dir the root's git resolves to now.
 */
function checkRepository(context: Context, repository: GitWatch["repositories"][number]): void {
  if (indexSignature(repository.gitDir) !== repository.index) {
    // A gitlink the command added (a nested repository the person's `git status` recurses into): its
    // git dir is read whole, however old what is in it.
    const before = new Set(repository.gitlinks);
    for (const path of gitlinksOf(repository.root, repository.gitDir, context.env)) {
      if (!before.has(path)) inspectDotGit(context, join(repository.root, path, ".git"));
    }
  }
  checkRoot(context, repository.root, repository.gitDir);
}

// A HEAD git takes: a symbolic ref into refs/, or an object name.
const VALID_HEAD = /^(?:ref: refs\/\S+|[0-9a-f]{40}|[0-9a-f]{64})\r?\n?$/;

/**
 * Whether git in `root` still finds `expected` (null: the root had no repository), when a cheap look says
 * it may not: the git dir's HEAD is no longer one git takes, or its objects or refs are gone (git then
 * falls back to the work tree as a bare repository), or the root holds what makes it look like one. A
 * git dir it finds instead, inside the roots, is read as the command's own.
 */
function checkRoot(context: Context, root: string, expected: string | null): void {
  const gitDir = expected ?? join(root, ".git");
  const broken =
    expected !== null &&
    (!VALID_HEAD.test(readSmall(join(gitDir, "HEAD")) ?? "") ||
      !isRealDir(join(gitDir, "objects")) ||
      !isRealDir(join(gitDir, "refs")));
  const bareLooking =
    lstatQuiet(join(root, "HEAD")) !== undefined && lstatQuiet(join(root, "objects")) !== undefined;
  if (!broken && !bareLooking) return;
  const git = hostGitOf(context);
  if (git === null) return;
  const run = runGit(git, ["rev-parse", "--absolute-git-dir"], root, gitEnv(context.env));
  if (!run.ok) return;
  const found = canonical(run.stdout.trim());
  if (found === undefined || !inRoots(context.watch, found)) return;
  const known = context.watch.gitDirs.some(({ path }) => canonical(path) === found);
  if (known) return;
  if (context.watch.roots.includes(found)) {
    // The work tree itself taken for a bare repository: without its HEAD it is none.
    moveAside(
      context,
      join(found, "HEAD"),
      "with the repository's own git dir broken, it makes git take the workspace itself for a bare repository, whose config and hooks the command wrote",
    );
    return;
  }
  inspectGitDir(context, found, true);
}

/**
 * Whether `path`'s directory is, followed through its links, inside a writable root: a live session may
 * have swapped a directory on the way for a link to elsewhere, where Conch must not rename or write.
 */
function reachableInRoots(context: Context, path: string): boolean {
  const parent = canonical(dirname(path));
  return parent !== undefined && inRoots(context.watch, parent);
}

/**
 * Removes a link, FIFO, socket or device: renamed beside itself it would still be seen by git's scans of
 * its directory (`worktrees/`, `refs/`), and removing one changes nothing it points to.
 */
function remove(context: Context, path: string): void {
  const why =
    "git makes no link, FIFO or device in a git dir; through it the person's git would write, delete or wait outside the workspace";
  if (!reachableInRoots(context, path)) {
    context.repairs.push({
      path,
      movedTo: null,
      why: `${why}; its directory now leads out of the writable roots, so Conch left it: remove it before running git here`,
    });
    return;
  }
  try {
    unlinkSync(path);
    context.repairs.push({ path, movedTo: null, removed: true, why });
  } catch (error) {
    context.repairs.push({
      path,
      movedTo: null,
      why: `${why}; it could not be removed (${(error as Error).message}): remove it before running git here`,
    });
  }
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
