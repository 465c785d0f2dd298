// Codex's `dangerous_command_match` (is_dangerous_command.rs), extended. A command is dangerous when,
// after looking through runners (sudo, doas, env with its assignments and `-S`, xargs, watch, timeout,
// nice, nohup, stdbuf, time, command, builtin, exec, ionice, setsid, chroot, busybox and configured
// wrappers), it is one of:
//
//   forced-rm             rm with -f in any short cluster, or --force (or an abbreviation), before `--`
//   git-reset-hard        git reset --hard
//   git-clean-force       git clean with -f in a short cluster or --force
//   git-push-force        git push --force, -f, --force-with-lease (still a force push: it overwrites the
//                         remote when the lease holds), --mirror, or a `+refspec`
//   dd-write              dd with an of= operand
//   mkfs                  mkfs, mkfs.*, mke2fs
//   recursive-chmod-root  chmod -R/--recursive with / (or /*, /., /..) as an operand
//   recursive-chown-root  chown or chgrp -R/--recursive with / as an operand
//   find-delete           find with -delete
//
// Commands that run other commands are searched too: the script of `bash|sh|zsh|dash|ksh -c` in any
// spelling (for sh-like shells also as read without `$'…'`), command and process substitutions, the
// action of `trap`, the words of `eval`, `su -c`, `watch`, and `find -exec|-execdir|-ok|-okdir`. Scripts
// are read by `analyze()`; commands whose name is not literal (`$cmd -rf x`) never match.
// Not covered: danger configured outside argv (clean.requireForce=false, a `+` push refspec in config),
// branch deletion by push (`--delete`, `:branch`), a script piped into a shell, and scripts nested past
// MAX_SCRIPT_DEPTH or the analysis budget (such a command is never known safe either).
import { posix } from "node:path";
import { unquoteDoubleQuoted } from "../analyze/words.js";
import type { Analysis, OpaquePart } from "../types.js";
import { AnalysisBudget } from "./budget.js";
import { executableName } from "./command-name.js";
import { findGitSubcommand } from "./git.js";
import { readOption, skipOptions } from "./options.js";
import { lookThrough, runnerTable, WATCH_GRAMMAR } from "./runners.js";
import { type SafetyOptions, wrapperTable } from "./safety-options.js";
import { anyShellScript, scriptReadings } from "./shell.js";

export const DANGEROUS_KINDS: readonly [
  "forced-rm",
  "git-reset-hard",
  "git-clean-force",
  "git-push-force",
  "dd-write",
  "mkfs",
  "recursive-chmod-root",
  "recursive-chown-root",
  "find-delete",
] = [
  "forced-rm",
  "git-reset-hard",
  "git-clean-force",
  "git-push-force",
  "dd-write",
  "mkfs",
  "recursive-chmod-root",
  "recursive-chown-root",
  "find-delete",
] as const;

export type DangerousKind = (typeof DANGEROUS_KINDS)[number];

export interface DangerousMatch {
  kind: DangerousKind;
  /** The dangerous command itself, after runners, shells and scripts were looked through. */
  argv: string[];
  /** Why it is dangerous, in words a person or a model can act on. */
  reason: string;
}

export const DANGEROUS_REASONS: Readonly<Record<DangerousKind, string>> = {
  "forced-rm": "rm with -f/--force deletes without asking and cannot be undone",
  "git-reset-hard": "git reset --hard discards uncommitted changes in the index and working tree",
  "git-clean-force": "git clean -f deletes untracked files, which git cannot restore",
  "git-push-force": "a force push can overwrite commits on the remote that others rely on",
  "dd-write": "dd of= overwrites a file or device in place",
  mkfs: "mkfs creates a new file system, erasing what the device held",
  "recursive-chmod-root": "chmod -R on / changes the permissions of the whole file system",
  "recursive-chown-root": "chown -R on / changes the ownership of the whole file system",
  "find-delete": "find -delete deletes every file that matches",
};

// Scripts inside scripts (shells, substitutions, trap, eval, watch, su -c) and commands run by find,
// counted from the argv given.
const MAX_SCRIPT_DEPTH = 16;

interface Context {
  readonly runners: ReturnType<typeof runnerTable>;
  readonly budget: AnalysisBudget;
  /** When set, every command reached is collected here and nothing is matched. */
  readonly reached?: string[][];
}

/**
 * The first dangerous command that argv would run, in source order, or null. Never runs anything;
 * scripts are read by `analyze()`. `options.wrappers` adds programs to look through.
 */
export async function dangerousCommandMatch(
  argv: readonly string[],
  options?: SafetyOptions,
): Promise<DangerousMatch | null> {
  const context = { runners: runnerTable(wrapperTable(options)), budget: new AnalysisBudget() };
  return matchArgv(argv, null, context, 0);
}

/**
 * Every command argv may run, as far as reading it can tell, each after looking through wrappers and
 * runners (`sudo`, `env`, `timeout`, `xargs`, ...): argv itself, the commands of shell scripts in any
 * spelling, of command and process substitutions, of `eval`, `trap`, `su -c` and `watch`, and of
 * `find -exec`. For applying restrictive rules to what really runs; never runs anything.
 */
export async function reachableCommands(
  argv: readonly string[],
  options?: SafetyOptions,
): Promise<string[][]> {
  const reached: string[][] = [];
  const context = { runners: runnerTable(wrapperTable(options)), budget: new AnalysisBudget(), reached };
  await matchArgv(argv, null, context, 0);
  return reached;
}

async function matchArgv(
  argv: readonly string[],
  nested: Analysis | null,
  context: Context,
  depth: number,
): Promise<DangerousMatch | null> {
  const words = lookThrough(argv, context.runners);
  const first = words[0];
  if (first === undefined) return null;
  const name = executableName(first);
  const args = words.slice(1);
  if (context.reached) {
    context.reached.push([...words]);
  } else {
    const kind = directKind(name, words, args);
    if (kind !== null) return { kind, argv: [...words], reason: DANGEROUS_REASONS[kind] };
  }

  if (name === "find") {
    for (const command of findExecCommands(args)) {
      const found = depth + 1 < MAX_SCRIPT_DEPTH ? await matchArgv(command, null, context, depth + 1) : null;
      if (found !== null) return found;
    }
    return null;
  }
  const invocation = anyShellScript(words);
  if (invocation !== null) {
    const readings = scriptReadings(invocation.shell, scriptSource(invocation.script));
    for (const [index, reading] of readings.entries()) {
      const analysis = index === 0 && words === argv && reading === invocation.script ? nested : null;
      const found = await matchScript(reading, analysis, context, depth);
      if (found !== null) return found;
    }
    return null;
  }
  const script = embeddedScript(name, words);
  return script === null ? null : matchScript(scriptSource(script), null, context, depth);
}

async function matchScript(
  script: string,
  nested: Analysis | null,
  context: Context,
  depth: number,
): Promise<DangerousMatch | null> {
  if (depth >= MAX_SCRIPT_DEPTH) return null;
  const analysis = nested ?? (await context.budget.analyze(script));
  if (analysis === null) return null;
  for (const command of analysis.commands) {
    const found = await matchArgv(command.argv, command.nested, context, depth + 1);
    if (found !== null) return found;
  }
  // The analyser lists the commands of loops, conditionals, groups and functions, but a substitution is
  // only an opaque part with its text: read what it runs.
  for (const part of analysis.opaque) {
    const inner = substitutionScript(part);
    if (inner === null) continue;
    const found = await matchScript(inner, null, context, depth + 1);
    if (found !== null) return found;
  }
  return null;
}

/**
 * The analyser keeps a word that is not literal as its source text: a script written
 * `sh -c "rm -rf $dir"` arrives as `"rm -rf $dir"`, quotes included. Its inside is what runs.
 */
function scriptSource(script: string): string {
  return script.length >= 2 && script.startsWith('"') && script.endsWith('"')
    ? unquoteDoubleQuoted(script.slice(1, -1))
    : script;
}

/** The script inside `$(…)`, `` `…` `` (with its backslash escapes undone), `<(…)` or `>(…)`. */
function substitutionScript(part: OpaquePart): string | null {
  const { reason, text } = part;
  if ((reason === "command-substitution" || reason === "process-substitution") && text.endsWith(")")) {
    return /^[$<>]\(/.test(text) ? text.slice(2, -1) : null;
  }
  if (reason === "backticks" && text.length >= 2 && text.startsWith("`") && text.endsWith("`")) {
    return text.slice(1, -1).replace(/\\([\\`$])/g, "$1");
  }
  return null;
}

/** The shell source a command runs: a trap action, eval's words, `su -c`, `watch`'s words (run by sh). */
function embeddedScript(name: string, words: readonly string[]): string | null {
  switch (name) {
    case "trap": {
      // Codex: the action is the first operand (after an optional `--`); `trap -p`/`-l` have none.
      const action = words[1] === "--" ? words[2] : words[1];
      return action === undefined || action.startsWith("-") ? null : action;
    }
    case "eval":
      return words.slice(1).join(" ");
    case "su":
      return suCommand(words);
    case "watch": {
      const commandStart = skipOptions(words, 1, WATCH_GRAMMAR, { strict: false }) ?? words.length;
      return words.slice(commandStart).join(" ");
    }
    default:
      return null;
  }
}

const SU_GRAMMAR = {
  flags: new Set(["-l", "--login", "-m", "-p", "--preserve-environment", "-P", "--pty", "-f"]),
  valueOptions: new Set(["-c", "--command", "-s", "--shell", "-g", "--group", "-G", "--supp-group", "-w"]),
};

function suCommand(words: readonly string[]): string | null {
  for (let index = 1; index < words.length; ) {
    const word = words[index] as string;
    if (word === "--" || !word.startsWith("-") || word === "-") {
      index += 1;
      continue;
    }
    const option = readOption(words, index, SU_GRAMMAR, false);
    if (option === null) return null;
    if (option.valueOption === "-c" || option.valueOption === "--command") return option.value;
    index += option.width;
  }
  return null;
}

/** The commands of `find … -exec CMD ;`, `-execdir`, `-ok`, `-okdir` (ending at `;` or `+`). */
function findExecCommands(args: readonly string[]): string[][] {
  const commands: string[][] = [];
  for (let index = 0; index < args.length; index += 1) {
    if (!FIND_EXEC_ACTIONS.has(args[index] as string)) continue;
    const start = index + 1;
    let end = start;
    while (end < args.length && args[end] !== ";" && args[end] !== "+") end += 1;
    commands.push(args.slice(start, end));
    index = end;
  }
  return commands;
}

const FIND_EXEC_ACTIONS: ReadonlySet<string> = new Set(["-exec", "-execdir", "-ok", "-okdir"]);

/** A long option written in full or as a getopt abbreviation (`--forc` for `--force`), value aside. */
function isLongOption(arg: string, full: string): boolean {
  const equals = arg.indexOf("=");
  const name = equals === -1 ? arg : arg.slice(0, equals);
  return name.length > 2 && name.startsWith("--") && full.startsWith(name);
}

/** A short option cluster (`-rf`) containing `letter` before any letter in `valueLetters`. */
function clusterHas(arg: string, letter: string, valueLetters = ""): boolean {
  if (!arg.startsWith("-") || arg.startsWith("--")) return false;
  for (const char of arg.slice(1)) {
    if (char === letter) return true;
    if (valueLetters.includes(char)) return false;
  }
  return false;
}

function beforeDoubleDash(args: readonly string[]): readonly string[] {
  const end = args.indexOf("--");
  return end === -1 ? args : args.slice(0, end);
}

function operands(args: readonly string[]): readonly string[] {
  const end = args.indexOf("--");
  const options = end === -1 ? args : args.slice(0, end);
  const rest = end === -1 ? [] : args.slice(end + 1);
  return [...options.filter((arg) => !arg.startsWith("-")), ...rest];
}

/** `/`, or a spelling of it or of everything in it (`//`, `/.`, `/..`, `/*`). */
function isRootTarget(path: string): boolean {
  if (!path.startsWith("/")) return false;
  const normal = posix.normalize(path);
  return normal === "/" || normal === "/*";
}

function directKind(name: string, words: readonly string[], args: readonly string[]): DangerousKind | null {
  switch (name) {
    case "rm":
      return beforeDoubleDash(args).some((arg) => isLongOption(arg, "--force") || clusterHas(arg, "f"))
        ? "forced-rm"
        : null;
    case "git":
      return gitKind(words);
    case "dd":
      return args.some((arg) => arg.startsWith("of=")) ? "dd-write" : null;
    case "chmod":
      return isRecursiveOnRoot(args) ? "recursive-chmod-root" : null;
    case "chown":
    case "chgrp":
      return isRecursiveOnRoot(args) ? "recursive-chown-root" : null;
    case "find":
      return args.includes("-delete") ? "find-delete" : null;
    default:
      return name.startsWith("mkfs") || name === "mke2fs" ? "mkfs" : null;
  }
}

function isRecursiveOnRoot(args: readonly string[]): boolean {
  const recursive = beforeDoubleDash(args).some(
    (arg) => isLongOption(arg, "--recursive") || clusterHas(arg, "R"),
  );
  return recursive && operands(args).some(isRootTarget);
}

function gitKind(words: readonly string[]): DangerousKind | null {
  const subcommand = findGitSubcommand(words);
  if (subcommand === null) return null;
  const args = words.slice(subcommand.index + 1);
  switch (subcommand.name) {
    case "reset":
      return beforeDoubleDash(args).some((arg) => isLongOption(arg, "--hard")) ? "git-reset-hard" : null;
    case "clean":
      return beforeDoubleDash(args).some((arg) => isLongOption(arg, "--force") || clusterHas(arg, "f", "e"))
        ? "git-clean-force"
        : null;
    case "push":
      return args.some(
        (arg) =>
          isLongOption(arg, "--force") ||
          arg.startsWith("--force-with-lease") ||
          isLongOption(arg, "--mirror") ||
          clusterHas(arg, "f", "o") ||
          (arg.startsWith("+") && arg.length > 1),
      )
        ? "git-push-force"
        : null;
    default:
      return null;
  }
}
