// Programs that run the command in their operands, looked through when searching for danger:
// `sudo -u root env FOO=1 timeout 5 rm -rf x` is a forced rm. Unlike the wrappers of the known-safe
// check, these grammars list every option with a value (time's `-o FILE` too) so the value is not taken
// for the command, and unknown options are skipped rather than trusted.
import { executableName } from "./command-name.js";
import { ASSIGNMENT, type OptionGrammar, type ReadOption, readOption, skipOptions } from "./options.js";
import type { WrapperTable } from "./wrappers.js";

interface Runner {
  readonly grammar: OptionGrammar;
  /** Operands of the runner itself before the command (timeout's DURATION, chroot's NEWROOT). */
  readonly operands: number;
  readonly assignments: boolean;
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
]);

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

/** Runner table for the danger search: the built-ins plus any configured wrappers they do not cover. */
export function runnerTable(wrappers: WrapperTable): ReadonlyMap<string, Runner> {
  const table = new Map<string, Runner>();
  for (const [name, wrapper] of wrappers) {
    table.set(name, { grammar: wrapper.grammar, operands: wrapper.operands, assignments: false });
  }
  for (const [name, builtIn] of BUILT_IN_RUNNERS) table.set(name, builtIn);
  return table;
}

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
    if (word === "-" || ASSIGNMENT.test(word)) {
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

/**
 * The command behind every leading runner (`sudo -u root nice -n 5 rm -rf x` → `rm -rf x`; argv itself
 * when there is none). Linear in argv's length: each step moves past at least the runner's name.
 */
export function lookThrough(
  argv: readonly string[],
  runners: ReadonlyMap<string, Runner>,
): readonly string[] {
  let words = argv;
  let start = 0;
  let splits = 0;
  // The last word with shell syntax in it, found once per argv (for watch).
  let lastSpecial: number | null = null;
  for (;;) {
    const first = words[start];
    if (first === undefined) return [];
    const name = executableName(first);
    if (name === "env") {
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
      if (lastSpecial >= commandStart) return start === 0 ? words : words.slice(start);
      start = commandStart;
      continue;
    }
    const found = runners.get(name);
    if (found === undefined) return start === 0 ? words : words.slice(start);
    const afterOptions =
      skipOptions(words, start + 1, found.grammar, { strict: false, assignments: found.assignments }) ??
      words.length;
    start = afterOptions + found.operands;
  }
}
