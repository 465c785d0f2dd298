// Whether a command that an allow rule runs outside the sandbox (`sandbox = "none"`, no person asked)
// would have its gits read config that a sandboxed command could have written: an alias (`!cmd`), a
// filter, a textconv, a pager, `core.sshCommand`, a credential helper... in a repository the agent made
// (`git init sub`), in a submodule's or a worktree's config, in a global config that lies in the
// workspace (a workspace-as-home's `~/.gitconfig`), or in a file one of them includes. git itself is asked
// which files it reads (`gitConfigPaths`'s query), for the command's own directory and environment.
import { lstatSync } from "node:fs";
import { join, resolve } from "node:path";
import {
  type ConfigEntry,
  findRepository,
  gitEnv,
  hostGit,
  parseListing,
  type Repository,
  runGit,
} from "./git-config-paths.js";
import { MAX_RELATED, relatedRepositories } from "./git-related-repos.js";
import { canonical, isInside } from "./protected-paths.js";

export type GitHostExposure =
  | {
      readonly exposed: false;
      /**
       * The repository the command's directory is in, as checked: the command must run with it pinned
       * (`GIT_DIR`, `GIT_WORK_TREE`), so that a `.git` that appears meanwhile is not the one git opens.
       * Null outside a repository (then nothing in the directory's reach can be written).
       */
      readonly repository: { readonly gitDir: string; readonly top: string | null } | null;
    }
  | { readonly exposed: true; readonly reason: string };

export interface GitHostExposureOptions {
  /** Where the command runs (absolute). */
  readonly cwd: string;
  /**
   * Canonical: every directory a sandboxed command of this session could have written (the writable
   * roots, the workspace's private `/tmp`).
   */
  readonly writableRoots: readonly string[];
  /** The environment the command runs with (its `GIT_DIR`, `HOME`, `GIT_CONFIG_GLOBAL`...). */
  readonly env: Record<string, string | undefined>;
  /** The words of its command line, as written. */
  readonly words: readonly string[];
}

// git's options before the subcommand that choose another repository, other config, or other programs.
const REPOSITORY_OPTIONS = ["-C", "-c", "--config-env", "--git-dir", "--work-tree", "--exec-path", "--bare"];
// Options of git's subcommands that read or write a file the command names, outside the sandbox: the
// person allowed the subcommand, not a read of ~/.ssh (`diff --no-index`) or a write of ~/.bashrc
// (`diff --output`).
const FILE_OPTIONS = [
  "--output",
  "--output-directory",
  "--no-index",
  "--file",
  "--template",
  "--reference",
  "--reference-if-able",
  "--separate-git-dir",
  "--pathspec-from-file",
  "--contents",
  "--ignore-revs-file",
  "--upload-pack",
  "--receive-pack",
  "--exec",
  "--git-dir",
  "--work-tree",
  "--namespace",
];
const FILE_SHORT_OPTIONS = ["-F", "-o", "-u"];
// Config keys that run no program, name no file git runs or reads as config, and point git at no other
// repository: what `git init`, `git clone`, `git remote add`, `git branch -u` and `git config user.*`
// write. `section.name`, or `section.*.name` for a key with a subsection. Any other key in a file a
// sandboxed command could have written asks the person.
const SAFE_KEYS = new Set([
  "core.repositoryformatversion",
  "core.filemode",
  "core.bare",
  "core.logallrefupdates",
  "core.ignorecase",
  "core.precomposeunicode",
  "core.symlinks",
  "core.autocrlf",
  "core.eol",
  "core.safecrlf",
  "core.quotepath",
  "core.abbrev",
  "core.untrackedcache",
  "core.checkstat",
  "core.trustctime",
  "core.sparsecheckout",
  "core.sparsecheckoutcone",
  "extensions.objectformat",
  "extensions.worktreeconfig",
  "init.defaultbranch",
  "user.name",
  "user.email",
  "remote.*.url",
  "remote.*.fetch",
  "remote.*.tagopt",
  "remote.*.prune",
  "remote.*.mirror",
  "branch.*.remote",
  "branch.*.merge",
  "branch.*.rebase",
  "branch.*.description",
  "submodule.*.url",
  "submodule.*.active",
  "submodule.*.branch",
  "pull.rebase",
  "pull.ff",
  "push.default",
  "push.autosetupremote",
  "fetch.prune",
  "merge.ff",
  "color.ui",
  "gc.auto",
  // Overridden for every git the command starts (the host git guard sets hooksPath to /dev/null); husky
  // writes it into every repository that uses it.
  "core.hookspath",
  // Metadata tools write: the GitHub CLI, VS Code, git-lfs.
  "remote.*.gh-resolved",
  "branch.*.vscode-merge-base",
  "branch.*.github-pr-owner-number",
  "lfs.repositoryformatversion",
  "lfs.*.access",
  "lfs.*.locksverify",
]);

/** Whether a config key (as `git config --list` prints it, section and name lowercased) is in `SAFE_KEYS`. */
export function isSafeKey(key: string): boolean {
  const first = key.indexOf(".");
  const last = key.lastIndexOf(".");
  if (first < 0) return false;
  const section = key.slice(0, first).toLowerCase();
  const name = key.slice(last + 1).toLowerCase();
  return SAFE_KEYS.has(first === last ? `${section}.${name}` : `${section}.*.${name}`);
}

// An assignment that moves what git reads: `GIT_DIR=x`, `HOME=ws`, `XDG_CONFIG_HOME=...`.
const MOVING_ASSIGNMENT = /^(?:GIT_[A-Za-z0-9_]*|HOME|XDG_CONFIG_HOME|PREFIX)=/;
// Builtins that move the shell, and the gits after them, to another directory.
const CHANGING_DIRECTORY = ["cd", "pushd", "popd"];
// Submodules of submodules: each level costs two git runs.
const MAX_DEPTH = 4;
// `git ls-files --stage` prints a line per tracked file; a repository past this is read no further.
const MAX_INDEX_BYTES = 256 * 1024 * 1024;

const exposed = (reason: string): GitHostExposure => ({ exposed: true, reason });

/** A name of a program that is git (`git`, `/usr/bin/git`), as a word of the command line. */
const isGitWord = (word: string): boolean => word === "git" || word.endsWith("/git");

// Programs that run git in the directory they are given, with its config: git's own (`git-upload-pack`,
// `scalar`), its front ends and the hook managers that drive it.
const GIT_PROGRAMS = new Set([
  "git",
  "scalar",
  "gh",
  "hub",
  "tig",
  "lazygit",
  "gitk",
  "git-cola",
  "pre-commit",
  "lefthook",
  "husky",
]);

/** Whether a word names a program that runs git (`git`, `/usr/bin/git`, `git-lfs`, `gh`...). */
function runsGit(word: string): boolean {
  const name = word.slice(word.lastIndexOf("/") + 1);
  return GIT_PROGRAMS.has(name) || name.startsWith("git-");
}

/**
 * The first word that points the command's git elsewhere than its directory, or at other config: a
 * global option (`git -C dir`, `git -c alias.x=!cmd`, `--git-dir`) or an assignment (`GIT_DIR=x`). Read
 * on the words as written: a false match only asks the person.
 */
function movingWord(words: readonly string[]): string | null {
  let afterGit = false;
  for (const [index, word] of words.entries()) {
    if (MOVING_ASSIGNMENT.test(word)) return word;
    // `cd sub && git commit`: git then runs in another directory than the one asked about.
    if (CHANGING_DIRECTORY.includes(word)) return word;
    const name = word.startsWith("--") ? (word.split("=")[0] as string) : word;
    if (FILE_OPTIONS.includes(name)) return word;
    if (afterGit && FILE_SHORT_OPTIONS.some((option) => word.startsWith(option))) return word;
    if (!isGitWord(word)) continue;
    afterGit = true;
    for (const option of words.slice(index + 1)) {
      if (!option.startsWith("-")) break;
      const optionName = option.startsWith("--") ? (option.split("=")[0] as string) : option;
      if (REPOSITORY_OPTIONS.includes(optionName) || /^-[cC]./.test(option)) return `${word} ${option}`;
    }
  }
  return null;
}

/**
 * Whether the command's gits may run something a sandboxed command wrote: a config file git reads for
 * its directory (every scope, includes followed; the repository's submodules and worktrees too) lies in
 * a writable root and sets a key not in `SAFE_KEYS`; the directory is in no repository while a sandboxed
 * command could make one there; or its words point git elsewhere or at a file (`movingWord`). Fails
 * closed: a git that gives no answer, or a repository past the limits, is exposed. When not exposed, the
 * repository found is to be pinned for the run (`GIT_DIR`, `GIT_WORK_TREE`).
 */
export function gitHostExposure(options: GitHostExposureOptions): GitHostExposure {
  const { cwd, writableRoots, env, words } = options;
  // A command that runs no git reads no git config (a program the rule lifts that runs git itself runs
  // workspace content anyway, as any lifted program does: docs/security.md).
  if (!words.some(runsGit)) return { exposed: false, repository: null };
  const moving = movingWord(words);
  if (moving !== null) {
    return exposed(
      `\`${moving}\` points git at another directory, repository, config or file than its directory's`,
    );
  }
  const inRoots = (path: string): string | undefined =>
    writableRoots.find((root) => path === root || isInside(path, root));
  // In a writable root as named, or where its links lead (`~/.gitconfig -> ws/dotfiles/gitconfig`).
  const writable = (path: string): string | undefined => inRoots(path) ?? inRoots(canonical(path) ?? path);
  const git = hostGit(env.PATH, (path) => inRoots(path) !== undefined);
  // No git on the host: whatever runs `git` finds none (a planted one is not what a rule means).
  if (git === null) return { exposed: false, repository: null };
  // The command's own directory is found as its environment says (`GIT_DIR`, `GIT_WORK_TREE`); the gits it
  // starts in submodules are not given those.
  const commandEnv = gitEnv(env, { repository: true });
  const plainEnv = gitEnv(env);
  const seen = new Set<string>();
  let checked = 0;

  // A file a sandboxed command could have written may set any key: only keys known to run nothing and
  // to point git at nothing else pass (`SAFE_KEYS`); git has more keys that run programs than any list
  // of them (`core.alternateRefsCommand`, `gc.recentObjectsHook`...).
  const checkEntries = (entries: readonly ConfigEntry[], base: string): string | null => {
    for (const entry of entries) {
      if (!entry.origin.startsWith("file:")) continue;
      const file = resolve(base, entry.origin.slice("file:".length));
      const root = writable(file);
      if (root === undefined || isSafeKey(entry.key)) continue;
      return (
        `${file} sets \`${entry.key}\`, which is not known to run nothing, and it lies in ${root}, ` +
        "where sandboxed commands can write"
      );
    }
    return null;
  };
  /** One repository (`gitDir`: one git does not find from `dir`), then its submodules and worktrees. */
  const check = (dir: string, depth: number, gitDir?: string): GitHostExposure => {
    const runEnv = depth === 0 ? commandEnv : plainEnv;
    const found = findRepository(git, dir, runEnv, gitDir);
    if (!found.ok) return exposed(`git gave no answer for ${dir}: ${found.reason}`);
    const { repository } = found;
    if (repository !== null) {
      if (seen.has(repository.gitDir)) return { exposed: false, repository: null };
      seen.add(repository.gitDir);
      if (++checked > MAX_RELATED)
        return exposed(`more than ${MAX_RELATED} repositories to read from ${cwd}`);
    } else if (depth === 0 && inRoots(canonical(dir) ?? dir) !== undefined) {
      // No repository now, in a directory a sandboxed command can write: one can be made there while this
      // command runs, and git would open it.
      return exposed(`${dir} is in no repository, and sandboxed commands could make one there`);
    }
    const listEnv = repository === null ? runEnv : { ...runEnv, GIT_DIR: repository.gitDir };
    const listCwd = repository === null ? dir : (repository.top ?? repository.gitDir);
    const listing = runGit(git, ["config", "--list", "--show-origin", "--includes", "-z"], listCwd, listEnv);
    if (!listing.ok) return exposed(`git gave no answer for ${dir}: ${listing.reason}`);
    const entries = parseListing(listing.stdout);
    if (entries === null) return exposed(`git config printed a listing that does not parse for ${dir}`);
    const own = checkEntries(entries, listCwd);
    if (own !== null) return exposed(own);
    if (repository === null) return { exposed: false, repository: null };
    if (depth >= MAX_DEPTH) return exposed(`submodules nest deeper than ${MAX_DEPTH} under ${cwd}`);
    const related = checkRelated(repository, depth);
    if (related.exposed) return related;
    return { exposed: false, repository: { gitDir: repository.gitDir, top: repository.top } };
  };

  /** What git recurses into from a repository: its submodules (in `modules/` or with their own `.git`), worktrees. */
  const checkRelated = (repository: Repository, depth: number): GitHostExposure => {
    // One past the limit, to know when there are more than are read: those ask.
    const all = relatedRepositories(repository.commonDir, MAX_RELATED + 1);
    if (all.length > MAX_RELATED) {
      return exposed(`${repository.commonDir} has more than ${MAX_RELATED} worktrees and submodules to read`);
    }
    for (const related of all) {
      const answer =
        "gitDir" in related ? check("/", depth + 1, related.gitDir) : check(related.dir, depth + 1);
      if (answer.exposed) return answer;
    }
    if (repository.top === null) return { exposed: false, repository: null };
    // A submodule the index names whose work tree holds its own `.git` (`git init sub && git add sub`).
    const index = runGit(
      git,
      // Reading the index may ask the repository's fsmonitor, a program the agent may have named.
      ["-c", "core.fsmonitor=false", "ls-files", "--stage", "-z"],
      repository.top,
      { ...plainEnv, GIT_DIR: repository.gitDir },
      MAX_INDEX_BYTES,
    );
    if (!index.ok) return exposed(`git gave no answer for ${repository.top}: ${index.reason}`);
    for (const line of index.stdout.split("\0")) {
      if (!line.startsWith("160000 ")) continue;
      const path = line.slice(line.indexOf("\t") + 1);
      const top = join(repository.top, path);
      if (lstatSync(join(top, ".git"), { throwIfNoEntry: false }) === undefined) continue;
      const answer = check(top, depth + 1);
      if (answer.exposed) return answer;
    }
    return { exposed: false, repository: null };
  };

  return check(cwd, 0);
}
