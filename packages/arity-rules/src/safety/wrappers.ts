import { SHELLS } from "@conch/protocol";
import { trustedExecutableName } from "./command-name.js";
import { type OptionGrammar, skipOptions } from "./options.js";

/**
 * A program that only runs another command with adjusted circumstances (a time limit, a priority,
 * buffering), so `timeout 5 ls` is as safe as `ls`. Plain data, so a rules file can declare more.
 */
export interface CommandWrapper {
  /** The program's bare name, e.g. `timeout`. */
  readonly name: string;
  /** Options without a value, as written: `-p`, `--foreground`. Single letters may be clustered. */
  readonly flags?: readonly string[];
  /** Options with a value in the next word or attached: `-n 5`, `-n5`, `--adjustment=5`. */
  readonly valueOptions?: readonly string[];
  /** How many operands belong to the wrapper before the command, e.g. 1 for timeout's DURATION. */
  readonly operands?: number;
}

/**
 * The wrappers looked through before the known-safe check. Only options that cannot write, run or
 * redirect anything are listed; any other option (`time -o FILE`, `command -v`, `nice -5`) leaves the
 * command unproven. nohup is listed although it writes `nohup.out` when stdout is a terminal: Conch
 * runs commands on pipes unless a tty was asked for, and that write lands in the working directory.
 */
export const DEFAULT_WRAPPERS: readonly CommandWrapper[] = [
  {
    name: "timeout",
    flags: ["--preserve-status", "--foreground", "-v", "--verbose"],
    valueOptions: ["-s", "--signal", "-k", "--kill-after"],
    operands: 1,
  },
  {
    name: "time",
    flags: ["-p", "--portability", "-v", "--verbose", "-q", "--quiet"],
    valueOptions: ["-f", "--format"],
  },
  { name: "nice", valueOptions: ["-n", "--adjustment"] },
  { name: "nohup" },
  { name: "stdbuf", valueOptions: ["-i", "--input", "-o", "--output", "-e", "--error"] },
  { name: "command", flags: ["-p"] },
  { name: "builtin" },
];

/**
 * Runners that are never wrappers: they change who runs the command or how its words are read (`sudo`,
 * `env -S`, `xargs`, `watch`, a shell running its first operand as a script file), so a command behind
 * them is never known safe. Naming one in `wrappers` is an error.
 */
export const NEVER_WRAPPERS: readonly string[] = [
  "sudo",
  "doas",
  "su",
  "env",
  "xargs",
  "watch",
  "eval",
  "exec",
  ...Object.keys(SHELLS),
];

interface CompiledWrapper {
  readonly grammar: OptionGrammar;
  readonly operands: number;
}

/** Wrappers by name, ready for scanning. */
export type WrapperTable = ReadonlyMap<string, CompiledWrapper>;

export function compileWrappers(wrappers: readonly CommandWrapper[]): WrapperTable {
  const table = new Map<string, CompiledWrapper>();
  for (const wrapper of wrappers) {
    table.set(wrapper.name, {
      grammar: {
        flags: new Set(wrapper.flags ?? []),
        valueOptions: new Set(wrapper.valueOptions ?? []),
      },
      operands: wrapper.operands ?? 0,
    });
  }
  return table;
}

/**
 * The command left after removing every leading wrapper with its options and operands
 * (`nice -n 5 timeout 10 ls -l` → `ls -l`; argv itself when there is none), or null when a wrapper is
 * used with an option it does not list or wraps nothing.
 */
export function stripWrappers(argv: readonly string[], table: WrapperTable): readonly string[] | null {
  let start = 0;
  for (;;) {
    const first = argv[start];
    const name = first === undefined ? null : trustedExecutableName(first);
    const wrapper = name === null ? undefined : table.get(name);
    if (wrapper === undefined) return start === 0 ? argv : argv.slice(start);
    const afterOptions = skipOptions(argv, start + 1, wrapper.grammar, { strict: true });
    if (afterOptions === null) return null;
    start = afterOptions + wrapper.operands;
    if (start >= argv.length) return null;
  }
}
