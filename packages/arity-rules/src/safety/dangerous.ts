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
//   remote-script         a download run unseen: curl/wget piped into a shell or interpreter, or given to
//                         one as a substitution (`bash <(curl x)`, `sh -c "$(curl x)"`)
//   kernel-setting        sysctl setting a value, or a write into /proc/sys, /sys or another global part
//                         of /proc, by a redirection or tee, cp and the like (kernel-settings.ts)
//
// git's subcommand is looked for wherever its global options may leave it (see git.ts), `git-NAME` is
// git's built-in NAME, and an alias given with `-c alias.NAME=…` is read as what it stands for.
// Commands that run other commands are searched too: the script of a Bourne-family shell's `-c` in any
// spelling (for sh-like shells also as read without `$'…'`), the command text of other shells (read as
// bash, best effort), command and process substitutions, the action of `trap`, the words of `eval`,
// `su -c`, `script -c`, `watch`, a `mapfile -C` callback, `compgen`/`complete -C` and `-W`, `fc -e`,
// `history -s`, `bind -x`, the command substitutions in text a builtin evaluates (`test -v 'a[$(…)]'`),
// `find -exec|-execdir|-ok|-okdir`, and the commands, scripts and programs options give (`jobs -x`,
// `git rebase --exec`, `git bisect run`, `tar --to-command`, `ssh -o ProxyCommand=`; command-options.ts).
// Scripts are read by `analyze()`; commands whose name is not literal (`$cmd -rf x`) never match.
// Not covered: danger configured outside argv (clean.requireForce=false, a `+` push refspec in config,
// an alias in a config file), branch deletion by push (`--delete`, `:branch`), a script piped into a
// shell, and scripts nested past MAX_SCRIPT_DEPTH or the analysis budget (such a command is never known
// safe either, and `reachableCommands` reports each of these as unread).
import { whenParserLoaded } from "../analyze/analyze.js";
import type { Analysis, SimpleCommand } from "../types.js";
import { AnalysisBudget } from "./budget.js";
import { builtinFindings, isShellBuiltin } from "./builtins.js";
import { executableName } from "./command-name.js";
import { commandOptions, gitCommandOptions, runnerHasCommandOptions } from "./command-options.js";
import {
  DANGEROUS_REASONS,
  type DangerousMatch,
  DOWNLOADERS,
  directKind,
  INTERPRETERS,
} from "./danger-table.js";
import { embeddedScripts, scriptSource, substitutionScript } from "./embedded-scripts.js";
import {
  assignedName,
  DECLARATIONS,
  evaluatesAssignmentText,
  evaluatesOperands,
  evaluatesValues,
  isPlainName,
  substitutionsIn,
} from "./evaluation.js";
import { findExecCommands } from "./getopt.js";
import {
  gitCommandLineSettings,
  gitSubcommands,
  isGitAliasSetting,
  isGitOwnCommand,
  isGitProgramSetting,
} from "./git.js";
import { writtenSettings } from "./git-config-writes.js";
import { kernelSettingRedirect } from "./kernel-settings.js";
import type { CommandOption } from "./option-scan.js";
import { COMMAND_INPUT_PROGRAMS } from "./runner-table.js";
import { type LookedThrough, lookThrough, runnerTable } from "./runners.js";
import { type SafetyOptions, wrapperTable } from "./safety-options.js";
import { anyShellScript, isReadShell, scriptReadings, shellName, unreadShellText } from "./shell.js";
import type { Reach, ReachedCommand, UnreadReason } from "./unread.js";

const SUBSTITUTION_START = /^(?:\$\(|<\(|`)\s*(\S+)/;

function programOf(argv: readonly string[], context: Context): string | null {
  const first = lookThrough(argv, context.runners).words[0];
  return first === undefined ? null : executableName(first);
}

/** A shell or interpreter, versioned names too (`python3.12`, `bash5.2`). */
function isInterpreter(name: string | null): boolean {
  return name !== null && (INTERPRETERS.has(name) || INTERPRETERS.has(name.replace(/[\d.]+$/, "")));
}

/**
 * A download run unseen: a downloader piped into a shell or interpreter (`curl -fsSL x | sh`,
 * `wget -qO- x | sudo bash`), or a shell or interpreter given a download as a substitution
 * (`bash <(curl x)`, `sh -c "$(curl x)"`, `. <(wget -O- x)`).
 */
function remoteScript(analysis: Analysis, context: Context): DangerousMatch | null {
  const { commands, operators } = analysis;
  for (let index = 0; index + 1 < commands.length; index++) {
    const operator = operators[index];
    if (operator !== "|" && operator !== "|&") continue;
    const from = commands[index] as Analysis["commands"][number];
    const to = commands[index + 1] as Analysis["commands"][number];
    const source = programOf(from.argv, context);
    const sink = programOf(to.argv, context);
    if (source !== null && DOWNLOADERS.has(source) && isInterpreter(sink)) {
      return { kind: "remote-script", argv: [...to.argv], reason: DANGEROUS_REASONS["remote-script"] };
    }
  }
  const downloads = analysis.opaque.some((part) => {
    const inner = SUBSTITUTION_START.exec(part.text)?.[1];
    return inner !== undefined && DOWNLOADERS.has(executableName(inner));
  });
  if (!downloads) return null;
  const runner = commands.find((command) => isInterpreter(programOf(command.argv, context)));
  return runner === undefined
    ? null
    : { kind: "remote-script", argv: [...runner.argv], reason: DANGEROUS_REASONS["remote-script"] };
}

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
export function dangerousCommandMatch(
  argv: readonly string[],
  options?: SafetyOptions,
): Promise<DangerousMatch | null> {
  return whenParserLoaded(() => {
    const context = { runners: runnerTable(wrapperTable(options)), budget: new AnalysisBudget() };
    return matchArgv(argv, null, NO_DYNAMIC_WORDS, context, 0);
  });
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
export function reachableCommands(argv: readonly string[], options?: SafetyOptions): Promise<Reach> {
  return whenParserLoaded(() => reachNow(argv, options));
}

/** reachableCommands without waiting, inside whenParserLoaded (see analyzeNow). */
export function reachNow(argv: readonly string[], options?: SafetyOptions): Reach {
  const reach: Reach = { commands: [], unread: [] };
  const context = {
    runners: runnerTable(wrapperTable(options)),
    budget: new AnalysisBudget(),
    reach,
    unreadKeys: new Set<string>(),
  };
  matchArgv(argv, null, NO_DYNAMIC_WORDS, context, 0);
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
  "zsh-syntax",
]);

// Variables that make a program run code they name: bash sources BASH_ENV and imports
// BASH_FUNC_* functions, zsh reads ZDOTDIR/.zshenv, PS4 and PROMPT_COMMAND hold commands, SHELLOPTS/
// BASHOPTS can turn on xtrace (which expands PS4), fc runs FCEDIT; git runs GIT_PAGER, GIT_EDITOR,
// GIT_SSH_COMMAND, GIT_EXTERNAL_DIFF and the like, reads settings from GIT_CONFIG_*, and helpers from
// GIT_EXEC_PATH; many programs run PAGER, EDITOR and VISUAL, man runs MANPAGER and BROWSER and takes
// options from MANOPT, less runs LESSOPEN/LESSCLOSE and takes commands from LESS and LESSKEY*, vim runs
// VIMINIT/EXINIT, tar, zip and rsync take options or a remote shell from TAR_OPTIONS, ZIPOPT, RSYNC_RSH,
// sudo runs SUDO_ASKPASS; the dynamic loader loads LD_PRELOAD and LD_AUDIT into any program.
const COMMAND_VARIABLE = new RegExp(
  "^(BASH_ENV|ZDOTDIR|BASH_FUNC_[^=]*|PS4|PROMPT_COMMAND|SHELLOPTS|BASHOPTS|FCEDIT|GIT_EXEC_PATH|" +
    "GIT_CONFIG\\w*|GIT_PAGER|GIT_EDITOR|GIT_SEQUENCE_EDITOR|GIT_SSH|GIT_SSH_COMMAND|GIT_ASKPASS|" +
    "SSH_ASKPASS|SUDO_ASKPASS|GIT_EXTERNAL_DIFF|GIT_PROXY_COMMAND|PAGER|EDITOR|VISUAL|MANPAGER|MANOPT|" +
    "BROWSER|SYSTEMD_PAGER|LESS|LESSOPEN|LESSCLOSE|LESSKEY\\w*|VIMINIT|EXINIT|TAR_OPTIONS|ZIPOPT|" +
    "RSYNC_RSH|RSYNC_CONNECT_PROG|LD_PRELOAD|LD_AUDIT)(\\+?=|$)",
);

// Where the analysis of a script that is too deep or too large starts, for the unread part's text.
const PREVIEW_CHARS = 100;

function preview(script: string): string {
  return script.length > PREVIEW_CHARS ? `${script.slice(0, PREVIEW_CHARS)}…` : script;
}

function matchArgv(
  argv: readonly string[],
  nested: Analysis | null,
  dynamic: ReadonlySet<string>,
  context: Context,
  depth: number,
  inShell = false,
  zsh = false,
): DangerousMatch | null {
  const through = lookThrough(argv, context.runners);
  if (context.reach) {
    noteCommandVariables(argv, through.words, context);
    for (const note of through.unread) unread(context, note.reason, note.text);
  }
  let words = through.words;
  const first = words[0];
  if (first === undefined) {
    // `xargs env`, `xargs sudo`: the command comes from input. Plain `xargs` runs echo.
    const runners = through.runners.map((runner) => runner.name);
    if (runners.includes("xargs") && runners.at(-1) !== "xargs") {
      unread(context, "input-command", joinWords(argv));
    }
    return runnerOptions(through, dynamic, context, depth);
  }
  let name = executableName(first);
  // `git-push` (in git's exec path) is git running its built-in push.
  if (name.startsWith("git-") && isGitOwnCommand(["git", name.slice(4)], { index: 1, name: name.slice(4) })) {
    words = ["git", name.slice(4), ...words.slice(1)];
    name = "git";
  }
  const args = words.slice(1);
  if (context.reach) {
    noteRunnerStages(through, dynamic, context, inShell);
    reached(context.reach, words, dynamic, inShell && runsAsBuiltin(words, through.runners.length, through));
    noteUnreadCommand(words, dynamic, through, context);
  } else {
    const kind = directKind(name, words, args);
    if (kind !== null) return { kind, argv: [...words], reason: DANGEROUS_REASONS[kind] };
  }

  const fromRunners = runnerOptions(through, dynamic, context, depth);
  if (fromRunners !== null) return fromRunners;
  const evaluated = matchEvaluatedText(words, dynamic, context, depth, zsh);
  if (evaluated !== null) return evaluated;
  if (name === "find") {
    for (const command of findExecCommands(args)) {
      const found =
        depth + 1 < MAX_SCRIPT_DEPTH ? matchArgv(command, null, dynamic, context, depth + 1) : null;
      if (found !== null) return found;
    }
    return null;
  }
  if (name === "git") return matchGit(words, dynamic, context, depth);
  const shell = shellName(first);
  if (shell !== null) {
    return matchShell(argv, shell, words === argv ? nested : null, dynamic, through, context, depth);
  }
  const options = matchCommandOptions([name], words, commandOptions(name, words), dynamic, context, depth);
  if (options !== null) return options;
  for (const script of embeddedScripts(name, words)) {
    if (script.words.some((word) => dynamic.has(word))) unread(context, "dynamic-script", joinWords(words));
    // eval's words and a trap's action are run by the shell that runs this command.
    const found = matchScript(scriptSource(script.text), null, context, depth, zsh);
    if (found !== null) return found;
  }
  return null;
}

/**
 * Whether the command a runner stage (index, or every runner for the command behind them) names is run
 * by the shell itself: a builtin named bare, behind nothing but `command` and `builtin`.
 */
function runsAsBuiltin(words: readonly string[], stage: number, through: LookedThrough): boolean {
  const first = words[0];
  return (
    first !== undefined &&
    !first.includes("/") &&
    isShellBuiltin(first) &&
    through.runners.slice(0, stage).every((runner) => runner.name === "command" || runner.name === "builtin")
  );
}

/** The command options of the runners passed (`perf stat --pre CMD`, `valgrind --db-command=CMD`). */
function runnerOptions(
  through: LookedThrough,
  dynamic: ReadonlySet<string>,
  context: Context,
  depth: number,
): DangerousMatch | null {
  for (const runner of through.runners) {
    if (!runnerHasCommandOptions(runner.name)) continue;
    const words = runner.words.slice(runner.start);
    const found = matchCommandOptions(
      [runner.name],
      words,
      commandOptions(runner.name, words),
      dynamic,
      context,
      depth,
    );
    if (found !== null) return found;
  }
  return null;
}

/**
 * The options that give a program a command (see command-options.ts): the line is unread unless the
 * option runs its command as written, and shell text and programs in them are read as scripts.
 */
function matchCommandOptions(
  label: readonly string[],
  words: readonly string[],
  options: readonly CommandOption[],
  dynamic: ReadonlySet<string>,
  context: Context,
  depth: number,
): DangerousMatch | null {
  for (const option of options) {
    const written = option.indexes.map((index) => words[index] ?? "");
    const literal = written.every((word) => !dynamic.has(word));
    const text = joinWords(option.indexes[0] === 0 ? label : [...label, ...written]);
    if (option.kind !== "argv" && option.kind !== "reached-script") unread(context, "command-option", text);
    if (!literal) unread(context, "dynamic-script", text);
    if (depth + 1 >= MAX_SCRIPT_DEPTH) continue;
    let found: DangerousMatch | null = null;
    if (option.kind === "argv" && option.argv !== undefined) {
      found = matchArgv(option.argv, null, dynamic, context, depth + 1);
    } else if (
      literal &&
      option.value !== null &&
      (option.kind === "script" || option.kind === "program" || option.kind === "reached-script")
    ) {
      found = matchScript(option.value, null, context, depth + 1);
    }
    if (found !== null) return found;
  }
  return null;
}

// A subscript holding a command substitution: the shape of text bash runs when it evaluates it, as a
// name, an arithmetic operand, or the value of an integer variable (`declare -i x; x='a[$(rm f)]'`).
const EVALUABLE = /\[[^\]]*(\$\(|`)/;
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
function matchEvaluatedText(
  words: readonly string[],
  dynamic: ReadonlySet<string>,
  context: Context,
  depth: number,
  zsh: boolean,
): DangerousMatch | null {
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
    const found = matchSubstitutions(text, null, context, depth, zsh);
    if (found !== null) return found;
  }
  return null;
}

/**
 * The command substitutions written in text, read as scripts (of zsh with `zsh`), except those the
 * analysis read already.
 */
function matchSubstitutions(
  text: string,
  analysis: Analysis | null,
  context: Context,
  depth: number,
  zsh: boolean,
): DangerousMatch | null {
  if (depth + 1 >= MAX_SCRIPT_DEPTH) return null;
  for (const inner of substitutionsIn(text)) {
    if (analysis?.opaque.some((part) => part.text === `$(${inner})` || part.text === `\`${inner}\``))
      continue;
    const found = matchScript(inner, null, context, depth + 1, zsh);
    if (found !== null) return found;
  }
  return null;
}

function reached(
  reach: Reach,
  words: readonly string[],
  dynamic: ReadonlySet<string>,
  builtin = false,
): void {
  const indexes =
    dynamic.size === 0 ? [] : words.flatMap((word, index) => (dynamic.has(word) ? [index] : []));
  const command: ReachedCommand =
    indexes.length === 0 ? { argv: [...words] } : { argv: [...words], dynamic: indexes };
  if (builtin) command.builtin = true;
  reach.commands.push(command);
}

// A command behind more runners than this is reported as too deep rather than listed runner by runner.
const MAX_RUNNER_STAGES = 16;

/** Each runner's own command (`timeout 5 sudo ls`, then `sudo ls`), so rules about runners apply too. */
function noteRunnerStages(
  through: LookedThrough,
  dynamic: ReadonlySet<string>,
  context: Context,
  inShell: boolean,
): void {
  const reach = context.reach as Reach;
  if (through.runners.length > MAX_RUNNER_STAGES) {
    unread(context, "too-deep", preview(joinWords(through.runners[0]?.words ?? [])));
    return;
  }
  for (const [stage, runner] of through.runners.entries()) {
    const words = runner.words.slice(runner.start);
    reached(reach, words, dynamic, inShell && runsAsBuiltin(words, stage, through));
  }
}

/** Notes an assignment that makes a program run other code: before the command (`env`), or declared. */
function noteCommandVariables(argv: readonly string[], words: readonly string[], context: Context): void {
  const offset = argv.length - words.length;
  // words is argv itself when no runner was passed: nothing stands before the command then.
  const suffix =
    words === argv || (offset >= 0 && words.every((word, index) => word === argv[offset + index]));
  const before = suffix ? argv.slice(0, offset) : argv;
  const declared = words[0] !== undefined && DECLARATIONS.has(words[0]) ? words.slice(1) : [];
  for (const word of [...before, ...declared]) {
    if (COMMAND_VARIABLE.test(word)) unread(context, "command-variable", word);
  }
  // `env PATH=./bin ls`, `sudo PATH=… ls` (declarations are the builtins' findings).
  for (const word of before) if (PATH_ASSIGNMENT.test(word)) unread(context, "program-path", word);
}

const PATH_ASSIGNMENT = /^PATH\+?=/;

const PLAIN_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** Words as a shell would need them written, for the text of an unread part. */
function joinWords(words: readonly string[]): string {
  return words.map((word) => (PLAIN_WORD.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`)).join(" ");
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
  // `{}` is what find -exec and xargs -I put a file name in; a literal `{}` program does not exist; `jobs
  // -x` puts a process group id where a job spec (`%1`) is.
  if (
    dynamic.has(first) ||
    first.includes("{}") ||
    through.placeholders.some((placeholder) => first.includes(placeholder)) ||
    (first.startsWith("%") && through.runners.some((runner) => runner.name === "jobs"))
  ) {
    unread(context, "dynamic-command-name", first);
  }
  if ((name === "source" || name === ".") && args.length > 0) unread(context, "source", joinWords(words));
  const input = COMMAND_INPUT_PROGRAMS.get(name);
  // A word after an option may be its value: only the others count as operands.
  const operands = args.filter((arg, index) => !arg.startsWith("-") && !args[index - 1]?.startsWith("-"));
  if (input !== undefined && operands.length < (input.operandsRead ?? Number.POSITIVE_INFINITY)) {
    unread(context, "command-input", joinWords(words));
  }
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
function matchShell(
  argv: readonly string[],
  shell: string,
  nested: Analysis | null,
  dynamic: ReadonlySet<string>,
  through: LookedThrough,
  context: Context,
  depth: number,
): DangerousMatch | null {
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
  const zsh = invocation.shell === "zsh";
  for (const [index, reading] of readings.entries()) {
    const analysis = index === 0 && reading === invocation.script ? nested : null;
    const found = matchScript(reading, analysis, context, depth, zsh);
    if (found !== null) return found;
  }
  return null;
}

/**
 * git: its subcommand wherever the global options may leave it, and aliases given on the command line,
 * read as the shell script (`!…`) or git command they stand for.
 */
function matchGit(
  words: readonly string[],
  dynamic: ReadonlySet<string>,
  context: Context,
  depth: number,
): DangerousMatch | null {
  const subcommands = gitSubcommands(words);
  const settings = gitCommandLineSettings(words, subcommands.at(-1)?.index ?? words.length);
  const aliases = settings.filter(isGitAliasSetting);
  if (context.reach) {
    for (const { setting } of aliases) unread(context, "git-alias", setting);
    for (const setting of [
      ...settings,
      ...subcommands.flatMap(({ index }) => writtenSettings(words, index)),
    ]) {
      if (isGitProgramSetting(setting)) unread(context, "git-config", setting.setting);
    }
    for (const subcommand of subcommands) {
      if (dynamic.has(subcommand.name)) unread(context, "dynamic-command-name", subcommand.name);
      else if (!isGitOwnCommand(words, subcommand)) unread(context, "git-alias", `git ${subcommand.name}`);
      if (subcommand.index > 1)
        reached(context.reach, ["git", ...words.slice(subcommand.index)], NO_DYNAMIC_WORDS);
    }
  }
  for (const subcommand of subcommands) {
    const options = gitCommandOptions(words, subcommand.index);
    const label = ["git", subcommand.name];
    const found = matchCommandOptions(label, words, options, dynamic, context, depth);
    if (found !== null) return found;
  }
  for (const { value } of aliases) {
    if (value === null || depth + 1 >= MAX_SCRIPT_DEPTH) continue;
    const found = value.startsWith("!")
      ? matchScript(value.slice(1), null, context, depth + 1)
      : matchArgv(
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

/** What a script runs (a script zsh runs with `zsh`: it is read as zsh reads it). */
function matchScript(
  script: string,
  nested: Analysis | null,
  context: Context,
  depth: number,
  zsh = false,
): DangerousMatch | null {
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
    const found = matchSubstitutions(part.text, analysis, context, depth, zsh);
    if (found !== null) return found;
  }
  if (!context.reach) {
    const remote = remoteScript(analysis, context);
    if (remote !== null) return remote;
    const redirect = kernelSettingRedirect(analysis.redirects);
    if (redirect !== null) {
      const command = analysis.commands.find((candidate) => candidate.redirects.includes(redirect));
      const argv = [...(command?.argv ?? []), redirect.operator, redirect.target as string];
      return { kind: "kernel-setting", argv, reason: DANGEROUS_REASONS["kernel-setting"] };
    }
  }
  for (const command of analysis.commands) {
    const found = matchArgv(
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
    const found = matchScript(inner, null, context, depth + 1, zsh);
    if (found !== null) return found;
  }
  return null;
}
