// A getopt-style scanner for the options of a wrapper (`timeout -s KILL 5 cmd`) or a runner (`sudo -u
// root cmd`), used to find where the wrapped command starts.

/** What a program accepts before its operands: spelled as written, short (`-n`) or long (`--adjustment`). */
export interface OptionGrammar {
  /** Options that take no value. Single-letter ones may be clustered (`-vp`). */
  readonly flags: ReadonlySet<string>;
  /** Options that take a value, in the next word or attached (`-n 5`, `-n5`, `--adjustment=5`). */
  readonly valueOptions: ReadonlySet<string>;
}

export interface ScanMode {
  /**
   * Strict scanning (proving a command safe) rejects any option the grammar does not list, and takes long
   * options only as spelled in full. Lenient scanning (looking for danger) skips unknown options as flags
   * and resolves unambiguous abbreviations of long options, as getopt_long does.
   */
  readonly strict: boolean;
  /** Also skip `NAME=value` words among the options (env, sudo). */
  readonly assignments?: boolean;
}

// env and sudo take every word with a `=` before the command for an assignment, whatever its name
// (GNU env tests `strchr(arg, '=')`): `env 'BASH_FUNC_ls%%=() { …; }' bash` sets a variable.
export const ASSIGNMENT: RegExp = /=/;

/** One option word read at a position: how many words it spans and, if it takes one, its value. */
export interface ReadOption {
  readonly width: 1 | 2;
  /** The option that took a value (`-S`, `--split-string`), resolved from an abbreviation if lenient. */
  readonly valueOption: string | null;
  readonly value: string | null;
}

/**
 * The index of the first word at or after `start` that is not an option (or an option's value), or null
 * when a strict scan meets an option the grammar does not know or a value that is missing.
 */
export function skipOptions(
  words: readonly string[],
  start: number,
  grammar: OptionGrammar,
  mode: ScanMode,
): number | null {
  let index = start;
  while (index < words.length) {
    const word = words[index] as string;
    if (word === "--") return index + 1;
    if (mode.assignments === true && !word.startsWith("-") && ASSIGNMENT.test(word)) {
      index += 1;
      continue;
    }
    if (!word.startsWith("-") || word === "-") return index;
    const option = readOption(words, index, grammar, mode.strict);
    if (option === null) return null;
    index += option.width;
  }
  return mode.strict && index > words.length ? null : Math.min(index, words.length);
}

/**
 * Reads the option word at `index` (which starts with `-`), or null if a strict read meets an unknown
 * option.
 */
export function readOption(
  words: readonly string[],
  index: number,
  grammar: OptionGrammar,
  strict: boolean,
): ReadOption | null {
  const word = words[index] as string;
  if (word.startsWith("--")) {
    const equals = word.indexOf("=");
    const written = equals === -1 ? word : word.slice(0, equals);
    const name = strict ? written : resolveAbbreviation(written, grammar);
    if (grammar.valueOptions.has(name)) {
      return equals === -1
        ? { width: 2, valueOption: name, value: words[index + 1] ?? null }
        : { width: 1, valueOption: name, value: word.slice(equals + 1) };
    }
    if (grammar.flags.has(name) && equals === -1) return { width: 1, valueOption: null, value: null };
    return strict ? null : { width: 1, valueOption: null, value: null };
  }
  for (let at = 1; at < word.length; at += 1) {
    const option = `-${word[at]}`;
    if (grammar.valueOptions.has(option)) {
      return at + 1 < word.length
        ? { width: 1, valueOption: option, value: word.slice(at + 1) }
        : { width: 2, valueOption: option, value: words[index + 1] ?? null };
    }
    if (!grammar.flags.has(option) && strict) return null;
  }
  return { width: 1, valueOption: null, value: null };
}

function resolveAbbreviation(written: string, grammar: OptionGrammar): string {
  if (grammar.valueOptions.has(written) || grammar.flags.has(written)) return written;
  const candidates = [...grammar.valueOptions, ...grammar.flags].filter(
    (option) => option.startsWith("--") && option.startsWith(written),
  );
  return candidates.length === 1 ? (candidates[0] as string) : written;
}
