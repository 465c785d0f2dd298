import { homedir } from "node:os";
import { isAbsolute, resolve } from "node:path";
import { lookThrough, runnerTable } from "../safety/runners.js";
import { wrapperTable } from "../safety/safety-options.js";
import type { Analysis } from "../types.js";

const RUNNERS = runnerTable(wrapperTable(undefined));
/** Commands that take their destination directory as an option. */
const TARGET_DIRECTORY_COMMANDS: ReadonlySet<string> = new Set(["cp", "mv", "ln"]);

/** Commands whose non-flag arguments are paths they read, write or move into. */
const PATH_COMMANDS: ReadonlySet<string> = new Set([
  "cd",
  "rm",
  "cp",
  "mv",
  "mkdir",
  "touch",
  "cat",
  "tee",
  "ln",
]);
/** Commands whose first non-flag argument is a mode or owner, and the rest paths. */
const MODE_COMMANDS: ReadonlySet<string> = new Set(["chmod", "chown"]);
/** Device files that every redirection may use without touching anything. */
const HARMLESS_TARGETS: RegExp = /^\/dev\/(null|stdin|stdout|stderr|tty|fd\/\d+)$/;

export interface ExternalPathsOptions {
  /** The directory the script starts in. */
  cwd: string;
  /** What `~` expands to; default the user's home directory. */
  home?: string;
}

function expandHome(path: string, home: string): string | undefined {
  if (path === "~") return home;
  if (path.startsWith("~/")) return `${home}${path.slice(1)}`;
  // `~user` names another user's home: not resolvable without a lookup, so not guessed.
  return path.startsWith("~") ? undefined : path;
}

function isInside(path: string, roots: readonly string[]): boolean {
  return roots.some((root) => path === root || path.startsWith(root.endsWith("/") ? root : `${root}/`));
}

/** The path operands of a file-touching command, looking through runners (`sudo rm /etc/x`). */
function pathArguments(command: readonly string[]): string[] {
  const argv = lookThrough(command, RUNNERS).words;
  const name = (argv[0] ?? "").slice((argv[0] ?? "").lastIndexOf("/") + 1);
  if (!PATH_COMMANDS.has(name) && !MODE_COMMANDS.has(name)) return [];
  const args: string[] = [];
  let flags = true;
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (flags && arg === "--") {
      flags = false;
      continue;
    }
    if (flags && TARGET_DIRECTORY_COMMANDS.has(name)) {
      if (arg === "-t" || arg === "--target-directory") {
        const target = argv[++i];
        if (target !== undefined) args.push(target);
        continue;
      }
      if (arg.startsWith("--target-directory=")) {
        args.push(arg.slice("--target-directory=".length));
        continue;
      }
      if (/^-[^-]*t./.test(arg)) {
        args.push(arg.slice(arg.indexOf("t") + 1));
        continue;
      }
    }
    if (flags && arg.startsWith("-") && arg !== "-") continue;
    // `cd -` goes back to $OLDPWD, and `cat -` reads standard input: neither names a path.
    if (arg === "-") continue;
    args.push(arg);
  }
  return MODE_COMMANDS.has(name) ? args.slice(1) : args;
}

/**
 * The absolute paths that file-touching commands (cd, rm, cp, mv, mkdir, touch, chmod, chown, cat, tee, ln)
 * and write redirections reach outside every workspace root. Relative paths resolve against the cwd,
 * following literal `cd`s in the script; `~` expands to the home directory. Paths that cannot be known
 * statically (expansions, substitutions) are not guessed: such scripts are opaque in the analysis anyway.
 */
export function externalPaths(
  analysis: Analysis,
  workspaceRoots: readonly string[],
  options: ExternalPathsOptions,
): string[] {
  const home = options.home ?? homedir();
  const roots = workspaceRoots.map((root) => resolve(root));
  const found = new Set<string>();
  const visit = (script: Analysis, startCwd: string): void => {
    let cwd = startCwd;
    const touch = (raw: string): string | undefined => {
      const expanded = expandHome(raw, home);
      if (expanded === undefined) return undefined;
      const path = isAbsolute(expanded) ? resolve(expanded) : resolve(cwd, expanded);
      if (!HARMLESS_TARGETS.test(path) && !isInside(path, roots)) found.add(path);
      return path;
    };
    for (const command of script.commands) {
      for (const arg of pathArguments(command.argv)) touch(arg);
      for (const redirect of command.redirects) {
        if ((redirect.kind === "write" || redirect.kind === "append") && redirect.target !== null)
          touch(redirect.target);
      }
      if (command.argv[0] === "cd") {
        const target = pathArguments(command.argv)[0];
        // `cd -` (filtered out above) returns to a directory not known here: the cwd stays as it was.
        const next = command.argv.includes("-")
          ? undefined
          : target === undefined
            ? home
            : expandHome(target, home);
        if (next !== undefined) cwd = resolve(cwd, next);
      }
      if (command.nested !== null) visit(command.nested, cwd);
    }
  };
  visit(analysis, resolve(options.cwd));
  return [...found];
}
