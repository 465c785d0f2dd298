// Finding the script of `bash|sh|zsh|dash [options] -c SCRIPT [NAME ARGS...]`, so it can be analysed too.
import { shellNames } from "@conch/protocol";

const SCRIPT_SHELLS: ReadonlySet<string> = shellNames((shell) => shell.provable);

// Long options that take no value; anything else unknown ends the search (the command stays plain).
const LONG_FLAGS: ReadonlySet<string> = new Set([
  "--login",
  "--norc",
  "--noprofile",
  "--posix",
  "--restricted",
  "--verbose",
  "--noediting",
  "--protected",
]);
const LONG_OPTIONS_WITH_VALUE: ReadonlySet<string> = new Set(["--rcfile", "--init-file"]);

const SHORT_CLUSTER = /^[-+][A-Za-z]+$/;

/**
 * The index in argv of the script that a shell runs with `-c` (in any short-flag cluster: `-c`, `-lc`,
 * `-ec`, `-l -c`), or -1. As in bash, the script is the first operand after all options; `-o NAME` and
 * `-O NAME` take the next word. Shells are recognised by name or by path (`/bin/bash`).
 */
export function shellScriptIndex(argv: readonly string[]): number {
  const program = argv[0];
  if (program === undefined) return -1;
  if (!SCRIPT_SHELLS.has(program.slice(program.lastIndexOf("/") + 1))) return -1;
  let sawC = false;
  for (let index = 1; index < argv.length; index++) {
    const word = argv[index] as string;
    if (word === "--" || word === "-") return sawC && index + 1 < argv.length ? index + 1 : -1;
    if (word.startsWith("--")) {
      if (LONG_OPTIONS_WITH_VALUE.has(word)) index++;
      else if (!LONG_FLAGS.has(word)) return -1;
      continue;
    }
    if (SHORT_CLUSTER.test(word)) {
      if (word[0] === "-" && word.includes("c")) sawC = true;
      for (const flag of word) if (flag === "o" || flag === "O") index++;
      continue;
    }
    return sawC ? index : -1;
  }
  return -1;
}
