// Codex's `dangerous_command_match` (is_dangerous_command.rs), extended. A command is dangerous when,
// after looking through runners (sudo, doas, env with its assignments and `-S`, xargs, watch, timeout,
// nice, nohup, stdbuf, time, command, builtin, exec, ionice, setsid, chroot, busybox, flock, unshare,
// taskset, chrt, strace and the others in runners.ts, and configured wrappers), it is one of:
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
// git's subcommand is looked for wherever its global options may leave it (see git.ts), `git-NAME` is
// git's built-in NAME, and an alias given with `-c alias.NAME=…` is read as what it stands for.
// Commands that run other commands are searched too: the script of a Bourne-family shell's `-c` in any
// spelling (for sh-like shells also as read without `$'…'`), the command text of other shells (read as
// bash, best effort), command and process substitutions, the action of `trap`, the words of `eval`,
// `su -c`, `script -c`, `watch`, a `mapfile -C` callback, and `find -exec|-execdir|-ok|-okdir`. Scripts
// are read by `analyze()`; commands whose name is not literal (`$cmd -rf x`) never match.
// Not covered: danger configured outside argv (clean.requireForce=false, a `+` push refspec in config,
// an alias in a config file), branch deletion by push (`--delete`, `:branch`), a script piped into a
// shell, and scripts nested past MAX_SCRIPT_DEPTH or the analysis budget (such a command is never known
// safe either, and `reachableCommands` reports each of these as unread).
import { posix } from "node:path";
import { unquoteDoubleQuoted } from "../analyze/words.js";
import type { Analysis, OpaquePart, SimpleCommand } from "../types.js";
import { AnalysisBudget } from "./budget.js";
import { executableName } from "./command-name.js";
import {
  gitCommandLineSettings,
  gitSubcommands,
  isGitAliasSetting,
  isGitOwnCommand,
  isGitProgramSetting,
} from "./git.js";
import { skipOptions } from "./options.js";
import { type LookedThrough, lookThrough, runnerTable, WATCH_GRAMMAR } from "./runners.js";
import { type SafetyOptions, wrapperTable } from "./safety-options.js";
import { anyShellScript, isReadShell, scriptReadings, shellName, unreadShellText } from "./shell.js";
import type { Reach, UnreadReason } from "./unread.js";

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
  /** When set, every command reached and every construct left unread is collected, and nothing matched. */
  readonly reach?: Reach;
  /** The unread parts collected so far, as `reason text` keys, so each is listed once. */
  readonly unreadKeys?: Set<string>;
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
  return matchArgv(argv, null, NO_DYNAMIC_WORDS, context, 0);
}

/**
 * What argv runs, as far as reading it can tell: every command it reaches, each after looking through
 * wrappers and runners (`sudo`, `env`, `timeout`, `xargs`, `flock`, ...): argv itself, the commands of
 * shell scripts in any spelling, of command and process substitutions, of `eval`, `trap`, `su -c`,
 * `script -c`, `watch`, of git aliases given with `-c`, and of `find -exec`; a git command also as it
 * reads without its global options (`git -C x push` as `git push`). And every construct that keeps the
 * list from being complete (`unread`): a command name or script text known only when it runs, a shell
 * reading input or a file, a shell of another language, `source`, aliases, git aliases. For applying
 * restrictive rules to what really runs; never runs anything.
 */
export async function reachableCommands(argv: readonly string[], options?: SafetyOptions): Promise<Reach> {
  const reach: Reach = { commands: [], unread: [] };
  const context = {
    runners: runnerTable(wrapperTable(options)),
    budget: new AnalysisBudget(),
    reach,
    unreadKeys: new Set<string>(),
  };
  await matchArgv(argv, null, NO_DYNAMIC_WORDS, context, 0);
  return reach;
}

const NO_DYNAMIC_WORDS: ReadonlySet<string> = new Set();

/** The source texts of a command's words that are not literal (`$x`, `"$(pwd)"`). */
function dynamicWords(command: SimpleCommand): ReadonlySet<string> {
  if (command.dynamic === undefined) return NO_DYNAMIC_WORDS;
  return new Set(command.dynamic.map((index) => command.argv[index] as string));
}

function unread(context: Context, reason: UnreadReason, text: string): void {
  const { reach, unreadKeys } = context;
  const key = `${reason} ${text}`;
  if (reach === undefined || unreadKeys === undefined || unreadKeys.has(key)) return;
  unreadKeys.add(key);
  reach.unread.push({ reason, text });
}

// What the analyser reports when it could not read a script's structure or a command's name.
const ANALYSER_UNREAD: ReadonlySet<string> = new Set([
  "parse-error",
  "unsupported-syntax",
  "too-large",
  "too-deep",
  "dynamic-command-name",
]);

// Variables that make a program run code they name: bash sources BASH_ENV and imports BASH_FUNC_*
// functions, zsh reads ZDOTDIR/.zshenv, PS4 and PROMPT_COMMAND hold commands, SHELLOPTS/BASHOPTS can
// turn on xtrace (which expands PS4); git runs GIT_PAGER, GIT_EDITOR, GIT_SSH_COMMAND, GIT_EXTERNAL_DIFF
// and the like, reads settings from GIT_CONFIG_*, and helpers from GIT_EXEC_PATH; many programs run
// PAGER, EDITOR and VISUAL; the dynamic loader loads LD_PRELOAD and LD_AUDIT into any program.
const COMMAND_VARIABLE = new RegExp(
  "^(BASH_ENV|ZDOTDIR|BASH_FUNC_[^=]*|PS4|PROMPT_COMMAND|SHELLOPTS|BASHOPTS|GIT_EXEC_PATH|GIT_CONFIG\\w*|" +
    "GIT_PAGER|GIT_EDITOR|GIT_SEQUENCE_EDITOR|GIT_SSH|GIT_SSH_COMMAND|GIT_ASKPASS|SSH_ASKPASS|" +
    "GIT_EXTERNAL_DIFF|GIT_PROXY_COMMAND|PAGER|EDITOR|VISUAL|LD_PRELOAD|LD_AUDIT)(\\+?=|$)",
);

// Where the analysis of a script that is too deep or too large starts, for the unread part's text.
const PREVIEW_CHARS = 100;

function preview(script: string): string {
  return script.length > PREVIEW_CHARS ? `${script.slice(0, PREVIEW_CHARS)}…` : script;
}

async function matchArgv(
  argv: readonly string[],
  nested: Analysis | null,
  dynamic: ReadonlySet<string>,
  context: Context,
  depth: number,
): Promise<DangerousMatch | null> {
  const through = lookThrough(argv, context.runners);
  if (context.reach) noteCommandVariables(argv, through.words, context);
  let words = through.words;
  const first = words[0];
  if (first === undefined) {
    // `xargs env`, `xargs sudo`: the command comes from input. Plain `xargs` runs echo.
    const runners = through.runners.map((runner) => runner.name);
    if (runners.includes("xargs") && runners.at(-1) !== "xargs") {
      unread(context, "input-command", joinWords(argv));
    }
    return null;
  }
  let name = executableName(first);
  // `git-push` (in git's exec path) is git running its built-in push.
  if (name.startsWith("git-") && isGitOwnCommand(["git", name.slice(4)], { index: 1, name: name.slice(4) })) {
    words = ["git", name.slice(4), ...words.slice(1)];
    name = "git";
  }
  const args = words.slice(1);
  if (context.reach) {
    noteRunnerStages(through, dynamic, context);
    reached(context.reach, words, dynamic);
    noteUnreadCommand(words, dynamic, through, context);
  } else {
    const kind = directKind(name, words, args);
    if (kind !== null) return { kind, argv: [...words], reason: DANGEROUS_REASONS[kind] };
  }

  if (name === "find") {
    for (const command of findExecCommands(args)) {
      const found =
        depth + 1 < MAX_SCRIPT_DEPTH ? await matchArgv(command, null, dynamic, context, depth + 1) : null;
      if (found !== null) return found;
    }
    return null;
  }
  if (name === "git") return matchGit(words, dynamic, context, depth);
  const shell = shellName(first);
  if (shell !== null) {
    return matchShell(argv, shell, words === argv ? nested : null, dynamic, through, context, depth);
  }
  const script = embeddedScript(name, words);
  if (script === null) return null;
  if (script.words.some((word) => dynamic.has(word))) unread(context, "dynamic-script", joinWords(words));
  return matchScript(scriptSource(script.text), null, context, depth);
}

function reached(reach: Reach, words: readonly string[], dynamic: ReadonlySet<string>): void {
  const indexes =
    dynamic.size === 0 ? [] : words.flatMap((word, index) => (dynamic.has(word) ? [index] : []));
  reach.commands.push(indexes.length === 0 ? { argv: [...words] } : { argv: [...words], dynamic: indexes });
}

// A command behind more runners than this is reported as too deep rather than listed runner by runner.
const MAX_RUNNER_STAGES = 16;

/** Each runner's own command (`timeout 5 sudo ls`, then `sudo ls`), so rules about runners apply too. */
function noteRunnerStages(through: LookedThrough, dynamic: ReadonlySet<string>, context: Context): void {
  const reach = context.reach as Reach;
  if (through.runners.length > MAX_RUNNER_STAGES) {
    unread(context, "too-deep", preview(joinWords(through.runners[0]?.words ?? [])));
    return;
  }
  for (const runner of through.runners) reached(reach, runner.words.slice(runner.start), dynamic);
}

// Builtins whose operands are assignments (`export BASH_ENV=x`) or names of variables they export.
const DECLARATIONS: ReadonlySet<string> = new Set(["export", "declare", "typeset", "local", "readonly"]);

/** Notes an assignment that makes a program run other code: before the command (`env`), or declared. */
function noteCommandVariables(argv: readonly string[], words: readonly string[], context: Context): void {
  const offset = argv.length - words.length;
  const suffix = offset >= 0 && words.every((word, index) => word === argv[offset + index]);
  const before = suffix ? argv.slice(0, offset) : argv;
  const declared = words[0] !== undefined && DECLARATIONS.has(words[0]) ? words.slice(1) : [];
  for (const word of [...before, ...declared]) {
    if (COMMAND_VARIABLE.test(word)) unread(context, "command-variable", word);
  }
}

const PLAIN_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** Words as a shell would need them written, for the text of an unread part. */
function joinWords(words: readonly string[]): string {
  return words.map((word) => (PLAIN_WORD.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`)).join(" ");
}

// Bash evaluates a variable's value as an arithmetic expression, and so runs `$(…)` in it, in `$((x))`,
// `$[x]`, an array subscript (`${a[i]}`), `for ((…; x; …))`, `let`, `declare -i` and `[[ x -eq 1 ]]`;
// `${x@P}` expands a value as a prompt, substitutions included. Only names the expression assigns itself
// are known.
// A name, not the letters of a number (`0x1f`, `16#ff`).
const ARITHMETIC_NAME = /(?<![0-9A-Za-z_#])[A-Za-z_][A-Za-z0-9_]*/g;
const ASSIGNED_NAME = /([A-Za-z_][A-Za-z0-9_]*)\s*(\+\+|--|(<<|>>|[-+*/%&|^])?=(?!=))/g;
const ARITHMETIC_OPERATORS: ReadonlySet<string> = new Set(["-eq", "-ne", "-lt", "-le", "-gt", "-ge"]);
const INTEGER = /^[-+]?\d+$/;

/** True when an arithmetic expression reads a variable it does not assign first. */
function readsVariables(expression: string): boolean {
  const assigned = new Set([...expression.matchAll(ASSIGNED_NAME)].map((match) => match[1]));
  return (expression.match(ARITHMETIC_NAME) ?? []).some((name) => !assigned.has(name));
}

/** An expansion or loop of the analysis that evaluates a variable's value as code. */
function evaluatesValues(part: OpaquePart): boolean {
  const { reason, text } = part;
  if (reason === "control-flow") {
    const header = /^for\s*\(\((.*?)\)\)/s.exec(text);
    return header !== null && readsVariables(header[1] as string);
  }
  if (reason !== "parameter-expansion") return false;
  if (text.startsWith("$((")) return readsVariables(text.slice(3, -2));
  if (text.startsWith("$[")) return readsVariables(text.slice(2, -1));
  const subscript = /^\$\{!?[A-Za-z_][A-Za-z0-9_]*\[([^\]]*)\]/.exec(text)?.[1];
  return (subscript !== undefined && !/^(\d+|@|\*)$/.test(subscript)) || /@P\}$/.test(text);
}

/** A builtin that evaluates its operands arithmetically with a variable in them. */
function evaluatesOperands(name: string, args: readonly string[]): boolean {
  if (name === "let") return args.some(readsVariables);
  if (name === "[[") {
    return args.some(
      (arg, index) =>
        ARITHMETIC_OPERATORS.has(arg) &&
        [args[index - 1], args[index + 1]].some((side) => !INTEGER.test(side ?? "")),
    );
  }
  if (!DECLARATIONS.has(name) || !args.some((arg) => /^-[A-Za-z]*i/.test(arg))) return false;
  return args.some((arg) => {
    const equals = arg.indexOf("=");
    return equals > 0 && !arg.startsWith("-") && readsVariables(arg.slice(equals + 1));
  });
}

/** Notes what makes one command's effect unknown: its name, `source`, aliases, input-fed commands. */
function noteUnreadCommand(
  words: readonly string[],
  dynamic: ReadonlySet<string>,
  through: LookedThrough,
  context: Context,
): void {
  const first = words[0] as string;
  const name = executableName(first);
  const args = words.slice(1);
  // `{}` is what find -exec and xargs -I put a file name in; a literal `{}` program does not exist.
  if (
    dynamic.has(first) ||
    first.includes("{}") ||
    through.placeholders.some((placeholder) => first.includes(placeholder))
  ) {
    unread(context, "dynamic-command-name", first);
  }
  if ((name === "source" || name === ".") && args.length > 0) unread(context, "source", joinWords(words));
  const changesNames =
    (name === "alias" && args.some((arg) => arg.includes("="))) ||
    (name === "hash" && args.some((arg) => /^-[^-]*p/.test(arg))) ||
    (name === "enable" && args.some((arg) => !/^-[aps]+$/.test(arg)));
  if (changesNames) unread(context, "alias", joinWords(words));
  if (evaluatesOperands(name, args)) unread(context, "dynamic-script", joinWords(words));
}

// What a shell does with only these words: print and exit.
const SHELL_QUERIES: ReadonlySet<string> = new Set(["--version", "--help"]);

/** A shell (`argv`, as written, runs it behind its runners): its script in every reading, or what it
 * runs that cannot be read. */
async function matchShell(
  argv: readonly string[],
  shell: string,
  nested: Analysis | null,
  dynamic: ReadonlySet<string>,
  through: LookedThrough,
  context: Context,
  depth: number,
): Promise<DangerousMatch | null> {
  const words = through.words;
  if (through.runners.some((runner) => runner.name === "xargs" || runner.name === "parallel")) {
    unread(context, "input-command", joinWords(argv));
  }
  if (!isReadShell(shell)) {
    unread(context, "unread-shell", words[0] as string);
    const text = unreadShellText(words);
    return text === null ? null : matchScript(text, null, context, depth);
  }
  const invocation = anyShellScript(words);
  if (invocation === null) {
    const query = words.length > 1 && words.slice(1).every((word) => SHELL_QUERIES.has(word));
    if (!query) unread(context, "shell-input", joinWords(argv));
    return null;
  }
  if (dynamic.has(invocation.script)) unread(context, "dynamic-script", invocation.script);
  const readings = scriptReadings(invocation.shell, scriptSource(invocation.script));
  for (const [index, reading] of readings.entries()) {
    const analysis = index === 0 && reading === invocation.script ? nested : null;
    const found = await matchScript(reading, analysis, context, depth);
    if (found !== null) return found;
  }
  return null;
}

/**
 * git: its subcommand wherever the global options may leave it, and aliases given on the command line,
 * read as the shell script (`!…`) or git command they stand for.
 */
async function matchGit(
  words: readonly string[],
  dynamic: ReadonlySet<string>,
  context: Context,
  depth: number,
): Promise<DangerousMatch | null> {
  const subcommands = gitSubcommands(words);
  const settings = gitCommandLineSettings(words, subcommands.at(-1)?.index ?? words.length);
  const aliases = settings.filter(isGitAliasSetting);
  if (context.reach) {
    for (const { setting } of aliases) unread(context, "git-alias", setting);
    for (const setting of settings) {
      if (isGitProgramSetting(setting)) unread(context, "git-config", setting.setting);
    }
    for (const subcommand of subcommands) {
      if (dynamic.has(subcommand.name)) unread(context, "dynamic-command-name", subcommand.name);
      else if (!isGitOwnCommand(words, subcommand)) unread(context, "git-alias", `git ${subcommand.name}`);
      if (subcommand.index > 1)
        reached(context.reach, ["git", ...words.slice(subcommand.index)], NO_DYNAMIC_WORDS);
    }
  }
  for (const { value } of aliases) {
    if (value === null || depth + 1 >= MAX_SCRIPT_DEPTH) continue;
    const found = value.startsWith("!")
      ? await matchScript(value.slice(1), null, context, depth + 1)
      : await matchArgv(
          ["git", ...value.split(/\s+/).filter((word) => word !== "")],
          null,
          NO_DYNAMIC_WORDS,
          context,
          depth + 1,
        );
    if (found !== null) return found;
  }
  return null;
}

async function matchScript(
  script: string,
  nested: Analysis | null,
  context: Context,
  depth: number,
): Promise<DangerousMatch | null> {
  if (depth >= MAX_SCRIPT_DEPTH) {
    unread(context, "too-deep", preview(script));
    return null;
  }
  const analysis = nested ?? (await context.budget.analyze(script));
  if (analysis === null) {
    unread(context, "too-large", preview(script));
    return null;
  }
  if (context.reach) {
    for (const part of analysis.opaque) {
      if (ANALYSER_UNREAD.has(part.reason)) unread(context, part.reason as UnreadReason, part.text);
      if (part.reason === "assignment-prefix" && COMMAND_VARIABLE.test(part.text)) {
        unread(context, "command-variable", part.text);
      }
      if (evaluatesValues(part)) unread(context, "dynamic-script", part.text);
    }
  }
  for (const command of analysis.commands) {
    const found = await matchArgv(command.argv, command.nested, dynamicWords(command), context, depth + 1);
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

/**
 * The shell source a command runs, and the words it is made of: a trap action, eval's words, watch's
 * words (run by sh), a `mapfile -C` callback (run by eval).
 */
function embeddedScript(name: string, words: readonly string[]): { text: string; words: string[] } | null {
  switch (name) {
    case "trap": {
      // Codex: the action is the first operand (after an optional `--`); `trap -p`/`-l` have none.
      const action = words[1] === "--" ? words[2] : words[1];
      return action === undefined || action.startsWith("-") ? null : { text: action, words: [action] };
    }
    case "eval":
      return { text: words.slice(1).join(" "), words: words.slice(1) };
    case "watch": {
      const commandStart = skipOptions(words, 1, WATCH_GRAMMAR, { strict: false }) ?? words.length;
      const command = words.slice(commandStart);
      return { text: command.join(" "), words: command };
    }
    case "mapfile":
    case "readarray": {
      const option = words.indexOf("-C");
      const callback = option === -1 ? undefined : words[option + 1];
      return callback === undefined ? null : { text: callback, words: [callback] };
    }
    default:
      return null;
  }
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
  for (const subcommand of gitSubcommands(words)) {
    const kind = gitSubcommandKind(subcommand.name, words.slice(subcommand.index + 1));
    if (kind !== null) return kind;
  }
  return null;
}

function gitSubcommandKind(subcommand: string, args: readonly string[]): DangerousKind | null {
  switch (subcommand) {
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
