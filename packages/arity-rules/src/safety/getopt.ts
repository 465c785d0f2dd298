// Reading options as getopt does, for the danger table and the traversal: long options and their
// abbreviations, short clusters, `--`, operands, a builtin's option values, and `find`'s actions.

/** The values of a builtin's option `letter` (attached or the next word), other `valueLetters` aside. */
export function optionValues(words: readonly string[], letter: string, valueLetters: string): string[] {
  const values: string[] = [];
  for (let index = 1; index < words.length; index += 1) {
    const word = words[index] as string;
    if (word === "--" || !word.startsWith("-") || word === "-") break;
    for (let at = 1; at < word.length; at += 1) {
      const char = word[at] as string;
      if (char !== letter && !valueLetters.includes(char)) continue;
      const attached = at + 1 < word.length ? word.slice(at + 1) : null;
      const value = attached ?? words[index + 1];
      if (attached === null) index += 1;
      if (char === letter && value !== undefined) values.push(value);
      break;
    }
  }
  return values;
}

/** The commands of `find … -exec CMD ;`, `-execdir`, `-ok`, `-okdir` (ending at `;` or `+`). */
export function findExecCommands(args: readonly string[]): string[][] {
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
export function isLongOption(arg: string, full: string): boolean {
  const equals = arg.indexOf("=");
  const name = equals === -1 ? arg : arg.slice(0, equals);
  return name.length > 2 && name.startsWith("--") && full.startsWith(name);
}

/** A short option cluster (`-rf`) containing `letter` before any letter in `valueLetters`. */
export function clusterHas(arg: string, letter: string, valueLetters = ""): boolean {
  if (!arg.startsWith("-") || arg.startsWith("--")) return false;
  for (const char of arg.slice(1)) {
    if (char === letter) return true;
    if (valueLetters.includes(char)) return false;
  }
  return false;
}

export function beforeDoubleDash(args: readonly string[]): readonly string[] {
  const end = args.indexOf("--");
  return end === -1 ? args : args.slice(0, end);
}

export function operands(args: readonly string[]): readonly string[] {
  const end = args.indexOf("--");
  const options = end === -1 ? args : args.slice(0, end);
  const rest = end === -1 ? [] : args.slice(end + 1);
  return [...options.filter((arg) => !arg.startsWith("-")), ...rest];
}
