import { lstatSync, mkdirSync, statSync } from "node:fs";
import { homedir, userInfo } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import type { SandboxMode } from "@conch/protocol";
import { SandboxError } from "../errors.js";
import type { GitWatch, SandboxPolicy, SandboxRules, TmpRule, WritableRoot } from "../types.js";
import { environmentDenyRead } from "./environment-deny.js";
import { gitDirProtections } from "./git-dir-control.js";
import { gitProtections } from "./git-protections.js";
import { pathChain } from "./path-chain.js";
import {
  canonical,
  HOME_PROTECTED_NAMES,
  isInside,
  PROTECTED_NAMES,
  protectedPathsOf,
} from "./protected-paths.js";
import { DEFAULT_DENY_READ, hiddenPathFinder } from "./read-deny.js";
import { patternList, validatePolicy, validateResolveOptions } from "./validate-policy.js";

export interface SandboxWorkspaceOptions {
  /**
   * The session's working directory (absolute, existing): under workspace-write, its writable root. A
   * command's own working directory only says where it starts; it never widens what it may write.
   */
  cwd: string;
  /**
   * Where `HOME` (for `~/` in read patterns), `TMPDIR`, and the variables that choose git's config
   * (`XDG_CONFIG_HOME`, `GIT_CONFIG_GLOBAL`, `GIT_CONFIG_COUNT`, ...) and `PATH` for the host's git are
   * read; defaults to `process.env`.
   */
  env?: Record<string, string | undefined>;
  /**
   * workspace-write: the host directory bound at `/tmp` (and `$TMPDIR`), created 0700 when missing, so
   * the calls of one workspace share it and nothing else. Without one, each command gets an empty `/tmp`.
   */
  tmpDir?: string;
  /** Read patterns denied besides `DEFAULT_DENY_READ` (`~/`, `*` and `?` within a component). */
  denyRead?: readonly string[];
  /** Exceptions to the denied reads: a denied path named here is readable; inside a denied dir, it stays readable. */
  allowRead?: readonly string[];
  /** Paths that stay read-only when inside a writable root: Conch's own config, rules and state. */
  protect?: readonly string[];
  /**
   * Accept a writable root that is (or holds) the home directory. Off by default: there a sandboxed
   * command can create files that later run outside the sandbox (`~/.bash_profile`, `~/.gitconfig`,
   * `~/.config/autostart`, `~/.ssh/authorized_keys`), which no read-only bind of existing files stops.
   */
  allowHomeRoot?: boolean;
}

/** A policy resolved once for a session: roots held by identity; `rules()` for each command. */
export interface SandboxWorkspace {
  readonly mode: SandboxMode;
  /** The canonical session cwd. */
  readonly cwd: string;
  /** Whether commands have the network (`rules().network`, known without resolving the rules). */
  readonly network: boolean;
  /**
   * The rules for one command. Protected and hidden paths are found afresh (a `.git` made by `git init`
   * after the session started is protected from then on); a writable root that is no longer the
   * directory it was (moved, replaced by a symlink) throws `WRITABLE_ROOT_CHANGED`.
   */
  rules(): SandboxRules;
  /**
   * Hides what `patterns` name (as `denyRead`) from the next command on: paths learned after the
   * session started, such as the history file the user's shell snapshot reports. A command already
   * running keeps the mounts it started with.
   */
  denyRead(patterns: readonly string[]): void;
}

interface HeldDir {
  readonly path: string;
  readonly dev: number;
  readonly ino: number;
}

function canonicalDirectory(path: string): string | undefined {
  const real = canonical(path);
  if (real === undefined) return undefined;
  return statSync(real, { throwIfNoEntry: false })?.isDirectory() === true ? real : undefined;
}

function hold(path: string): HeldDir {
  const info = statSync(path);
  return { path, dev: info.dev, ino: info.ino };
}

function checkHeld(dir: HeldDir, what: string): void {
  const info = lstatSync(dir.path, { throwIfNoEntry: false });
  if (info?.isDirectory() === true && info.dev === dir.dev && info.ino === dir.ino) return;
  const now =
    info === undefined
      ? "it no longer exists"
      : info.isSymbolicLink()
        ? "it is now a symlink"
        : info.isDirectory()
          ? "it is now another directory"
          : "it is no longer a directory";
  throw new SandboxError(
    "WRITABLE_ROOT_CHANGED",
    `the sandbox's ${what} ${dir.path} is not the directory the session started with (${now}); ` +
      "nothing ran. Start a new session to use the directory that is there now.",
  );
}

/**
 * Refuses a root reached through a symlink that a sandboxed command could have written: one that lies
 * inside another writable root (`build -> ~` planted in the workspace would make the home writable).
 */
function refuseWritableSymlinks(path: string, others: readonly string[], what: string): void {
  let current = "/";
  for (const part of path.split("/").filter((component) => component !== "")) {
    current = join(current, part);
    if (lstatSync(current, { throwIfNoEntry: false })?.isSymbolicLink() !== true) continue;
    const location = canonical(dirname(current));
    if (location !== undefined && others.some((root) => root === location || isInside(location, root))) {
      throw new SandboxError(
        "INVALID_SANDBOX_POLICY",
        `invalid sandbox policy: ${what} ${path}: reached through the symlink ${current}, which lies in ` +
          "a writable root where a sandboxed command could have made it; name the real directory instead",
      );
    }
  }
}

function unique(paths: Iterable<string>): string[] {
  return [...new Set(paths)];
}

function homeOf(env: Record<string, string | undefined>): string {
  const home = env.HOME;
  return canonical(home !== undefined && isAbsolute(home) ? home : homedir()) ?? homedir();
}

/** The home directories that matter: `$HOME`, and the account's own from passwd when it differs. */
function homesOf(env: Record<string, string | undefined>): string[] {
  let account: string | undefined;
  try {
    account = canonical(userInfo().homedir);
  } catch {
    // No passwd entry (a container's uid): `$HOME` is all there is.
  }
  return unique([homeOf(env), ...(account === undefined ? [] : [account])]);
}

function refuseHomeRoots(roots: readonly string[], homes: readonly string[]): void {
  for (const root of roots) {
    const home = homes.find((dir) => dir === root || isInside(dir, root));
    if (home === undefined) continue;
    throw new SandboxError(
      "INVALID_SANDBOX_POLICY",
      `invalid sandbox policy: the writable root ${root} ${root === home ? "is" : "holds"} the home directory ${home}: ` +
        "a sandboxed command could create files that later run outside the sandbox (~/.bash_profile, " +
        "~/.gitconfig, ~/.config/autostart, ~/.ssh/authorized_keys). Start Conch in a project directory, or " +
        "set home_workspace = true in the user config to accept this.",
    );
  }
}

/** Where the private `/tmp` appears: `/tmp`, and `$TMPDIR` when it is another directory outside the roots. */
function tmpTargets(env: Record<string, string | undefined>, roots: readonly string[]): string[] {
  const targets = ["/tmp"];
  const tmpdir = env.TMPDIR;
  const real = tmpdir !== undefined && isAbsolute(tmpdir) ? canonicalDirectory(tmpdir) : undefined;
  if (
    real !== undefined &&
    real !== canonical("/tmp") &&
    !roots.some((root) => root === real || isInside(real, root) || isInside(root, real))
  ) {
    targets.push(real);
  }
  return targets;
}

/**
 * Resolves a policy for a session. Writable roots (the session cwd and `writableRoots`, relative ones
 * against the cwd) are resolved once, here, and held by device and inode. Missing roots and
 * non-directories are skipped; a root reached through a symlink inside another root is refused.
 */
export function createSandboxWorkspace(
  policy: SandboxPolicy,
  options: SandboxWorkspaceOptions,
): SandboxWorkspace {
  const checked = validatePolicy(policy);
  const { cwd, env, tmpDir, denyRead, allowRead, protect, allowHomeRoot } = validateResolveOptions(options);
  const realCwd = canonicalDirectory(cwd);
  if (realCwd === undefined) {
    throw new SandboxError("CWD_NOT_FOUND", `cwd is not an existing directory: ${cwd}`);
  }
  const mode = checked.mode;
  if (mode === "danger-full-access" || mode === "external-sandbox") {
    const rules: SandboxRules = {
      mode,
      readableRoots: ["/"],
      writableRoots: [{ root: "/", readOnlySubpaths: [] }],
      tmp: { kind: "host" },
      hidden: [],
      network: true,
    };
    return { mode, cwd: realCwd, network: true, rules: () => structuredClone(rules), denyRead: () => {} };
  }

  const candidates =
    mode === "workspace-write"
      ? [realCwd, ...(checked.writableRoots ?? []).map((root) => resolve(realCwd, root))]
      : [];
  const canonicalRoots = candidates.map(canonicalDirectory);
  const present = unique(canonicalRoots.filter((root): root is string => root !== undefined));
  candidates.forEach((path, index) => {
    const real = canonicalRoots[index];
    if (index === 0 || real === undefined) return;
    refuseWritableSymlinks(
      path,
      present.filter((root) => root !== real),
      `writableRoots[${index - 1}]`,
    );
  });
  const homes = homesOf(env);
  if (!allowHomeRoot) refuseHomeRoots(present, homes);
  const roots = present.map(hold);
  const targets = tmpTargets(env, present);
  let tmp: HeldDir | null = null;
  if (mode === "workspace-write" && tmpDir !== undefined) {
    mkdirSync(tmpDir, { recursive: true, mode: 0o700 });
    refuseWritableSymlinks(tmpDir, present, "tmpDir");
    tmp = hold(canonicalDirectory(tmpDir) as string);
  }
  let deny = unique([...DEFAULT_DENY_READ, ...environmentDenyRead(env), ...denyRead]);
  let hiddenPaths = hiddenPathFinder(deny, allowRead, homes);

  const network = mode === "workspace-write" && checked.networkAccess === true;
  return {
    mode,
    cwd: realCwd,
    network,
    rules(): SandboxRules {
      for (const root of roots) checkHeld(root, "writable root");
      if (tmp !== null) checkHeld(tmp, "private /tmp");
      const rootPaths = roots.map((root) => root.path);
      const tmpRule: TmpRule =
        tmp === null
          ? { kind: "empty", targets: [...targets] }
          : { kind: "private", source: tmp.path, targets };
      return {
        mode,
        readableRoots: ["/"],
        ...workspaceRoots(rootPaths, homes, protect, env),
        tmp: tmpRule,
        hidden: hiddenPaths(rootPaths),
        network,
      };
    },
    denyRead(patterns) {
      const added = patternList({ denyRead: patterns }, "denyRead").filter(
        (pattern) => !deny.includes(pattern),
      );
      if (added.length === 0) return;
      deny = [...deny, ...added];
      hiddenPaths = hiddenPathFinder(deny, allowRead, homes);
    },
  };
}

/**
 * The writable roots with what stays read-only inside them, found now, and what the sandbox cannot keep
 * read-only and is checked after the command (`gitWatch`). A root nested in another is merged into the
 * outer one (its protected paths move with it), so the roots a backend binds are disjoint and every
 * protected path belongs to exactly one of them. A root at or below a protected path is dropped:
 * protection wins; so is one that git's config makes read-only whole (see `gitProtections`). A
 * repository's `.git` is writable but for its control paths (`gitDirProtections`); a linked worktree's
 * git dirs outside the roots are writable the same way.
 */
function workspaceRoots(
  given: readonly string[],
  homes: readonly string[],
  protect: readonly string[],
  env: Record<string, string | undefined>,
): { writableRoots: WritableRoot[]; gitWatch?: GitWatch } {
  const extras = protect.map(canonical).filter((path): path is string => path !== undefined);
  const gitDirs = gitDirProtections(given, env);
  const roots = [...given, ...gitDirs.extraRoots];
  const writableHomes = homes.filter((home) => roots.some((root) => root === home || isInside(home, root)));
  const git = gitProtections(roots, env, new Set(gitDirs.watch.absent));
  const inRoots = (path: string): boolean => roots.some((root) => path === root || isInside(path, root));
  // A control path is kept as any path git names is: with the links on the way (see `pathChain`).
  const controlled = gitDirs.present.flatMap((path) =>
    pathChain(path)
      .map((step) => step.path)
      .filter(inRoots),
  );
  const allProtected = unique([
    ...roots.flatMap((root) => protectedPathsOf(root, OTHER_PROTECTED_NAMES)),
    ...writableHomes.flatMap((home) => protectedPathsOf(home, HOME_PROTECTED_NAMES)),
    ...controlled,
    ...gitDirs.whole,
    ...git.paths,
    ...extras,
  ]).filter((path) => roots.some((root) => isInside(path, root)));
  const covered = (path: string): boolean =>
    git.roots.includes(path) || allProtected.some((p) => p === path || isInside(path, p));
  const outer = roots.filter((root) => !covered(root) && !roots.some((other) => isInside(root, other)));
  // A protected path inside another one is already read-only through it.
  const readOnly = allProtected.filter((path) => !allProtected.some((other) => isInside(path, other)));
  return {
    writableRoots: outer.map((root) => ({
      root,
      readOnlySubpaths: readOnly.filter((path) => isInside(path, root)).sort(),
    })),
    // Nothing is writable under read-only: nothing can appear.
    ...(given.length === 0 ? {} : { gitWatch: gitDirs.watch }),
  };
}

// The protected names but `.git`, whose git dir is protected in its control paths (`gitDirProtections`).
const OTHER_PROTECTED_NAMES: readonly string[] = PROTECTED_NAMES.filter((name) => name !== ".git");

/** The rules for one command under `policy`, for callers that run one command (see `createSandboxWorkspace`). */
export function resolveSandboxPolicy(policy: SandboxPolicy, options: SandboxWorkspaceOptions): SandboxRules {
  return createSandboxWorkspace(policy, options).rules();
}
