// Git's command line as git itself reads it (git.c, `handle_options` and `cmd_main`), for the danger
// search and for applying restrictive rules. No git command is ever known safe: even `git status` runs
// programs that a repository's config or attributes name (core.fsmonitor, diff.external, textconv and
// filter drivers, pagers, gpg.program), and the agent can write such a repository.

// Global options that take the next word as their value (`--shallow-file` and `-C` only that way).
// `--super-prefix` was removed in git 2.41 and is kept for older gits.
const WITH_VALUE: ReadonlySet<string> = new Set([
  "--git-dir",
  "--namespace",
  "--work-tree",
  "-c",
  "--config-env",
  "--shallow-file",
  "-C",
  "--attr-source",
  "--super-prefix",
]);

// Global options whose value is attached with `=`.
const WITH_INLINE_VALUE: readonly string[] = [
  "--git-dir=",
  "--namespace=",
  "--work-tree=",
  "--config-env=",
  "--attr-source=",
  "--list-cmds=",
  "--super-prefix=",
];

const FLAGS: ReadonlySet<string> = new Set([
  "-p",
  "--paginate",
  "-P",
  "--no-pager",
  "--no-lazy-fetch",
  "--no-replace-objects",
  "--bare",
  "--literal-pathspecs",
  "--no-literal-pathspecs",
  "--glob-pathspecs",
  "--noglob-pathspecs",
  "--icase-pathspecs",
  "--no-optional-locks",
  "--no-advice",
  "--html-path",
  "--man-path",
  "--info-path",
]);

// Words that end the options and name a command: `git --version` is `git version`.
const COMMAND_FLAGS: ReadonlyMap<string, string> = new Map([
  ["--help", "help"],
  ["-h", "help"],
  ["--version", "version"],
  ["-v", "version"],
]);

/** How many words a global option spans, or null for an option this git does not know. */
function optionWidth(arg: string): 1 | 2 | null {
  if (FLAGS.has(arg)) return 1;
  // git matches `--exec-path` as a prefix: `--exec-path=DIR` sets it, anything else prints it and exits.
  if (arg.startsWith("--exec-path")) return 1;
  if (WITH_VALUE.has(arg)) return 2;
  if (WITH_INLINE_VALUE.some((prefix) => arg.startsWith(prefix))) return 1;
  return null;
}

export interface GitSubcommand {
  /** Index of the subcommand in argv. */
  readonly index: number;
  /** The command it names (`help` for `--help`). */
  readonly name: string;
}

/**
 * Every place git's subcommand may be, in argv order (argv[0] is git). Git itself stops at an option it
 * does not know, but another version of git may know it, with or without a value: both readings are
 * kept, so that no spelling of the global options hides a subcommand (`git --new-opt x clean -f`).
 * Later words never count (a branch called `status`).
 */
export function gitSubcommands(argv: readonly string[]): GitSubcommand[] {
  const found: GitSubcommand[] = [];
  const reachable = new Set<number>([1]);
  for (let index = 1; index < argv.length; index += 1) {
    if (!reachable.has(index)) continue;
    const arg = argv[index] as string;
    const command = COMMAND_FLAGS.get(arg);
    if (!arg.startsWith("-") || command !== undefined) {
      found.push({ index, name: command ?? arg });
      continue;
    }
    const width = optionWidth(arg);
    if (width === null) {
      reachable.add(index + 1);
      reachable.add(index + 2);
    } else {
      reachable.add(index + width);
    }
  }
  return found;
}

export interface GitSetting {
  /** The setting as written: `alias.st=!touch x`, or `core.pager=VAR` for `--config-env`. */
  readonly setting: string;
  /** The key, lower-cased as git compares it: `alias.st`, `core.pager`. */
  readonly key: string;
  /** The value; null when it comes from the environment (`--config-env`) or is missing. */
  readonly value: string | null;
}

/**
 * The settings given among the words before `end` (`-c KEY=VALUE`, `--config-env KEY=VAR`,
 * `--config-env=KEY=VAR`). Every `-c` counts, even one that may be another option's value.
 */
export function gitCommandLineSettings(argv: readonly string[], end: number): GitSetting[] {
  const settings: GitSetting[] = [];
  for (let index = 1; index < end; index += 1) {
    const arg = argv[index] as string;
    let setting: string | undefined;
    let fromEnvironment = true;
    if (arg === "-c") {
      setting = argv[index + 1];
      fromEnvironment = false;
    } else if (arg === "--config-env") {
      setting = argv[index + 1];
    } else if (arg.startsWith("--config-env=")) {
      setting = arg.slice("--config-env=".length);
    }
    if (setting === undefined) continue;
    const equals = setting.indexOf("=");
    settings.push({
      setting,
      key: (equals === -1 ? setting : setting.slice(0, equals)).toLowerCase(),
      value: fromEnvironment || equals === -1 ? null : setting.slice(equals + 1),
    });
  }
  return settings;
}

/** An alias (`alias.NAME`, or `alias.NAME.command`): the subcommand it defines is not what is written. */
export function isGitAliasSetting(setting: GitSetting): boolean {
  return setting.key.startsWith("alias.");
}

// Settings that only change how git reads, writes and shows things: none names a program to run or a
// file of more settings. Any other key may (core.pager, diff.external, filter.*, credential.helper,
// gpg.program, include.path, url.*.insteadOf with ext::, …).
const HARMLESS_SECTIONS: ReadonlySet<string> = new Set([
  "advice",
  "author",
  "blame",
  "branch",
  "checkout",
  "clone",
  "color",
  "column",
  "commit",
  "committer",
  "fetch",
  "grep",
  "i18n",
  "index",
  "init",
  "log",
  "pack",
  "pull",
  "push",
  "rerere",
  "safe",
  "status",
  "tag",
  "user",
]);
const HARMLESS_CORE: ReadonlySet<string> = new Set([
  "core.abbrev",
  "core.autocrlf",
  "core.eol",
  "core.filemode",
  "core.ignorecase",
  "core.longpaths",
  "core.precomposeunicode",
  "core.quotepath",
  "core.safecrlf",
  "core.symlinks",
]);

/** True for a setting that may make git run a program the command line names (other than an alias). */
export function isGitProgramSetting(setting: GitSetting): boolean {
  if (isGitAliasSetting(setting)) return false;
  const section = setting.key.slice(0, Math.max(setting.key.indexOf("."), 0));
  return !HARMLESS_SECTIONS.has(section) && !HARMLESS_CORE.has(setting.key);
}

// Git's built-in commands (git.c `commands[]`): an alias never replaces one of them, so the command
// line says what runs. Any other name may be an alias from a config file the agent wrote, a command
// `help.autocorrect` guesses, or a `git-NAME` program found on PATH.
const BUILTINS: ReadonlySet<string> = new Set([
  "add",
  "am",
  "annotate",
  "apply",
  "archive",
  "backfill",
  "bisect",
  "blame",
  "branch",
  "bugreport",
  "bundle",
  "cat-file",
  "check-attr",
  "check-ignore",
  "check-mailmap",
  "check-ref-format",
  "checkout",
  "checkout--worker",
  "checkout-index",
  "cherry",
  "cherry-pick",
  "clean",
  "clone",
  "column",
  "commit",
  "commit-graph",
  "commit-tree",
  "config",
  "count-objects",
  "credential",
  "credential-cache",
  "credential-cache--daemon",
  "credential-store",
  "describe",
  "diagnose",
  "diff",
  "diff-files",
  "diff-index",
  "diff-pairs",
  "diff-tree",
  "difftool",
  "fast-export",
  "fast-import",
  "fetch",
  "fetch-pack",
  "fmt-merge-msg",
  "for-each-ref",
  "for-each-repo",
  "format-patch",
  "format-rev",
  "fsck",
  "fsck-objects",
  "fsmonitor--daemon",
  "gc",
  "get-tar-commit-id",
  "grep",
  "hash-object",
  "help",
  "history",
  "hook",
  "index-pack",
  "init",
  "init-db",
  "interpret-trailers",
  "last-modified",
  "log",
  "ls-files",
  "ls-remote",
  "ls-tree",
  "mailinfo",
  "mailsplit",
  "maintenance",
  "merge",
  "merge-base",
  "merge-file",
  "merge-index",
  "merge-ours",
  "merge-recursive",
  "merge-recursive-ours",
  "merge-recursive-theirs",
  "merge-subtree",
  "merge-tree",
  "mktag",
  "mktree",
  "multi-pack-index",
  "mv",
  "name-rev",
  "notes",
  "pack-objects",
  "pack-redundant",
  "pack-refs",
  "patch-id",
  "pickaxe",
  "prune",
  "prune-packed",
  "pull",
  "push",
  "range-diff",
  "read-tree",
  "rebase",
  "receive-pack",
  "reflog",
  "refs",
  "remote",
  "remote-ext",
  "remote-fd",
  "repack",
  "replace",
  "replay",
  "repo",
  "rerere",
  "reset",
  "restore",
  "rev-list",
  "rev-parse",
  "revert",
  "rm",
  "send-pack",
  "shortlog",
  "show",
  "show-branch",
  "show-index",
  "show-ref",
  "sparse-checkout",
  "stage",
  "stash",
  "status",
  "stripspace",
  "submodule--helper",
  "switch",
  "symbolic-ref",
  "tag",
  "unpack-file",
  "unpack-objects",
  "update-index",
  "update-ref",
  "update-server-info",
  "upload-archive",
  "upload-archive--writer",
  "upload-pack",
  "url-parse",
  "var",
  "verify-commit",
  "verify-pack",
  "verify-tag",
  "version",
  "whatchanged",
  "worktree",
  "write-tree",
]);

// Programs every git installs in its exec path (Makefile SCRIPT_SH, SCRIPT_LIB, PROGRAMS): git runs them
// before it looks for an alias, unless `--exec-path=` points it at another directory.
const CORE_PROGRAMS: ReadonlySet<string> = new Set([
  "difftool--helper",
  "filter-branch",
  "merge-octopus",
  "merge-one-file",
  "merge-resolve",
  "mergetool",
  "quiltimport",
  "request-pull",
  "submodule",
  "web--browse",
  "mergetool--lib",
  "sh-i18n",
  "sh-setup",
  "daemon",
  "http-backend",
  "imap-send",
  "sh-i18n--envsubst",
  "shell",
  "http-fetch",
  "http-push",
]);

/**
 * True when git runs its own code for this subcommand, whatever config the repository holds: a
 * built-in, or a program of git's exec path while the command line does not move that path.
 */
export function isGitOwnCommand(argv: readonly string[], subcommand: GitSubcommand): boolean {
  if (BUILTINS.has(subcommand.name)) return true;
  const movesExecPath = argv.slice(1, subcommand.index).some((arg) => arg.startsWith("--exec-path="));
  return !movesExecPath && CORE_PROGRAMS.has(subcommand.name);
}
