// Reading the runners of runner-table.ts, and the runners that name their command in an option or in
// their own name (start-stop-daemon, coreutils, the dynamic loader).
import { type OptionGrammar, skipOptions } from "./options.js";
import type { RunnerEntry } from "./runner-table.js";

/** What keeps a runner passed from being read completely (see `LookedThrough.unread`). */
export interface RunnerNote {
  readonly reason: "command-option" | "program-path";
  readonly text: string;
}

/** What a runner that hands its command to a shell runs: that shell, with the command as `-c` script. */
export function shell(script: string | null | undefined): readonly string[] {
  return script === null || script === undefined ? ["sh"] : ["sh", "-c", script];
}

// The dynamic loader runs the program named by its first operand (`/lib64/ld-linux-x86-64.so.2
// /bin/rm f`): ld.so(8).
export const DYNAMIC_LOADER: RegExp = /^ld(-linux[\w.-]*|-musl[\w.-]*)?\.so(\.\d+)*$/;
export const LOADER_ENTRY: RunnerEntry = {
  name: "ld.so",
  flags: [
    "--list",
    "--verify",
    "--inhibit-cache",
    "--list-tunables",
    "--list-diagnostics",
    "--help",
    "--version",
  ],
  valueOptions: [
    "--library-path",
    "--inhibit-rpath",
    "--audit",
    "--preload",
    "--argv0",
    "--glibc-hwcaps-prefix",
    "--glibc-hwcaps-mask",
  ],
  source: "ld.so(8): ld.so [OPTION]... EXECUTABLE [ARG]...",
};

/**
 * One runner of runner-table.ts at `start`: null when it does not run a command here (its subcommand
 * is not there), else where its command starts, or the shell it hands its command to. Options it does
 * not list, and a subcommand found past them, are noted as unread.
 */
export function tableStep(
  entry: RunnerEntry,
  grammar: OptionGrammar,
  words: readonly string[],
  start: number,
  notes: RunnerNote[],
): { readonly next: number } | { readonly command: readonly string[] } | null {
  const text = (end: number): string => words.slice(start, Math.max(end, start + 1)).join(" ");
  let from = start + 1;
  let subcommand: readonly string[] | undefined;
  if (entry.subcommands !== undefined) {
    // dtach and abduco take their mode as an option word first.
    const optionMode = entry.subcommands.some((sequence) => sequence[0]?.startsWith("-") === true);
    const at = optionMode
      ? start + 1
      : (skipOptions(words, start + 1, grammar, { strict: false }) ?? words.length);
    subcommand = entry.subcommands.find((sequence) =>
      sequence.every((word, index) => words[at + index] === word),
    );
    const first = words[at];
    if (subcommand === undefined && first !== undefined && entry.ownCommands?.includes(first) === false) {
      // `pnpm echo hi`: a word that is none of its commands is a command it runs (most often a script of
      // package.json, which is the project's own content like any file it runs).
      return { next: at };
    }
    if (subcommand === undefined) {
      // `npm --prefix x exec rm`: an option whose value is not known may have hidden the subcommand.
      const names = new Set(entry.subcommands.map((sequence) => sequence[0]));
      if (at > start + 1 && words.slice(at).some((word) => names.has(word))) {
        notes.push({ reason: "command-option", text: text(words.length) });
      }
      return null;
    }
    from = at + subcommand.length;
  }
  const end = skipOptions(words, from, grammar, { strict: false }) ?? words.length;
  if (skipOptions(words, from, grammar, { strict: true }) === null) {
    notes.push({ reason: "command-option", text: text(end + 1) });
  }
  if (entry.changesPath === true) notes.push({ reason: "program-path", text: text(end) });
  if (entry.after === "--") {
    const marker = words.indexOf("--", from);
    return marker === -1 ? { command: shell(null) } : { next: marker + 1 };
  }
  // Options may follow the runner's own operands too (`setarch ARCH -R CMD`).
  const own = end + (entry.operands ?? 0);
  const next = own === end ? end : (skipOptions(words, own, grammar, { strict: false }) ?? words.length);
  if (own !== end && skipOptions(words, own, grammar, { strict: true }) === null) {
    notes.push({ reason: "command-option", text: text(next + 1) });
  }
  const options = words.slice(from, end);
  const shellText =
    entry.shell !== undefined ||
    (subcommand !== undefined && entry.shellSubcommands?.includes(subcommand[0] as string) === true) ||
    options.some((word) =>
      (entry.shellOptions ?? []).some(
        (option) =>
          word === option ||
          (option.length === 2 && /^-[^-]/.test(word) && word.slice(1).includes(option.slice(1))),
      ),
    );
  const operands = words.slice(next);
  if (shellText) {
    return {
      command: shell(operands.length === 0 ? null : operands.join(entry.shell === "each" ? "\n" : " ")),
    };
  }
  if (operands.length === 0 && entry.bareShell === true) return { command: shell(null) };
  return { next };
}

// bwrap(1)'s options that take two values and one; the others take none.
const BWRAP_TWO_VALUES: ReadonlySet<string> = new Set([
  "--setenv",
  "--bind",
  "--bind-try",
  "--dev-bind",
  "--dev-bind-try",
  "--ro-bind",
  "--ro-bind-try",
  "--bind-fd",
  "--ro-bind-fd",
  "--file",
  "--bind-data",
  "--ro-bind-data",
  "--symlink",
  "--chmod",
]);
const BWRAP_ONE_VALUE: ReadonlySet<string> = new Set([
  "--args",
  "--argv0",
  "--userns",
  "--userns2",
  "--pidns",
  "--uid",
  "--gid",
  "--hostname",
  "--chdir",
  "--unsetenv",
  "--lock-file",
  "--sync-fd",
  "--remount-ro",
  "--exec-label",
  "--file-label",
  "--proc",
  "--dev",
  "--tmpfs",
  "--mqueue",
  "--dir",
  "--seccomp",
  "--add-seccomp-fd",
  "--block-fd",
  "--userns-block-fd",
  "--info-fd",
  "--json-status-fd",
  "--cap-add",
  "--cap-drop",
  "--perms",
  "--size",
]);

/** `bwrap [OPTION...] [--] COMMAND [ARGS...]`: the command after its options (bwrap(1)). */
function bwrapCommand(words: readonly string[], start: number): readonly string[] | null {
  let index = start + 1;
  while (index < words.length) {
    const word = words[index] as string;
    if (word === "--") return words.slice(index + 1);
    if (!word.startsWith("--")) return words.slice(index);
    index += BWRAP_TWO_VALUES.has(word) ? 3 : BWRAP_ONE_VALUE.has(word) ? 2 : 1;
  }
  return null;
}

// start-stop-daemon(8)'s short options that take a value.
const START_STOP_VALUE_LETTERS = "xapnugrdcNPIkRs";

/**
 * The command of a runner that names it in an option or in its own name: `start-stop-daemon --start
 * --exec PATH [--startas PATH] -- ARGS` (start-stop-daemon(8)), GNU coreutils' multi-call binary
 * (`coreutils --coreutils-prog=rm f`) and uutils' (`coreutils rm f`), bwrap's command after its options,
 * `runcon CONTEXT COMMAND`, capsh's `-- ARGS` for bash, `npm explore PKG -- CMD`.
 * Null for any other program, or when none follows.
 */
export function specialCommand(
  name: string,
  words: readonly string[],
  start: number,
): readonly string[] | null {
  if (name === "coreutils") {
    const first = words[start + 1];
    if (first === undefined) return null;
    const prog = /^--coreutils-prog(?:-shebang)?=(.*)$/s.exec(first);
    return prog === null ? words.slice(start + 1) : [prog[1] as string, ...words.slice(start + 2)];
  }
  if (name === "bwrap") return bwrapCommand(words, start);
  // npm-explore(1): `npm explore PKG -- CMD` runs CMD with a shell in the package's directory, and with
  // no command starts that shell (npm takes `explo` and `explor` for it too).
  if (name === "npm" && ["explore", "explor", "explo"].includes(words[start + 1] ?? "")) {
    const marker = words.indexOf("--", start + 2);
    const command = marker === -1 ? [] : words.slice(marker + 1);
    return command.length === 0 ? ["sh"] : ["sh", "-c", command.join(" ")];
  }
  // capsh(1): the words after `--` are given to /bin/bash (`capsh -- -c 'rm f'`).
  if (name === "capsh") {
    const marker = words.indexOf("--", start + 1);
    return marker === -1 ? null : ["bash", ...words.slice(marker + 1)];
  }
  // `runcon CONTEXT COMMAND`; with options, runner-table.ts reads it.
  if (name === "runcon") {
    const context = words[start + 1];
    return context === undefined || context.startsWith("-") ? null : words.slice(start + 2);
  }
  if (name !== "start-stop-daemon") return null;
  let program: string | null = null;
  let startAs: string | null = null;
  let starts = false;
  let end = words.length;
  const take = (option: "exec" | "startas", value: string | null): void => {
    if (option === "exec") program = value;
    else startAs = value;
  };
  for (let index = start + 1; index < words.length; index += 1) {
    const word = words[index] as string;
    if (word === "--") {
      end = index + 1;
      break;
    }
    if (word === "--start") starts = true;
    const long = /^--(exec|startas)(?:=(.*))?$/s.exec(word);
    if (long !== null) {
      const value = long[2] ?? words[index + 1] ?? null;
      if (long[2] === undefined) index += 1;
      take(long[1] as "exec" | "startas", value);
      continue;
    }
    if (word.startsWith("--") || !word.startsWith("-")) continue;
    // A short cluster (`-Sx PATH`, `-Sx/bin/rm`): a letter with a value ends it.
    for (let at = 1; at < word.length; at += 1) {
      const letter = word[at] as string;
      if (letter === "S") starts = true;
      if (!START_STOP_VALUE_LETTERS.includes(letter)) continue;
      const attached = at + 1 < word.length ? word.slice(at + 1) : null;
      if (attached === null) index += 1;
      const value = attached ?? words[index] ?? null;
      if (letter === "x") take("exec", value);
      if (letter === "a") take("startas", value);
      break;
    }
  }
  const command = startAs ?? program;
  return starts && command !== null ? [command, ...words.slice(end)] : null;
}
