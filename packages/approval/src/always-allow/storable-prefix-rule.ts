// Which "always allow" prefix rules may be stored. A stored rule lets every command that starts with it
// run unasked (and unsandboxed) forever, so it must name one specific thing: never a bare interpreter,
// shell or launcher (that would allow any script it runs), never a runner that changes privileges or
// hides the real command, never `rm`, never `git` or `npm run` alone. Only literal tokens are stored, so
// no quoting, globbing or expansion can hide in a rule.
import { approvalPrefix, isLiteralToken } from "@conch/arity-rules";
import { INTERPRETERS, SHELLS } from "@conch/protocol";

/** Rules starting with these are never stored, whatever follows: they change who runs what, or delete. */
const NEVER_STORED: ReadonlySet<string> = new Set([
  "sudo",
  "doas",
  "su",
  "pkexec",
  "runas",
  "env",
  "xargs",
  "watch",
  "npx",
  "bunx",
  "pnpx",
  "uvx",
  "eval",
  "exec",
  "source",
  ".",
  "rm",
]);

/**
 * Interpreters, shells and programs with subcommands: a rule must name the script, module or
 * subcommand right after the program (`python3 manage.py`, `python3 -m pytest`, `git status`), so
 * `python3`, `python3 -c …`, `bash -lc` or `node -e …`, which run any code, and `git -C dir` or
 * `npm --prefix dir`, which would allow every subcommand, are refused.
 */
const NEEDS_OPERAND: ReadonlySet<string> = new Set([
  ...Object.keys(INTERPRETERS),
  ...Object.keys(SHELLS),
  "powershell.exe",
  "cmd.exe",
  "git",
  "npm",
  "pnpm",
  "yarn",
]);

const PYTHONS: ReadonlySet<string> = new Set([
  "python",
  "python2",
  "python3",
  "pythonw",
  "py",
  "pyw",
  "pypy",
  "pypy3",
]);

/** Subcommands that run any package or file named after them: `npm run` alone allows every script. */
const NEEDS_SCRIPT_NAME: ReadonlySet<string> = new Set([
  "npm run",
  "npm run-script",
  "pnpm run",
  "pnpm exec",
  "yarn run",
  "yarn exec",
  "bun run",
  "bun exec",
  "deno run",
  "deno eval",
  "deno task",
  "pipx run",
  "uv run",
  "poetry run",
  "go run",
]);

/** Subcommands that download and run a package, as `npx` does: never stored. */
const NEVER_STORED_SUBCOMMANDS: ReadonlySet<string> = new Set([
  "npm exec",
  "npm x",
  "pnpm dlx",
  "yarn dlx",
  "bun x",
]);

/** Programs that only run the command after them; the rule is judged by that command. */
const WRAPPERS: ReadonlySet<string> = new Set([
  "timeout",
  "time",
  "nice",
  "ionice",
  "nohup",
  "stdbuf",
  "setsid",
  "command",
  "builtin",
]);

function programName(token: string): string {
  return token.slice(token.lastIndexOf("/") + 1);
}

const isOption = (token: string): boolean => token.startsWith("-");
// Options, `NAME=value` assignments and numbers (a timeout's duration, a niceness) name no command.
const namesNothing = (token: string): boolean =>
  isOption(token) || token.includes("=") || /^\d+[smhd]?$/.test(token);

/**
 * Why this prefix rule must never be stored, in words to show the user (`rules starting with sudo are
 * never stored`), or null when it may be. Expects literal tokens.
 */
export function bannedPrefixRuleReason(prefix: readonly string[]): string | null {
  const [first, ...rest] = prefix;
  if (first === undefined) return "an empty prefix";
  const name = programName(first);
  if (NEVER_STORED.has(name)) return `rules starting with ${name} are never stored`;
  if (WRAPPERS.has(name)) {
    const command = rest.findIndex((token) => !namesNothing(token));
    return command === -1 ? `${name} without a command` : bannedPrefixRuleReason(rest.slice(command));
  }
  if (NEEDS_OPERAND.has(name)) {
    const operand = PYTHONS.has(name) && rest[0] === "-m" ? rest[1] : rest[0];
    // cmd.exe's switches start with a slash (`cmd /c`).
    const isSwitch = name === "cmd" || name === "cmd.exe" ? operand?.startsWith("/") : false;
    if (operand === undefined || isOption(operand) || isSwitch) {
      return `${name} must be followed by the script, module or subcommand it runs`;
    }
  }
  const operands = rest.filter((token) => !isOption(token));
  const subcommand = `${name} ${operands[0] ?? ""}`;
  if (NEVER_STORED_SUBCOMMANDS.has(subcommand)) return `rules starting with ${subcommand} are never stored`;
  if (NEEDS_SCRIPT_NAME.has(subcommand) && operands.length < 2)
    return `${subcommand} alone would allow any script`;
  return null;
}

/**
 * The prefix rule to store when the user chooses "always allow" for `argv`: its arity prefix
 * (`approvalPrefix`: `git checkout -b x` → `git checkout`, `npm run build -- --watch` → `npm run build`),
 * provided every token is a literal and the prefix is not banned; otherwise null, and nothing is stored.
 */
// Programs whose arguments decide whether they destroy something (`chmod +x f` against `chmod -R 777 /`):
// "always allow" for one of them covers that exact command only, never the program.
const EXACT_ONLY: ReadonlySet<string> = new Set([
  "chmod",
  "chown",
  "chgrp",
  "dd",
  "mkfs",
  "mke2fs",
  "find",
  "truncate",
  "shred",
]);

export function storablePrefixRule(argv: readonly string[]): string[] | null {
  const program = (argv[0] ?? "").slice((argv[0] ?? "").lastIndexOf("/") + 1);
  const exact = EXACT_ONLY.has(program) || program.startsWith("mkfs.");
  const prefix = exact ? [...argv] : approvalPrefix(argv);
  if (prefix.length === 0 || !prefix.every(isLiteralToken)) return null;
  return bannedPrefixRuleReason(prefix) === null ? prefix : null;
}
