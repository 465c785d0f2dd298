import { spawnSync } from "node:child_process";
import { accessSync, constants, readdirSync, statSync } from "node:fs";
import { delimiter, dirname, isAbsolute, join, resolve } from "node:path";
import {
  GIT_COMMAND_SECTIONS,
  GIT_COMMAND_VARIABLES,
  GIT_DIR_CONTROL,
  GIT_INCLUDE_IF_SECTION,
  GIT_NON_COMMAND_PATH_SECTIONS,
  GIT_PATH_KEYS,
} from "./git-exec-keys.js";
import { canonical } from "./protected-paths.js";

/**
 * A path git's config names, absolute but not resolved: its symlinks are part of what must hold.
 * `path`: git reads or runs exactly this (a hooks dir, a config file); `command`: a path-looking word
 * in a command git runs through the shell (a false match is possible, so a missing one counts less).
 */
export interface GitNamedPath {
  readonly path: string;
  readonly kind: "path" | "command";
}

export type GitConfigAnswer =
  | {
      readonly status: "paths";
      readonly paths: GitNamedPath[];
      /** The repository's common git dir (where its worktrees and submodules are listed); null outside one. */
      readonly commonDir: string | null;
      /** The top of its work tree; null outside a repository and for a bare one. */
      readonly top: string | null;
    }
  /** No git on the host: nothing can run a hook now, and the `.git` dirs stay protected whole. */
  | { readonly status: "no-git" }
  /** git ran but gave no answer (timed out, crashed, refused the config): what it names is unknown. */
  | { readonly status: "failed"; readonly reason: string };

// git reads a few files and prints them; a config past this is not a person's and fails closed.
const MAX_OUTPUT_BYTES = 4 * 1024 * 1024;
const TIMEOUT_MS = 5000;

// The variables that choose which config git reads, as the person's own git will see them. Everything
// else (GIT_DIR, GIT_WORK_TREE, GIT_CONFIG_NOSYSTEM, GIT_CEILING_DIRECTORIES) is left out: discovery
// from the root and every scope is the widest answer.
const CONFIG_VARIABLES = [
  "HOME",
  "XDG_CONFIG_HOME",
  "GIT_CONFIG_GLOBAL",
  "GIT_CONFIG_SYSTEM",
  "GIT_CONFIG_PARAMETERS",
];

// Where git usually is, for a PATH that names none outside the writable roots.
const FALLBACK_GIT = ["/usr/bin/git", "/usr/local/bin/git", "/bin/git"];

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    // Missing, or in a directory this user cannot search (root's ~/.cargo/bin on PATH): not this one.
    return false;
  }
}

/**
 * The host's git, found on `PATH` in directories no sandboxed command could have written (absolute and
 * outside every writable root), else in the usual places. It runs on the host: a `git` planted in the
 * workspace (`node_modules/.bin/git`) must never be the one.
 */
export function hostGit(pathVariable: string | undefined, unsafe: (path: string) => boolean): string | null {
  const dirs = (pathVariable ?? "").split(delimiter).filter((dir) => isAbsolute(dir) && !unsafe(dir));
  for (const candidate of [...dirs.map((dir) => join(dir, "git")), ...FALLBACK_GIT]) {
    if (!isExecutableFile(candidate)) continue;
    // A link on PATH to a git in the workspace is that git.
    const real = canonical(candidate);
    if (real !== undefined && !unsafe(candidate) && !unsafe(real)) return real;
  }
  return null;
}

// What also chooses the repository a command's git opens, as its environment says (`GIT_DIR` of the
// person's shell, a `.git` elsewhere): kept only when asking about that very command.
const REPOSITORY_VARIABLES = [
  "GIT_DIR",
  "GIT_WORK_TREE",
  "GIT_COMMON_DIR",
  "GIT_CEILING_DIRECTORIES",
  "GIT_DISCOVERY_ACROSS_FILESYSTEM",
  "GIT_CONFIG_NOSYSTEM",
  "GIT_CONFIG",
];

export function gitEnv(
  env: Record<string, string | undefined>,
  options: { readonly repository?: boolean } = {},
): Record<string, string> {
  const out: Record<string, string> = {
    PATH: "/usr/bin:/bin",
    LC_ALL: "C",
    GIT_OPTIONAL_LOCKS: "0",
    GIT_TERMINAL_PROMPT: "0",
  };
  for (const name of options.repository === true
    ? [...CONFIG_VARIABLES, ...REPOSITORY_VARIABLES]
    : CONFIG_VARIABLES) {
    const value = env[name];
    if (value !== undefined) out[name] = value;
  }
  // `GIT_CONFIG_COUNT` with its pairs: config the person's environment adds to every git command.
  const count = Number(env.GIT_CONFIG_COUNT ?? "0");
  if (Number.isInteger(count) && count > 0 && count < 1000) {
    out.GIT_CONFIG_COUNT = String(count);
    for (let index = 0; index < count; index++) {
      out[`GIT_CONFIG_KEY_${index}`] = env[`GIT_CONFIG_KEY_${index}`] ?? "";
      out[`GIT_CONFIG_VALUE_${index}`] = env[`GIT_CONFIG_VALUE_${index}`] ?? "";
    }
  }
  return out;
}

export type GitRun = { ok: true; stdout: string } | { ok: false; missing: boolean; reason: string };

/**
 * One git command on the host, bounded in time and output, its stdin closed. `safe.directory=*`: a
 * repository owned by another user is read too (git would refuse it, but a person who adds it to
 * `safe.directory` later runs its hooks); reading config runs nothing.
 */
export function runGit(
  git: string,
  args: readonly string[],
  cwd: string,
  env: Record<string, string>,
  maxBuffer: number = MAX_OUTPUT_BYTES,
): GitRun {
  const result = spawnSync(git, ["-c", "safe.directory=*", ...args], {
    cwd,
    env,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    timeout: TIMEOUT_MS,
    killSignal: "SIGKILL",
    maxBuffer,
  });
  if (result.error !== undefined) {
    const code = (result.error as NodeJS.ErrnoException).code;
    return { ok: false, missing: code === "ENOENT", reason: `git ${args[0]}: ${result.error.message}` };
  }
  if (result.status !== 0) {
    const message = result.stderr.trim().split("\n")[0] ?? "";
    return { ok: false, missing: false, reason: `git ${args[0]} exited ${result.status}: ${message}` };
  }
  return { ok: true, stdout: result.stdout };
}

export interface Repository {
  readonly gitDir: string;
  readonly commonDir: string;
  /** The work tree's top, or null for a bare repository. */
  readonly top: string | null;
}

/**
 * The repository git finds from `dir`, as git finds it; null outside any. With `gitDir`, that repository
 * (a submodule's git dir under `modules/`), its work tree as its config says.
 */
export function findRepository(
  git: string,
  dir: string,
  env: Record<string, string>,
  gitDir?: string,
): { ok: true; repository: Repository | null } | { ok: false; reason: string; missing: boolean } {
  const run = runGit(
    git,
    [
      "rev-parse",
      // Options of git 2.13 (`--path-format` is 2.31's): the common dir is relative to `dir`.
      "--absolute-git-dir",
      "--git-common-dir",
      "--is-bare-repository",
      gitDir === undefined ? "--show-cdup" : "--show-toplevel",
    ],
    dir,
    gitDir === undefined ? env : { ...env, GIT_DIR: gitDir },
  );
  if (!run.ok) {
    if (/not a git repository/.test(run.reason)) return { ok: true, repository: null };
    return run;
  }
  const [found, common, bare, top = ""] = run.stdout.split("\n");
  if (found === undefined || common === undefined || common === "" || !isAbsolute(found)) {
    return {
      ok: false,
      missing: false,
      reason: `git rev-parse printed no repository: ${JSON.stringify(run.stdout)}`,
    };
  }
  return {
    ok: true,
    repository: {
      gitDir: found,
      commonDir: resolve(dir, common),
      top: bare === "true" ? null : resolve(dir, top),
    },
  };
}

/** One entry of `git config --list --show-origin -z`: `origin NUL key[LF value] NUL`. */
export interface ConfigEntry {
  readonly origin: string;
  readonly key: string;
  readonly value: string | null;
}

export function parseListing(text: string): ConfigEntry[] | null {
  const fields = text.split("\0");
  if (fields.at(-1) === "") fields.pop();
  if (fields.length % 2 !== 0) return null;
  const entries: ConfigEntry[] = [];
  for (let index = 0; index < fields.length; index += 2) {
    const origin = fields[index] as string;
    const pair = fields[index + 1] as string;
    const newline = pair.indexOf("\n");
    entries.push({
      origin,
      key: (newline === -1 ? pair : pair.slice(0, newline)).toLowerCase(),
      value: newline === -1 ? null : pair.slice(newline + 1),
    });
  }
  return entries;
}

// git's own spelling of true and false: `core.fsmonitor = true` is the built-in daemon, not a program.
const BOOLEANS = new Set(["", "true", "false", "yes", "no", "on", "off", "1", "0"]);

/** A config `pathname` as git expands it (`~/`), relative ones against `base`; null when unknowable. */
function expandPath(value: string, base: string | null, home: string | undefined): string | null {
  if (value === "") return null;
  if (value === "~" || value.startsWith("~/")) return home === undefined ? null : join(home, value.slice(1));
  if (value.startsWith("~") || value.startsWith("%(prefix)/")) return null;
  if (isAbsolute(value)) return value;
  return base === null ? null : resolve(base, value);
}

/**
 * The path-looking words of a command git runs through the shell (`!./scripts/x.sh`, `sh tools/fmt`,
 * `store --file=.creds`): a word with a `/` in it, split at shell syntax and `=`. A word that uses a
 * variable is not known here and is left out.
 */
function commandWords(value: string): string[] {
  return value
    .replace(/^!/, "")
    .split(/[\s;|&()<>`'"=]+/)
    .map((word) => word.replace(/^!/, ""))
    .filter((word) => word.includes("/") && !word.includes("$") && !word.includes("://"));
}

function namedByEntry(
  entry: ConfigEntry,
  repository: Repository | null,
  home: string | undefined,
): GitNamedPath[] {
  const { key, value } = entry;
  if (value === null) return [];
  const parts = key.split(".");
  const section = parts[0] as string;
  const variable = parts.at(-1) as string;
  // Commands and hooks run at the top of the work tree (a bare repository: in the git dir).
  const top = repository === null ? null : (repository.top ?? repository.gitDir);
  const originFile = entry.origin.startsWith("file:") ? entry.origin.slice("file:".length) : null;
  const base =
    GIT_PATH_KEYS.get(key) ?? (section === GIT_INCLUDE_IF_SECTION && variable === "path" ? "origin" : null);
  if (base !== null) {
    const path = expandPath(
      value,
      base === "top" ? top : originFile === null ? null : dirname(originFile),
      home,
    );
    return path === null ? [] : [{ path, kind: "path" }];
  }
  const isCommand =
    GIT_COMMAND_SECTIONS.has(section) ||
    (GIT_COMMAND_VARIABLES.has(variable) &&
      !(variable === "path" && GIT_NON_COMMAND_PATH_SECTIONS.has(section))) ||
    // `ext::` URLs run their command (where `protocol.ext.allow` lets them).
    (variable === "url" && value.startsWith("ext::"));
  if (!isCommand || (variable === "fsmonitor" && BOOLEANS.has(value.toLowerCase()))) return [];
  return commandWords(value.replace(/^ext::/, ""))
    .map((word) => expandPath(word, top, home))
    .filter((path): path is string => path !== null)
    .map((path) => ({ path, kind: "command" }));
}

// git runs a few dozen hook names; a hooks dir longer than this is walked this far.
const MAX_HOOKS = 256;

function hookNames(dir: string): string[] {
  try {
    return readdirSync(dir).slice(0, MAX_HOOKS);
  } catch {
    return [];
  }
}

/**
 * Every path git's config names that decides what the person's next git command in `dir` runs, asked of
 * git itself (every scope it reads: system, global, XDG, `GIT_CONFIG_*`, local, worktree, includes and
 * `includeIf`s whatever their condition says now): each config file read, the control paths of the
 * repository's git dirs (`GIT_DIR_CONTROL`: config, hooks, commondir, ...), and the paths the keys of
 * `git-exec-keys.ts` name. git runs on
 * the host, as the person's `git status` would, with only the variables that choose its config: `git
 * config` and `git rev-parse` read files and run no program (no hooks, no fsmonitor).
 */
export function gitConfigPaths(
  dir: string,
  options: {
    readonly git: string | null;
    readonly env: Record<string, string | undefined>;
    /** The repository's git dir, when `dir` is not where git finds it (a submodule's, under `modules/`). */
    readonly gitDir?: string;
  },
): GitConfigAnswer {
  if (options.git === null) return { status: "no-git" };
  const env = gitEnv(options.env);
  const found = findRepository(options.git, dir, env, options.gitDir);
  if (!found.ok) return found.missing ? { status: "no-git" } : { status: "failed", reason: found.reason };
  const { repository } = found;
  const listEnv = repository === null ? env : { ...env, GIT_DIR: repository.gitDir };
  // Outside a repository (or in one git cannot open, where the person's git fails too) the scopes left
  // are read from `/`, so that a broken `.git` in `dir` does not fail the listing.
  const cwd = repository === null ? "/" : (repository.top ?? repository.gitDir);
  const listing = runGit(
    options.git,
    // No `--show-scope` (git 2.26): the origin says all that is needed.
    ["config", "--list", "--show-origin", "--includes", "-z"],
    cwd,
    listEnv,
  );
  if (!listing.ok)
    return listing.missing ? { status: "no-git" } : { status: "failed", reason: listing.reason };
  const entries = parseListing(listing.stdout);
  if (entries === null)
    return { status: "failed", reason: "git config printed a listing that does not parse" };
  const home = options.env.HOME;
  const paths: GitNamedPath[] = [];
  if (repository !== null) {
    // What in the git dirs decides what git runs or reads (`GIT_DIR_CONTROL`): the rest of them is
    // git's ordinary work, which the sandbox may do.
    for (const dir of new Set([repository.gitDir, repository.commonDir])) {
      for (const name of GIT_DIR_CONTROL) paths.push({ path: join(dir, name), kind: "path" });
    }
  }
  for (const entry of entries) {
    if (entry.origin.startsWith("file:")) {
      paths.push({ path: resolve(cwd, entry.origin.slice("file:".length)), kind: "path" });
    }
    paths.push(...namedByEntry(entry, repository, home));
  }
  // The hooks git may run: a hook that is a link to a tracked script (`pre-commit -> ../../scripts/x`)
  // runs what that script says, so each entry of each hooks dir is walked too.
  const hooksDirs = [
    ...(repository === null ? [] : [join(repository.commonDir, "hooks")]),
    ...entries
      .filter((entry) => entry.key === "core.hookspath")
      .flatMap((entry) => namedByEntry(entry, repository, home).map((named) => named.path)),
  ];
  for (const dir of hooksDirs) {
    for (const name of hookNames(dir)) paths.push({ path: join(dir, name), kind: "path" });
  }
  return { status: "paths", paths, commonDir: repository?.commonDir ?? null, top: repository?.top ?? null };
}
