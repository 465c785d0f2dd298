// What a command line runs, as far as reading it can tell (`reachableCommands`): the walk (walk.ts) with a
// visitor that lists every command reached and every construct that keeps the list from being complete.
import { whenParserLoaded } from "../analyze/analyze.js";
import { isShellBuiltin } from "./builtins.js";
import { executableName } from "./command-name.js";
import { DECLARATIONS, evaluatesOperands } from "./evaluation.js";
import { isGitAliasSetting, isGitOwnCommand, isGitProgramSetting } from "./git.js";
import { writtenSettings } from "./git-config-writes.js";
import { COMMAND_INPUT_PROGRAMS } from "./runner-table.js";
import type { LookedThrough } from "./runners.js";
import type { SafetyOptions } from "./safety-options.js";
import type { Reach, ReachedCommand, UnreadReason } from "./unread.js";
import {
  COMMAND_VARIABLE,
  joinWords,
  NO_DYNAMIC_WORDS,
  preview,
  type WalkedCommand,
  type WalkedGit,
  type WalkVisitor,
  walk,
  walkRunners,
} from "./walk.js";

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
  const visitor = new ReachVisitor();
  walk(argv, visitor, walkRunners(options));
  return visitor.reach;
}

class ReachVisitor implements WalkVisitor<never> {
  readonly reach: Reach = { commands: [], unread: [] };
  /** The unread parts collected so far, as `reason text` keys, so each is listed once. */
  readonly #unreadKeys = new Set<string>();

  unread(reason: UnreadReason, text: string): void {
    const key = `${reason} ${text}`;
    if (this.#unreadKeys.has(key)) return;
    this.#unreadKeys.add(key);
    this.reach.unread.push({ reason, text });
  }

  command({ argv, through, words, dynamic, inShell }: WalkedCommand): null {
    this.#noteCommandVariables(argv, through.words);
    for (const note of through.unread) this.unread(note.reason, note.text);
    if (words.length === 0) {
      // `xargs env`, `xargs sudo`: the command comes from input. Plain `xargs` runs echo.
      const runners = through.runners.map((runner) => runner.name);
      if (runners.includes("xargs") && runners.at(-1) !== "xargs")
        this.unread("input-command", joinWords(argv));
      return null;
    }
    this.#noteRunnerStages(through, dynamic, inShell);
    this.#reached(words, dynamic, inShell && runsAsBuiltin(words, through.runners.length, through));
    this.#noteUnreadCommand(words, dynamic, through);
    return null;
  }

  git({ words, dynamic, subcommands, settings }: WalkedGit): void {
    for (const { setting } of settings.filter(isGitAliasSetting)) this.unread("git-alias", setting);
    const written = subcommands.flatMap(({ index }) => writtenSettings(words, index));
    for (const setting of [...settings, ...written]) {
      if (isGitProgramSetting(setting)) this.unread("git-config", setting.setting);
    }
    for (const subcommand of subcommands) {
      if (dynamic.has(subcommand.name)) this.unread("dynamic-command-name", subcommand.name);
      else if (!isGitOwnCommand(words, subcommand)) this.unread("git-alias", `git ${subcommand.name}`);
      if (subcommand.index > 1) this.#reached(["git", ...words.slice(subcommand.index)], NO_DYNAMIC_WORDS);
    }
  }

  #reached(words: readonly string[], dynamic: ReadonlySet<string>, builtin = false): void {
    const indexes =
      dynamic.size === 0 ? [] : words.flatMap((word, index) => (dynamic.has(word) ? [index] : []));
    const command: ReachedCommand =
      indexes.length === 0 ? { argv: [...words] } : { argv: [...words], dynamic: indexes };
    if (builtin) command.builtin = true;
    this.reach.commands.push(command);
  }

  /** Each runner's own command (`timeout 5 sudo ls`, then `sudo ls`), so rules about runners apply too. */
  #noteRunnerStages(through: LookedThrough, dynamic: ReadonlySet<string>, inShell: boolean): void {
    if (through.runners.length > MAX_RUNNER_STAGES) {
      this.unread("too-deep", preview(joinWords(through.runners[0]?.words ?? [])));
      return;
    }
    for (const [stage, runner] of through.runners.entries()) {
      const words = runner.words.slice(runner.start);
      this.#reached(words, dynamic, inShell && runsAsBuiltin(words, stage, through));
    }
  }

  /** Notes an assignment that makes a program run other code: before the command (`env`), or declared. */
  #noteCommandVariables(argv: readonly string[], words: readonly string[]): void {
    const offset = argv.length - words.length;
    // words is argv itself when no runner was passed: nothing stands before the command then.
    const suffix =
      words === argv || (offset >= 0 && words.every((word, index) => word === argv[offset + index]));
    const before = suffix ? argv.slice(0, offset) : argv;
    const declared = words[0] !== undefined && DECLARATIONS.has(words[0]) ? words.slice(1) : [];
    for (const word of [...before, ...declared]) {
      if (COMMAND_VARIABLE.test(word)) this.unread("command-variable", word);
    }
    // `env PATH=./bin ls`, `sudo PATH=… ls` (declarations are the builtins' findings).
    for (const word of before) if (PATH_ASSIGNMENT.test(word)) this.unread("program-path", word);
  }

  /** Notes what makes one command's effect unknown: its name, `source`, aliases, input-fed commands. */
  #noteUnreadCommand(words: readonly string[], dynamic: ReadonlySet<string>, through: LookedThrough): void {
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
      this.unread("dynamic-command-name", first);
    }
    if ((name === "source" || name === ".") && args.length > 0) this.unread("source", joinWords(words));
    const input = COMMAND_INPUT_PROGRAMS.get(name);
    // A word after an option may be its value: only the others count as operands.
    const operands = args.filter((arg, index) => !arg.startsWith("-") && !args[index - 1]?.startsWith("-"));
    if (input !== undefined && operands.length < (input.operandsRead ?? Number.POSITIVE_INFINITY)) {
      this.unread("command-input", joinWords(words));
    }
    const changesNames =
      (name === "alias" && args.some((arg) => arg.includes("="))) ||
      (name === "hash" && args.some((arg) => /^-[^-]*p/.test(arg))) ||
      (name === "enable" && args.some((arg) => !/^-[aps]+$/.test(arg)));
    if (changesNames) this.unread("alias", joinWords(words));
    if (evaluatesOperands(name, args)) this.unread("dynamic-script", joinWords(words));
  }
}

// A command behind more runners than this is reported as too deep rather than listed runner by runner.
const MAX_RUNNER_STAGES = 16;

const PATH_ASSIGNMENT = /^PATH\+?=/;

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
