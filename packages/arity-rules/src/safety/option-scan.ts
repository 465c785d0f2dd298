// Reading a program's options for the commands they give it (command-options.ts): what each option
// holds, a program's table of options, and the scan that finds them in its words as getopt would.

/**
 * - `script`: shell text the program runs (read as a script; the line is unread);
 * - `program`: a program with its arguments (read as a script; the line is unread);
 * - `text`: commands in the program's own language, vim's, gdb's, sed's, awk's (the line is unread);
 * - `file`: a file of commands or settings (the line is unread);
 * - `remote`: a command run on another host (the line is unread);
 * - `argv`: a command the program runs as written, `git bisect run CMD…` (read as a command);
 * - `reached-script`: shell text run as it is written, `git difftool -x` (read as a script).
 */
export type CommandOptionKind = "script" | "program" | "text" | "file" | "remote" | "argv" | "reached-script";

export interface CommandOption {
  readonly kind: CommandOptionKind;
  /** The option as the program reads it (`--to-command` for `--to-c=…`, `-x`), when it is one. */
  readonly option?: string;
  /** Indexes of the words that give it: the option and its value. */
  readonly indexes: readonly number[];
  /** The shell text or program it gives, when the words hold one. */
  readonly value: string | null;
  /** For `argv`: the command's words. */
  readonly argv?: readonly string[];
}

export interface LongOption {
  readonly kind: CommandOptionKind;
  /** The shortest abbreviation that still means this option (getopt_long takes unique prefixes). */
  readonly min?: number;
  /** The value is optional, and then only attached (`--html[=BROWSER]`). */
  readonly optional?: boolean;
}

export interface OptionSpec {
  /** Long options that give a command, by name with their dashes (one dash where `singleDash`). */
  readonly long?: Readonly<Record<string, LongOption>>;
  /** Other options whose exact name is a prefix of one above (`--checkpoint`, `--rsh`). */
  readonly exact?: readonly string[];
  /** Short letters that give a command, with the value attached or in the next word. */
  readonly short?: Readonly<Record<string, CommandOptionKind>>;
  /** Other short letters that take a value: they end a cluster, and may take the next word. */
  readonly valueLetters?: string;
  /** Short letters that give a command only in an attached value, which is optional (`man -H[BROWSER]`). */
  readonly optionalShort?: Readonly<Record<string, CommandOptionKind>>;
  /** Other short letters whose optional value is only attached (`sed -i[SUFFIX]`). */
  readonly optionalLetters?: string;
  /** Long options are written with one dash or two, and never clustered (gdb, emacs). */
  readonly singleDash?: boolean;
}

/** The value a table holds for a key of its own (not `constructor` or `toString` from its prototype). */
export function own<T>(table: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return table !== undefined && Object.hasOwn(table, key) ? table[key] : undefined;
}

export function long(kind: CommandOptionKind, min?: number, optional?: boolean): LongOption {
  return { kind, ...(min === undefined ? {} : { min }), ...(optional === undefined ? {} : { optional }) };
}

/** The long option a word names (`--to-c` for `--to-command`), by name, or undefined. */
function longOption(name: string, spec: OptionSpec): [string, LongOption] | undefined {
  if (spec.exact?.includes(name)) return undefined;
  const exact = own(spec.long, name);
  if (exact !== undefined) return [name, exact];
  // Any prefix counts, even one getopt would find ambiguous: reading too much is the safe mistake.
  const dashes = name.startsWith("--") ? 2 : 1;
  for (const [option, spec_] of Object.entries(spec.long ?? {})) {
    const min = spec_.min ?? Math.min(option.length, dashes + 2);
    if (name.length >= min && name.length > dashes && option.startsWith(name)) return [option, spec_];
  }
  return undefined;
}

/**
 * The command options among `words[start…]` as `spec` describes them, up to `--` (options may follow
 * operands, as getopt_long permutes them).
 */
export function scan(words: readonly string[], start: number, spec: OptionSpec): CommandOption[] {
  const found: CommandOption[] = [];
  for (let index = start; index < words.length; index += 1) {
    const word = words[index] as string;
    if (word === "--") break;
    if (!word.startsWith("-") || word === "-") continue;
    if (word.startsWith("--") || spec.singleDash === true) {
      const equals = word.indexOf("=");
      const name = equals === -1 ? word : word.slice(0, equals);
      const option = longOption(spec.singleDash === true ? name.replace(/^--?/, "-") : name, spec);
      if (option === undefined) continue;
      const [resolved, { kind, optional }] = option;
      if (equals !== -1) {
        found.push({ kind, option: resolved, indexes: [index], value: word.slice(equals + 1) });
      } else if (optional === true) {
        found.push({ kind, option: resolved, indexes: [index], value: null });
      } else {
        found.push({ kind, option: resolved, indexes: [index, index + 1], value: words[index + 1] ?? null });
        index += 1;
      }
      continue;
    }
    for (let at = 1; at < word.length; at += 1) {
      const letter = word[at] as string;
      const kind = own(spec.short, letter);
      const option = `-${letter}`;
      const attached = at + 1 < word.length ? word.slice(at + 1) : null;
      if (kind !== undefined) {
        if (attached !== null) found.push({ kind, option, indexes: [index], value: attached });
        else {
          found.push({ kind, option, indexes: [index, index + 1], value: words[index + 1] ?? null });
          index += 1;
        }
        break;
      }
      const optionalKind = own(spec.optionalShort, letter);
      if (optionalKind !== undefined) {
        found.push({ kind: optionalKind, option, indexes: [index], value: attached });
        break;
      }
      if (spec.optionalLetters?.includes(letter)) break;
      if (spec.valueLetters?.includes(letter)) {
        if (attached === null) index += 1;
        break;
      }
    }
  }
  return found;
}

/** The index of the first word that is not an option or an option's value, or -1. */
export function firstOperand(words: readonly string[], spec: OptionSpec): number {
  for (let index = 1; index < words.length; index += 1) {
    const word = words[index] as string;
    if (word === "--") return index + 1 < words.length ? index + 1 : -1;
    if (!word.startsWith("-") || word === "-") return index;
    if (word.startsWith("--")) {
      const name = word.includes("=") ? null : longOption(word, spec);
      if (name !== null && name !== undefined && name[1].optional !== true) index += 1;
      continue;
    }
    for (let at = 1; at < word.length; at += 1) {
      const letter = word[at] as string;
      if (spec.optionalLetters?.includes(letter)) break;
      if (own(spec.short, letter) !== undefined || spec.valueLetters?.includes(letter)) {
        if (at + 1 === word.length) index += 1;
        break;
      }
    }
  }
  return -1;
}
