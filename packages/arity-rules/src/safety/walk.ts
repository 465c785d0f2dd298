// The one traversal of what a command line runs, shared by the dangerous-command match
// (dangerous.ts), the list of reachable commands (reach.ts) and the known-safe proof (is-known-safe.ts).
// It looks through runners (sudo, env, xargs, timeout, … in runners.ts, and configured wrappers) and
// reads what commands run: the script of a Bourne-family shell's `-c` in any spelling (for sh-like shells
// also as read without `$'…'`), the command text of other shells (read as bash, best effort), command and
// process substitutions, the action of `trap`, the words of `eval`, `su -c`, `script -c`, `watch`, the
// command substitutions in text a builtin evaluates (`test -v 'a[$(…)]'`), `find -exec|-execdir|-ok|
// -okdir`, git aliases given with `-c`, and the commands, scripts and programs options give
// (command-options.ts). What each reached command means is the visitor's: the walk itself decides nothing
// and never runs anything. Scripts are read by `analyze()`, within one AnalysisBudget.
import type { Analysis, SimpleCommand } from "../types.js";
import { AnalysisBudget } from "./budget.js";
import { builtinFindings, isShellBuiltin } from "./builtins.js";
import { executableName } from "./command-name.js";
import { commandOptions, gitCommandOptions, runnerHasCommandOptions } from "./command-options.js";
import { embeddedScripts, scriptSource, substitutionScript } from "./embedded-scripts.js";
import {
  assignedName,
  evaluatesAssignmentText,
  evaluatesValues,
  isPlainName,
  substitutionsIn,
} from "./evaluation.js";
import { findExecCommands } from "./getopt.js";
import {
  type GitSetting,
  type GitSubcommand,
  gitCommandLineSettings,
  gitSubcommands,
  isGitAliasSetting,
  isGitOwnCommand,
} from "./git.js";
import type { CommandOption } from "./option-scan.js";
import { type LookedThrough, lookThrough, runnerTable } from "./runners.js";

type RunnerTable = ReturnType<typeof runnerTable>;

import { type SafetyOptions, wrapperTable } from "./safety-options.js";
import { anyShellScript, isReadShell, scriptReadings, shellName, unreadShellText } from "./shell.js";
import type { UnreadReason } from "./unread.js";

/** One command the walk reached, given to the visitor before anything it runs is read. */
export interface WalkedCommand {
  /** The words as written, runners included. */
  readonly argv: readonly string[];
  /** The runners looked through. */
  readonly through: LookedThrough;
  /** The command behind the runners (`git-push` read as `git push`); empty when none follows them. */
  readonly words: readonly string[];
  /** The executable name of `words[0]`, or null when words is empty. */
  readonly name: string | null;
  /** The source texts of words that are not literal (`$x`, `"$(pwd)"`). */
  readonly dynamic: ReadonlySet<string>;
  /** The analysis the parser made of this command's own script, if any (reused for `bash -c`). */
  readonly nested: Analysis | null;
  /** Whether a shell runs this command (it was read in a script), so a builtin is the shell's own. */
  readonly inShell: boolean;
  /** How many scripts and commands it is nested in, counted from the argv given. */
  readonly depth: number;
}

/** A visitor's answer to a command: stop the walk with a result, skip what it runs, or go on (null). */
export const SKIP: unique symbol = Symbol("skip");

/**
 * What a traversal is for. `command` sees each command reached; `script` each script read (after its
 * assignments' substitutions, before its commands); `git` each git command; `unread` each construct that keeps the walk from
 * reading everything. The first result returned stops the walk and is its result.
 */
export interface WalkVisitor<T> {
  command(command: WalkedCommand): T | null | typeof SKIP;
  script?(analysis: Analysis): T | null;
  /** A git command, before the options of its subcommands and its aliases are read. */
  git?(git: WalkedGit): void;
  unread?(reason: UnreadReason, text: string): void;
}

/** A git command as the walk reads it. */
export interface WalkedGit {
  readonly words: readonly string[];
  readonly dynamic: ReadonlySet<string>;
  /** Where its subcommand may be, wherever the global options leave it (git.ts). */
  readonly subcommands: readonly GitSubcommand[];
  /** The `-c NAME=VALUE` settings before the last of them. */
  readonly settings: readonly GitSetting[];
}

// Scripts inside scripts (shells, substitutions, trap, eval, watch, su -c) and commands run by find,
// counted from the argv given.
const MAX_SCRIPT_DEPTH = 16;

interface Context<T> {
  readonly runners: RunnerTable;
  readonly budget: AnalysisBudget;
  readonly visitor: WalkVisitor<T>;
}

/** The runners a walk looks through: the built-in table and `options.wrappers`. */
export function walkRunners(options: SafetyOptions | undefined): RunnerTable {
  return runnerTable(wrapperTable(options));
}

/**
 * Walks what argv runs, looking through runners (see walkRunners), and gives each command, script and
 * unread part to the visitor.
 */
export function walk<T>(argv: readonly string[], visitor: WalkVisitor<T>, runners: RunnerTable): T | null {
  const context = { runners, budget: new AnalysisBudget(), visitor };
  return walkArgv(argv, null, NO_DYNAMIC_WORDS, context, 0);
}

export const NO_DYNAMIC_WORDS: ReadonlySet<string> = new Set();

/** The source texts of a command's words that are not literal (`$x`, `"$(pwd)"`). */
function dynamicWords(command: SimpleCommand): ReadonlySet<string> {
  if (command.dynamic === undefined) return NO_DYNAMIC_WORDS;
  return new Set(command.dynamic.map((index) => command.argv[index] as string));
}

function unread<T>(context: Context<T>, reason: UnreadReason, text: string): void {
  context.visitor.unread?.(reason, text);
}

// What the analyser reports when it could not read a script's structure or a command's name.
const ANALYSER_UNREAD: ReadonlySet<string> = new Set([
  "parse-error",
  "unsupported-syntax",
  "too-large",
  "too-deep",
  "dynamic-command-name",
  "zsh-syntax",
]);

// Where the analysis of a script that is too deep or too large starts, for the unread part's text.
const PREVIEW_CHARS = 100;

export function preview(script: string): string {
  return script.length > PREVIEW_CHARS ? `${script.slice(0, PREVIEW_CHARS)}…` : script;
}

const PLAIN_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** Words as a shell would need them written, for the text of an unread part. */
export function joinWords(words: readonly string[]): string {
  return words.map((word) => (PLAIN_WORD.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`)).join(" ");
}

function walkArgv<T>(
  argv: readonly string[],
  nested: Analysis | null,
  dynamic: ReadonlySet<string>,
  context: Context<T>,
  depth: number,
  inShell = false,
  zsh = false,
): T | null {
  const through = lookThrough(argv, context.runners);
  let words = through.words;
  const first = words[0];
  let name = first === undefined ? null : executableName(first);
  // `git-push` (in git's exec path) is git running its built-in push.
  if (
    name?.startsWith("git-") &&
    isGitOwnCommand(["git", name.slice(4)], { index: 1, name: name.slice(4) })
  ) {
    words = ["git", name.slice(4), ...words.slice(1)];
    name = "git";
  }
  const nestedHere = through.words === argv ? nested : null;
  const visited = context.visitor.command({
    argv,
    through,
    words,
    name,
    dynamic,
    nested: nestedHere,
    inShell,
    depth,
  });
  if (visited === SKIP) return null;
  if (visited !== null) return visited;

  const fromRunners = walkRunnerOptions(through, dynamic, context, depth);
  if (fromRunners !== null || first === undefined || name === null) return fromRunners;
  const evaluated = walkEvaluatedText(words, dynamic, context, depth, zsh);
  if (evaluated !== null) return evaluated;
  const args = words.slice(1);
  if (name === "find") {
    for (const command of findExecCommands(args)) {
      const found =
        depth + 1 < MAX_SCRIPT_DEPTH ? walkArgv(command, null, dynamic, context, depth + 1) : null;
      if (found !== null) return found;
    }
    return null;
  }
  if (name === "git") return walkGit(words, dynamic, context, depth);
  const shell = shellName(first);
  if (shell !== null) return walkShell(argv, shell, nestedHere, dynamic, through, context, depth);
  const options = walkCommandOptions([name], words, commandOptions(name, words), dynamic, context, depth);
  if (options !== null) return options;
  for (const script of embeddedScripts(name, words)) {
    if (script.words.some((word) => dynamic.has(word))) unread(context, "dynamic-script", joinWords(words));
    // eval's words and a trap's action are run by the shell that runs this command.
    const found = walkScript(scriptSource(script.text), null, context, depth, zsh);
    if (found !== null) return found;
  }
  return null;
}

/** The command options of the runners passed (`perf stat --pre CMD`, `valgrind --db-command=CMD`). */
function walkRunnerOptions<T>(
  through: LookedThrough,
  dynamic: ReadonlySet<string>,
  context: Context<T>,
  depth: number,
): T | null {
  for (const runner of through.runners) {
    if (!runnerHasCommandOptions(runner.name)) continue;
    const words = runner.words.slice(runner.start);
    const options = commandOptions(runner.name, words);
    const found = walkCommandOptions([runner.name], words, options, dynamic, context, depth);
    if (found !== null) return found;
  }
  return null;
}

/**
 * The options that give a program a command (see command-options.ts): the line is unread unless the
 * option runs its command as written, and shell text and programs in them are read as scripts.
 */
function walkCommandOptions<T>(
  label: readonly string[],
  words: readonly string[],
  options: readonly CommandOption[],
  dynamic: ReadonlySet<string>,
  context: Context<T>,
  depth: number,
): T | null {
  for (const option of options) {
    const written = option.indexes.map((index) => words[index] ?? "");
    const literal = written.every((word) => !dynamic.has(word));
    const text = joinWords(option.indexes[0] === 0 ? label : [...label, ...written]);
    if (option.kind !== "argv" && option.kind !== "reached-script") unread(context, "command-option", text);
    if (!literal) unread(context, "dynamic-script", text);
    if (depth + 1 >= MAX_SCRIPT_DEPTH) continue;
    let found: T | null = null;
    if (option.kind === "argv" && option.argv !== undefined) {
      found = walkArgv(option.argv, null, dynamic, context, depth + 1);
    } else if (
      literal &&
      option.value !== null &&
      (option.kind === "script" || option.kind === "program" || option.kind === "reached-script")
    ) {
      found = walkScript(option.value, null, context, depth + 1);
    }
    if (found !== null) return found;
  }
  return null;
}

// A subscript holding a command substitution: the shape of text bash runs when it evaluates it, as a
// name, an arithmetic operand, or the value of an integer variable (`declare -i x; x='a[$(rm f)]'`).
const EVALUABLE: RegExp = /\[[^\]]*(\$\(|`)/;
const NAMED_DESCRIPTOR = /^\{([A-Za-z_][A-Za-z0-9_]*\[.*\])\}$/s;
// Builtins that evaluate their operands (or, with -i, their values) arithmetically or as names.
const EVALUATING: ReadonlySet<string> = new Set([
  "export",
  "declare",
  "typeset",
  "local",
  "readonly",
  "let",
  "[[",
  "[",
  "test",
  "unset",
  "read",
  "mapfile",
  "readarray",
  "getopts",
  "wait",
  "shift",
  "exit",
  "return",
  "break",
  "continue",
]);

/**
 * A builtin's use that is not read: unmodelled, or with text it evaluates. The command substitutions of
 * its literal words shaped like an evaluated subscript (the others are read where they are written) are
 * read as scripts.
 */
function walkEvaluatedText<T>(
  words: readonly string[],
  dynamic: ReadonlySet<string>,
  context: Context<T>,
  depth: number,
  zsh: boolean,
): T | null {
  const first = words[0] as string;
  if (dynamic.has(first)) return null;
  const name = executableName(first);
  // Only a builtin has findings; most commands are programs.
  const findings = isShellBuiltin(name)
    ? builtinFindings([name, ...words.slice(1)], (index) => dynamic.has(words[index] as string))
    : [];
  const texts = new Set<string>();
  for (const finding of findings) {
    unread(context, finding.reason, finding.text ?? joinWords(words));
    if (finding.reason === "evaluated-text" && finding.text !== null && !dynamic.has(finding.text)) {
      texts.add(finding.text);
    }
  }
  const evaluating = EVALUATING.has(name);
  for (let index = 1; index < words.length; index++) {
    const word = words[index] as string;
    if (evaluating && EVALUABLE.test(word) && !dynamic.has(word)) texts.add(word);
    // `{NAME}>file` stores the descriptor in NAME, evaluating a subscript in it; tree-sitter reads the
    // `{…}` as a word of the command. Its quoted substitutions are not read anywhere else.
    const descriptor = NAMED_DESCRIPTOR.exec(word)?.[1];
    if (descriptor !== undefined && !isPlainName(descriptor)) {
      unread(context, "evaluated-text", word);
      texts.add(word);
    }
  }
  for (const text of texts) {
    const found = walkSubstitutions(text, null, context, depth, zsh);
    if (found !== null) return found;
  }
  return null;
}

/**
 * The command substitutions written in text, read as scripts (of zsh with `zsh`), except those the
 * analysis read already.
 */
function walkSubstitutions<T>(
  text: string,
  analysis: Analysis | null,
  context: Context<T>,
  depth: number,
  zsh: boolean,
): T | null {
  if (depth + 1 >= MAX_SCRIPT_DEPTH) return null;
  for (const inner of substitutionsIn(text)) {
    if (analysis?.opaque.some((part) => part.text === `$(${inner})` || part.text === `\`${inner}\``))
      continue;
    const found = walkScript(inner, null, context, depth + 1, zsh);
    if (found !== null) return found;
  }
  return null;
}

// What a shell does with only these words: print and exit.
const SHELL_QUERIES: ReadonlySet<string> = new Set(["--version", "--help"]);

/** A shell (`argv`, as written, runs it behind its runners): its script in every reading, or what it
 * runs that cannot be read. */
function walkShell<T>(
  argv: readonly string[],
  shell: string,
  nested: Analysis | null,
  dynamic: ReadonlySet<string>,
  through: LookedThrough,
  context: Context<T>,
  depth: number,
): T | null {
  const words = through.words;
  if (through.runners.some((runner) => runner.name === "xargs" || runner.name === "parallel")) {
    unread(context, "input-command", joinWords(argv));
  }
  if (!isReadShell(shell)) {
    unread(context, "unread-shell", words[0] as string);
    const text = unreadShellText(words);
    return text === null ? null : walkScript(text, null, context, depth);
  }
  const invocation = anyShellScript(words);
  if (invocation === null) {
    const query = words.length > 1 && words.slice(1).every((word) => SHELL_QUERIES.has(word));
    if (!query) unread(context, "shell-input", joinWords(argv));
    return null;
  }
  if (dynamic.has(invocation.script)) unread(context, "dynamic-script", invocation.script);
  const readings = scriptReadings(invocation.shell, scriptSource(invocation.script));
  const zsh = invocation.shell === "zsh";
  for (const [index, reading] of readings.entries()) {
    const analysis = index === 0 && reading === invocation.script ? nested : null;
    const found = walkScript(reading, analysis, context, depth, zsh);
    if (found !== null) return found;
  }
  return null;
}

/**
 * git: the options of its subcommand wherever the global options may leave it, and aliases given on the
 * command line, read as the shell script (`!…`) or git command they stand for.
 */
function walkGit<T>(
  words: readonly string[],
  dynamic: ReadonlySet<string>,
  context: Context<T>,
  depth: number,
): T | null {
  const subcommands = gitSubcommands(words);
  const settings = gitCommandLineSettings(words, subcommands.at(-1)?.index ?? words.length);
  context.visitor.git?.({ words, dynamic, subcommands, settings });
  for (const subcommand of subcommands) {
    const options = gitCommandOptions(words, subcommand.index);
    const label = ["git", subcommand.name];
    const found = walkCommandOptions(label, words, options, dynamic, context, depth);
    if (found !== null) return found;
  }
  for (const { value } of settings.filter(isGitAliasSetting)) {
    if (value === null || depth + 1 >= MAX_SCRIPT_DEPTH) continue;
    const found = value.startsWith("!")
      ? walkScript(value.slice(1), null, context, depth + 1)
      : walkArgv(
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

// Variables that make a program run code they name: bash sources BASH_ENV and imports
// BASH_FUNC_* functions, zsh reads ZDOTDIR/.zshenv, PS4 and PROMPT_COMMAND hold commands, SHELLOPTS/
// BASHOPTS can turn on xtrace (which expands PS4), fc runs FCEDIT; git runs GIT_PAGER, GIT_EDITOR,
// GIT_SSH_COMMAND, GIT_EXTERNAL_DIFF and the like, reads settings from GIT_CONFIG_*, and helpers from
// GIT_EXEC_PATH; many programs run PAGER, EDITOR and VISUAL, man runs MANPAGER and BROWSER and takes
// options from MANOPT, less runs LESSOPEN/LESSCLOSE and takes commands from LESS and LESSKEY*, vim runs
// VIMINIT/EXINIT, tar, zip and rsync take options or a remote shell from TAR_OPTIONS, ZIPOPT, RSYNC_RSH,
// sudo runs SUDO_ASKPASS; the dynamic loader loads LD_PRELOAD and LD_AUDIT into any program.
export const COMMAND_VARIABLE: RegExp = new RegExp(
  "^(BASH_ENV|ZDOTDIR|BASH_FUNC_[^=]*|PS4|PROMPT_COMMAND|SHELLOPTS|BASHOPTS|FCEDIT|GIT_EXEC_PATH|" +
    "GIT_CONFIG\\w*|GIT_PAGER|GIT_EDITOR|GIT_SEQUENCE_EDITOR|GIT_SSH|GIT_SSH_COMMAND|GIT_ASKPASS|" +
    "SSH_ASKPASS|SUDO_ASKPASS|GIT_EXTERNAL_DIFF|GIT_PROXY_COMMAND|PAGER|EDITOR|VISUAL|MANPAGER|MANOPT|" +
    "BROWSER|SYSTEMD_PAGER|LESS|LESSOPEN|LESSCLOSE|LESSKEY\\w*|VIMINIT|EXINIT|TAR_OPTIONS|ZIPOPT|" +
    "RSYNC_RSH|RSYNC_CONNECT_PROG|LD_PRELOAD|LD_AUDIT)(\\+?=|$)",
);

/** What a script runs (a script zsh runs with `zsh`: it is read as zsh reads it). */
function walkScript<T>(
  script: string,
  nested: Analysis | null,
  context: Context<T>,
  depth: number,
  zsh = false,
): T | null {
  if (depth >= MAX_SCRIPT_DEPTH) {
    unread(context, "too-deep", preview(script));
    return null;
  }
  const analysis = nested ?? context.budget.analyze(script, zsh);
  if (analysis === null) {
    unread(context, "too-large", preview(script));
    return null;
  }
  for (const part of analysis.opaque) {
    if (ANALYSER_UNREAD.has(part.reason)) unread(context, part.reason as UnreadReason, part.text);
    if (evaluatesValues(part)) unread(context, "dynamic-script", part.text);
    if (part.reason !== "assignment-prefix") continue;
    if (COMMAND_VARIABLE.test(part.text)) unread(context, "command-variable", part.text);
    if (assignedName(part.text) === "PATH") unread(context, "program-path", part.text);
    const evaluated = evaluatesAssignmentText(part.text);
    if (evaluated) unread(context, "evaluated-text", part.text);
    // A subscript bash evaluates runs the substitutions in it, quoted ones too (`a['$(rm f)']=1`), and so
    // does a value shaped like one once an integer variable or an expansion evaluates it.
    if (!evaluated && !EVALUABLE.test(part.text)) continue;
    const found = walkSubstitutions(part.text, analysis, context, depth, zsh);
    if (found !== null) return found;
  }
  const seen = context.visitor.script?.(analysis) ?? null;
  if (seen !== null) return seen;
  for (const command of analysis.commands) {
    const found = walkArgv(
      command.argv,
      command.nested,
      dynamicWords(command),
      context,
      depth + 1,
      true,
      zsh,
    );
    if (found !== null) return found;
  }
  // The analyser lists the commands of loops, conditionals, groups and functions, but a substitution is
  // only an opaque part with its text: read what it runs.
  for (const part of analysis.opaque) {
    const inner = substitutionScript(part);
    if (inner === null) continue;
    const found = walkScript(inner, null, context, depth + 1, zsh);
    if (found !== null) return found;
  }
  return null;
}
