// Git rules, ported from Codex (codex-rs/shell-command/src/command_safety): the subcommand is the first
// word after git's global options, and some global options make any subcommand run code or read another
// repository.

// Global options that take the next word as their value, so that word is not the subcommand.
const GLOBAL_OPTIONS_WITH_VALUE: ReadonlySet<string> = new Set([
  "-C",
  "-c",
  "--config-env",
  "--exec-path",
  "--git-dir",
  "--namespace",
  "--super-prefix",
  "--work-tree",
]);

const GLOBAL_OPTIONS_WITH_INLINE_VALUE: readonly string[] = [
  "--config-env=",
  "--exec-path=",
  "--git-dir=",
  "--namespace=",
  "--super-prefix=",
  "--work-tree=",
];

function isGlobalOptionWithInlineValue(arg: string): boolean {
  return (
    GLOBAL_OPTIONS_WITH_INLINE_VALUE.some((prefix) => arg.startsWith(prefix)) ||
    ((arg.startsWith("-C") || arg.startsWith("-c")) && arg.length > 2)
  );
}

export interface GitSubcommand {
  /** Index of the subcommand in argv. */
  readonly index: number;
  readonly name: string;
}

/**
 * Git's subcommand: the first word after argv[0] that is not a global option or its value. Later words
 * (a branch called `status`) never count. Null when there is none. Callers check argv[0] themselves.
 */
export function findGitSubcommand(argv: readonly string[]): GitSubcommand | null {
  for (let index = 1; index < argv.length; index += 1) {
    const arg = argv[index] as string;
    if (isGlobalOptionWithInlineValue(arg)) continue;
    if (GLOBAL_OPTIONS_WITH_VALUE.has(arg)) {
      index += 1;
      continue;
    }
    if (arg.startsWith("-")) continue;
    return { index, name: arg };
  }
  return null;
}

// Global options that point git at another repository, config, helper directory or pager, any of which
// can run a program the repository chose.
const UNSAFE_GLOBAL_EXACT: ReadonlySet<string> = new Set([
  "-C",
  "-c",
  "-p",
  "--config-env",
  "--exec-path",
  "--git-dir",
  "--namespace",
  "--paginate",
  "--super-prefix",
  "--work-tree",
]);

function isUnsafeGlobalOption(arg: string): boolean {
  return (
    UNSAFE_GLOBAL_EXACT.has(arg) ||
    GLOBAL_OPTIONS_WITH_INLINE_VALUE.some((prefix) => arg.startsWith(prefix)) ||
    ((arg.startsWith("-C") || arg.startsWith("-c")) && arg.length > 2)
  );
}

// Subcommand options that write a file (`--output`) or run an external program (`--ext-diff`,
// `--textconv`, `--exec`). Git accepts unique prefixes of long options, so any prefix counts (`--out`);
// ambiguous prefixes are rejected too rather than depending on the installed git's option list.
const UNSAFE_SUBCOMMAND_OPTIONS: readonly string[] = ["--output", "--ext-diff", "--textconv", "--exec"];

function isUnsafeSubcommandOption(arg: string): boolean {
  const equals = arg.indexOf("=");
  const name = equals === -1 ? arg : arg.slice(0, equals);
  return (
    name.startsWith("--") &&
    name.length > 2 &&
    UNSAFE_SUBCOMMAND_OPTIONS.some((option) => option.startsWith(name))
  );
}

// `git branch` is safe only in its listing forms: these flags, and no positional (which would create,
// rename or delete a branch).
const BRANCH_LISTING_FLAGS: ReadonlySet<string> = new Set([
  "--list",
  "-l",
  "--show-current",
  "-a",
  "--all",
  "-r",
  "--remotes",
  "-v",
  "-vv",
  "--verbose",
]);

function isBranchListing(args: readonly string[]): boolean {
  if (args.length === 0) return true;
  return args.every((arg) => BRANCH_LISTING_FLAGS.has(arg) || arg.startsWith("--format="));
}

const READ_ONLY_SUBCOMMANDS: ReadonlySet<string> = new Set(["status", "log", "diff", "show", "branch"]);

/** `git status|log|diff|show|branch` without unsafe global or subcommand options (argv[0] is git). */
export function isSafeGitCommand(argv: readonly string[]): boolean {
  const subcommand = findGitSubcommand(argv);
  if (subcommand === null || !READ_ONLY_SUBCOMMANDS.has(subcommand.name)) return false;
  if (argv.slice(1, subcommand.index).some(isUnsafeGlobalOption)) return false;
  const args = argv.slice(subcommand.index + 1);
  if (args.some(isUnsafeSubcommandOption)) return false;
  return subcommand.name !== "branch" || isBranchListing(args);
}
