// Programs that run the command in their operands, looked through when searching for danger and for
// what a command runs: `sudo -u root env FOO=1 timeout 5 rm -rf x` is a forced rm. Unlike the wrappers
// of the known-safe check, these grammars list every option with a value (time's `-o FILE` too) so the
// value is not taken for the command, and unknown options are skipped rather than trusted. Runners that
// hand a string to a shell (`script -c`, `flock FILE -c`, `su -c`, `sg`, `parallel`) become that shell.
// Bash's `jobs -x CMD` runs CMD, zsh's precommand modifiers (`noglob`, `nocorrect`, `-`) run the command
// after them, and `perf record|stat|trace` runs the command it measures.
import { executableName } from "./command-name.js";
import { ASSIGNMENT, type OptionGrammar, type ReadOption, readOption, skipOptions } from "./options.js";
import { RUNNER_TABLE, type RunnerEntry } from "./runner-table.js";
import {
  DYNAMIC_LOADER,
  LOADER_ENTRY,
  type RunnerNote,
  shell,
  specialCommand,
  tableStep,
} from "./table-runners.js";
import type { WrapperTable } from "./wrappers.js";

interface Runner {
  readonly grammar: OptionGrammar;
  /** Operands of the runner itself before the command (timeout's DURATION, chroot's NEWROOT). */
  readonly operands: number;
  readonly assignments: boolean;
  /** A runner of runner-table.ts, read as its entry says. */
  readonly entry?: RunnerEntry;
}

function runner(
  flags: readonly string[],
  valueOptions: readonly string[],
  operands = 0,
  assignments = false,
): Runner {
  return { grammar: { flags: new Set(flags), valueOptions: new Set(valueOptions) }, operands, assignments };
}

const BUILT_IN_RUNNERS: ReadonlyMap<string, Runner> = new Map([
  [
    "sudo",
    runner(
      [
        ..."ABbEeHhiKklNnPSsVv".split("").map((letter) => `-${letter}`),
        "--askpass",
        "--bell",
        "--background",
        "--preserve-env",
        "--edit",
        "--set-home",
        "--help",
        "--login",
        "--remove-timestamp",
        "--reset-timestamp",
        "--list",
        "--no-update",
        "--non-interactive",
        "--preserve-groups",
        "--stdin",
        "--shell",
        "--version",
        "--validate",
      ],
      [
        ..."CDgpRrTtUu".split("").map((letter) => `-${letter}`),
        "--close-from",
        "--chdir",
        "--group",
        "--host",
        "--prompt",
        "--chroot",
        "--role",
        "--command-timeout",
        "--type",
        "--other-user",
        "--user",
      ],
      0,
      true,
    ),
  ],
  ["doas", runner(["-n", "-s", "-L"], ["-u", "-C"])],
  [
    "xargs",
    runner(
      [
        ..."0eilioprtx".split("").map((letter) => `-${letter}`),
        "--null",
        "--eof",
        "--replace",
        "--max-lines",
        "--open-tty",
        "--interactive",
        "--no-run-if-empty",
        "--verbose",
        "--exit",
        "--show-limits",
      ],
      [
        ..."adEILnPs".split("").map((letter) => `-${letter}`),
        "--arg-file",
        "--delimiter",
        "--max-args",
        "--max-procs",
        "--max-chars",
        "--process-slot-var",
      ],
    ),
  ],
  [
    "timeout",
    runner(
      ["--preserve-status", "--foreground", "-v", "--verbose"],
      ["-s", "--signal", "-k", "--kill-after"],
      1,
    ),
  ],
  [
    "time",
    runner(
      ["-p", "--portability", "-v", "--verbose", "-q", "--quiet", "-a", "--append"],
      ["-f", "--format", "-o", "--output"],
    ),
  ],
  ["nice", runner([], ["-n", "--adjustment"])],
  ["nohup", runner([], [])],
  ["stdbuf", runner([], ["-i", "--input", "-o", "--output", "-e", "--error"])],
  ["command", runner(["-p", "-v", "-V"], [])],
  ["builtin", runner([], [])],
  ["exec", runner(["-c", "-l"], ["-a"])],
  [
    "ionice",
    runner(
      ["-t", "--ignore"],
      ["-c", "--class", "-n", "--classdata", "-p", "--pid", "-P", "--pgid", "-u", "--uid"],
    ),
  ],
  ["setsid", runner(["-c", "--ctty", "-f", "--fork", "-w", "--wait"], [])],
  ["chroot", runner(["--skip-chdir"], ["--userspec", "--groups"], 1)],
  ["busybox", runner([], [])],
  ["coproc", runner([], [])],
  ["flock", runner([], ["-w", "--wait", "--timeout", "-E", "--conflict-exit-code"], 1)],
  [
    "unshare",
    runner(
      [],
      [
        ..."SGRwl".split("").map((letter) => `-${letter}`),
        "--setuid",
        "--setgid",
        "--root",
        "--wd",
        "--propagation",
        "--setgroups",
        "--map-user",
        "--map-group",
        "--map-users",
        "--map-groups",
      ],
    ),
  ],
  ["taskset", runner(["-a", "--all-tasks", "-c", "--cpu-list", "-p", "--pid"], [], 1)],
  ["chrt", runner([], ["-T", "--sched-runtime", "-P", "--sched-period", "-D", "--sched-deadline"], 1)],
  [
    "nsenter",
    runner(
      [],
      ["-t", "--target", "-S", "--setuid", "-G", "--setgid", "-W", "--wdns", "--env", "--user-parent"],
    ),
  ],
  [
    "setpriv",
    runner(
      [],
      [
        "--ruid",
        "--euid",
        "--reuid",
        "--rgid",
        "--egid",
        "--regid",
        "--groups",
        "--inh-caps",
        "--ambient-caps",
        "--bounding-set",
        "--securebits",
        "--pdeathsig",
        "--selinux-label",
        "--apparmor-profile",
        "--landlock-access",
        "--landlock-rule",
      ],
    ),
  ],
  ["prlimit", runner([], ["-p", "--pid"])],
  ["numactl", runner([], ["-C", "-N", "-m", "-i", "-p", "-P", "-w"])],
  ["strace", runner([], ["-e", "-o", "-p", "-s", "-u", "-E", "-a", "-b", "-I", "-O", "-S", "-X", "-P"])],
  ["ltrace", runner([], ["-e", "-o", "-p", "-s", "-u", "-a", "-A", "-D", "-F", "-l", "-n", "-w", "-x"])],
  ["valgrind", runner([], [])],
  [
    "systemd-run",
    runner(
      [],
      ["-u", "--unit", "-p", "--property", "-E", "--setenv", "-D", "--working-directory", "-M", "-H"],
    ),
  ],
  ["fakeroot", runner([], ["-l", "--lib", "--faked", "-s", "-i", "-b"])],
  ["xvfb-run", runner([], ["-e", "--error-file", "-f", "--auth-file", "-n", "-s", "-p", "-w"])],
  ["firejail", runner([], [])],
  ["pkexec", runner([], ["--user"])],
  ["unbuffer", runner([], [])],
  ["caffeinate", runner([], ["-t", "-w"])],
  ["catchsegv", runner([], [])],
  ["torsocks", runner([], ["-u", "-p", "-a", "-P"])],
  ["proxychains", runner([], ["-f"])],
  ["proxychains4", runner([], ["-f"])],
  ["noglob", runner([], [])],
  ["nocorrect", runner([], [])],
  ["-", runner([], [])],
]);

// `jobs -x CMD ARGS`: bash replaces job specs in the words and runs CMD.
const JOBS_GRAMMAR: OptionGrammar = {
  flags: new Set(["-l", "-n", "-p", "-r", "-s", "-x"]),
  valueOptions: new Set(),
};

// The options of `perf record`, `perf stat` and `perf trace` that take a value, so it is not taken for the
// command they measure.
const PERF_SUBCOMMANDS: ReadonlySet<string> = new Set(["record", "stat", "trace"]);
const PERF_GRAMMAR: OptionGrammar = {
  flags: new Set(),
  valueOptions: new Set([
    ..."eptCrGoxIMDFcmujk".split("").map((letter) => `-${letter}`),
    "--event",
    "--pid",
    "--tid",
    "--cpu",
    "--repeat",
    "--cgroup",
    "--output",
    "--field-separator",
    "--interval-print",
    "--metrics",
    "--pre",
    "--post",
    "--log-fd",
    "--delay",
    "--freq",
    "--count",
    "--mmap-pages",
    "--uid",
    "--branch-filter",
    "--call-graph",
    "--clockid",
    "--max-size",
    "--affinity",
    "--control",
    "--filter",
    "--duration",
    "--max-events",
    "--filter-pids",
    "--max-stack",
    "--min-stack",
    "--for-each-cgroup",
    "--td-level",
    "--realtime",
  ]),
};

// Options after which sudo and doas start a shell, reading commands from input when no command follows.
const SHELL_OPTIONS: ReadonlySet<string> = new Set(["-s", "--shell", "-i", "--login"]);

// script(1) runs `-c CMD` with the user's shell, and a shell reading input without it.
const SCRIPT_GRAMMAR: OptionGrammar = {
  flags: new Set(["-a", "--append", "-e", "--return", "-f", "--flush", "-q", "--quiet"]),
  valueOptions: new Set([
    "-c",
    "--command",
    "-E",
    "--echo",
    "-T",
    "--log-timing",
    "-I",
    "--log-in",
    "-O",
    "--log-out",
    "-B",
    "--log-io",
    "-m",
    "--logging-format",
    "-t",
    "--timing",
  ]),
};

// su and runuser run `-c CMD` with the target user's shell, and that shell reading input without it;
// `runuser -u USER CMD` runs CMD itself.
const SU_GRAMMAR: OptionGrammar = {
  flags: new Set(["-l", "--login", "-m", "-p", "--preserve-environment", "-P", "--pty", "-f", "--fast"]),
  valueOptions: new Set([
    "-c",
    "--command",
    "--session-command",
    "-s",
    "--shell",
    "-g",
    "--group",
    "-G",
    "--supp-group",
    "-w",
    "--whitelist-environment",
    "-u",
    "--user",
  ]),
};

// GNU parallel: the command is every word after the options and before the first `:::`-style argument
// list, run by a shell.
const PARALLEL_GRAMMAR: OptionGrammar = {
  flags: new Set(),
  valueOptions: new Set([
    ..."jSaCdEIinNPsL".split("").map((letter) => `-${letter}`),
    "--jobs",
    "--sshlogin",
    "--sshloginfile",
    "--arg-file",
    "--colsep",
    "--delimiter",
    "--max-args",
    "--max-procs",
    "--max-chars",
    "--max-lines",
    "--tmpdir",
    "--results",
    "--joblog",
    "--timeout",
    "--delay",
    "--retries",
    "--workdir",
    "--basefile",
    "--env",
    "--tagstring",
  ]),
};
const PARALLEL_INPUTS: ReadonlySet<string> = new Set([":::", "::::", ":::+", "::::+"]);

const ENV_GRAMMAR: OptionGrammar = {
  flags: new Set([
    "-i",
    "-0",
    "-v",
    "--ignore-environment",
    "--null",
    "--debug",
    "--list-signal-handling",
    "--ignore-signal",
    "--default-signal",
    "--block-signal",
  ]),
  valueOptions: new Set([
    "-u",
    "--unset",
    "-C",
    "--chdir",
    "-S",
    "--split-string",
    "-a",
    "--argv0",
    "-P",
    "-L",
  ]),
};

export const WATCH_GRAMMAR: OptionGrammar = {
  flags: new Set([..."bcCdegtxprw"].map((letter) => `-${letter}`)),
  valueOptions: new Set(["-n", "--interval", "-q", "--equexit"]),
};

const PLAIN_WORD = /^[A-Za-z0-9_./:@%+,=-]+$/;

// Every danger search and reach listing needs the table of the wrappers it was given, most often the
// default ones: each wrapper table's runner table is built once.
const RUNNER_TABLES = new WeakMap<WrapperTable, ReadonlyMap<string, Runner>>();

/** Runner table for the danger search: the built-ins plus any configured wrappers they do not cover. */
export function runnerTable(wrappers: WrapperTable): ReadonlyMap<string, Runner> {
  let table = RUNNER_TABLES.get(wrappers);
  if (table === undefined) {
    table = buildRunnerTable(wrappers);
    RUNNER_TABLES.set(wrappers, table);
  }
  return table;
}

function buildRunnerTable(wrappers: WrapperTable): ReadonlyMap<string, Runner> {
  const table = new Map<string, Runner>();
  // A wrapper the configuration declares is read as declared, in place of the table's entry.
  for (const entry of RUNNER_TABLE) table.set(entry.name, tableRunner(entry));
  for (const [name, wrapper] of wrappers) {
    table.set(name, { grammar: wrapper.grammar, operands: wrapper.operands, assignments: false });
  }
  for (const [name, builtIn] of BUILT_IN_RUNNERS) table.set(name, builtIn);
  return table;
}

function tableRunner(entry: RunnerEntry): Runner {
  return {
    grammar: { flags: new Set(entry.flags ?? []), valueOptions: new Set(entry.valueOptions ?? []) },
    operands: entry.operands ?? 0,
    assignments: false,
    entry,
  };
}

const LOADER_RUNNER: Runner = tableRunner(LOADER_ENTRY);

// `env -S STRING` words are split into a new argv; a chain of them is followed this far.
const MAX_SPLIT_STRINGS = 8;

/** The index where the command env runs starts, and `-S STRING` (`--split-string`) split into words. */
function envCommand(words: readonly string[], start: number): { next: number; split: string[] | null } {
  let split: string[] | null = null;
  let index = start + 1;
  while (index < words.length) {
    const word = words[index] as string;
    if (word === "--") {
      index += 1;
      break;
    }
    if (word === "-" || (!word.startsWith("-") && ASSIGNMENT.test(word))) {
      index += 1;
      continue;
    }
    if (!word.startsWith("-")) break;
    const option = readOption(words, index, ENV_GRAMMAR, false) as ReadOption;
    if (option.valueOption === "-S" || option.valueOption === "--split-string") {
      split = (option.value ?? "").split(/\s+/).filter((part) => part !== "");
    }
    index += option.width;
  }
  return { next: index, split };
}

/** One runner passed: its file name, and where it stands (`words.slice(start)` is the runner's command). */
interface RunnerUse {
  readonly name: string;
  readonly words: readonly string[];
  readonly start: number;
}

export interface LookedThrough {
  /** The command behind the runners: argv itself when there is none, empty when none follows them. */
  readonly words: readonly string[];
  /** The runners passed, in order. */
  readonly runners: readonly RunnerUse[];
  /** Strings xargs replaces with its input in the command's words (`-I {}`). */
  readonly placeholders: readonly string[];
  /**
   * What keeps the runners passed from being read completely: an option runner-table.ts does not list
   * for a runner (`command-option`), or a runner that puts a project's bin directory first on PATH
   * (`program-path`).
   */
  readonly unread: readonly RunnerNote[];
}

/** The `-c` (`--command`) value of su, runuser or script among the options from start, if any. */
function commandOption(words: readonly string[], start: number, grammar: OptionGrammar): string | null {
  for (let index = start; index < words.length; ) {
    const word = words[index] as string;
    if (word === "--" || !word.startsWith("-") || word === "-") {
      index += 1;
      continue;
    }
    const option = readOption(words, index, grammar, false) as ReadOption;
    if (option.valueOption === "-c" || option.valueOption === "--command") return option.value;
    index += option.width;
  }
  return null;
}

/** The replace strings of xargs' options between start and end (`-I R`, `-iR`, `--replace[=R]`, `-J R`). */
function xargsPlaceholders(words: readonly string[], start: number, end: number): string[] {
  const found: string[] = [];
  for (let index = start; index < end; index += 1) {
    const word = words[index] as string;
    if (word === "--replace" || word.startsWith("--replace=")) {
      found.push(word.length > "--replace=".length ? word.slice("--replace=".length) : "{}");
      continue;
    }
    if (!word.startsWith("-") || word.startsWith("--")) continue;
    for (let at = 1; at < word.length; at += 1) {
      const letter = word[at];
      if (letter === "i") {
        found.push(at + 1 < word.length ? word.slice(at + 1) : "{}");
        break;
      }
      if (letter === "I" || letter === "J") {
        found.push(at + 1 < word.length ? word.slice(at + 1) : (words[index + 1] ?? ""));
        break;
      }
    }
  }
  return found.filter((placeholder) => placeholder !== "");
}

/**
 * The command behind every leading runner (`sudo -u root nice -n 5 rm -rf x` → `rm -rf x`; argv itself
 * when there is none). Linear in argv's length: each step moves past at least the runner's name.
 */
export function lookThrough(argv: readonly string[], runners: ReadonlyMap<string, Runner>): LookedThrough {
  let words = argv;
  let start = 0;
  let splits = 0;
  const passed: RunnerUse[] = [];
  const placeholders: string[] = [];
  const notes: RunnerNote[] = [];
  const result = (command: readonly string[]): LookedThrough => ({
    words: command,
    runners: passed,
    placeholders,
    unread: notes,
  });
  // The last word with shell syntax in it, found once per argv (for watch).
  let lastSpecial: number | null = null;
  for (;;) {
    const first = words[start];
    if (first === undefined) return result([]);
    const name = executableName(first);
    if (name === "env") {
      passed.push({ name, words, start });
      const { next, split } = envCommand(words, start);
      if (split !== null && splits < MAX_SPLIT_STRINGS) {
        splits += 1;
        words = [...split, ...words.slice(next)];
        start = 0;
        lastSpecial = null;
      } else {
        start = next;
      }
      continue;
    }
    if (name === "watch") {
      // watch runs its words joined by spaces through `sh -c`; words without shell syntax mean the same
      // as an argv, so look through it here. Others are read as a script by the caller.
      const commandStart = skipOptions(words, start + 1, WATCH_GRAMMAR, { strict: false }) ?? words.length;
      lastSpecial ??= words.findLastIndex((word) => !PLAIN_WORD.test(word));
      if (lastSpecial >= commandStart) return result(start === 0 ? words : words.slice(start));
      passed.push({ name, words, start });
      start = commandStart;
      continue;
    }
    if (name === "jobs" || (name === "perf" && PERF_SUBCOMMANDS.has(words[start + 1] ?? ""))) {
      const optionsFrom = name === "perf" ? start + 2 : start + 1;
      const grammar = name === "perf" ? PERF_GRAMMAR : JOBS_GRAMMAR;
      const afterOptions = skipOptions(words, optionsFrom, grammar, { strict: false }) ?? words.length;
      const runs =
        name === "perf" || words.slice(optionsFrom, afterOptions).some((word) => /^-[^-]*x/.test(word));
      if (!runs) return result(start === 0 ? words : words.slice(start));
      passed.push({ name, words, start });
      start = afterOptions;
      continue;
    }
    const handedToShell = shellCommand(name, words, start);
    if (handedToShell !== null) {
      passed.push({ name, words, start });
      return result(handedToShell);
    }
    const special = specialCommand(name, words, start);
    if (special !== null) {
      passed.push({ name, words, start });
      words = special;
      start = 0;
      lastSpecial = null;
      continue;
    }
    const found = runners.get(name) ?? (DYNAMIC_LOADER.test(name) ? LOADER_RUNNER : undefined);
    if (found === undefined) return result(start === 0 ? words : words.slice(start));
    if (found.entry !== undefined) {
      const step = tableStep(found.entry, found.grammar, words, start, notes);
      if (step === null) return result(start === 0 ? words : words.slice(start));
      passed.push({ name, words, start });
      if ("command" in step) return result(step.command);
      start = step.next;
      continue;
    }
    passed.push({ name, words, start });
    const afterOptions =
      skipOptions(words, start + 1, found.grammar, { strict: false, assignments: found.assignments }) ??
      words.length;
    if (name === "xargs") placeholders.push(...xargsPlaceholders(words, start + 1, afterOptions));
    if ((name === "sudo" || name === "doas") && afterOptions >= words.length) {
      const options = words.slice(start + 1, afterOptions);
      if (options.some((word) => SHELL_OPTIONS.has(word) || /^-[^-]*[si]/.test(word)))
        return result(shell(null));
    }
    const next = afterOptions + found.operands;
    // `flock FILE -c CMD` runs CMD with sh.
    if (name === "flock" && (words[next] === "-c" || words[next] === "--command")) {
      return result(shell(words[next + 1] ?? null));
    }
    start = next;
  }
}

/**
 * What su, runuser, script, sg and parallel at `start` run, as a shell invocation, or null for any other
 * program (or `runuser -u USER CMD`, which runs CMD itself and is looked through as a runner).
 */
function shellCommand(name: string, words: readonly string[], start: number): readonly string[] | null {
  switch (name) {
    case "su":
      return shell(commandOption(words, start + 1, SU_GRAMMAR));
    case "runuser": {
      const script = commandOption(words, start + 1, SU_GRAMMAR);
      if (script !== null) return shell(script);
      const options = skipOptions(words, start + 1, SU_GRAMMAR, { strict: false }) ?? words.length;
      const user = words.slice(start + 1, options).some((word) => word === "-u" || word.startsWith("--user"));
      return user ? [...words.slice(options)] : shell(null);
    }
    case "script":
      return shell(commandOption(words, start + 1, SCRIPT_GRAMMAR));
    case "sg": {
      // `sg [-] GROUP [-c] COMMAND`: the command is run by /bin/sh.
      let index = start + 1;
      if (words[index] === "-") index += 1;
      index += 1;
      if (words[index] === "-c") index += 1;
      const command = words.slice(index);
      return shell(command.length === 0 ? null : command.join(" "));
    }
    case "parallel": {
      const index = skipOptions(words, start + 1, PARALLEL_GRAMMAR, { strict: false }) ?? words.length;
      const end = words.findIndex((word, at) => at >= index && PARALLEL_INPUTS.has(word));
      const command = words.slice(index, end === -1 ? words.length : end);
      return shell(command.length === 0 ? null : command.join(" "));
    }
    default:
      return null;
  }
}
