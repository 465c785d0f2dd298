// sed and awk: their options (a script or a file of one) and a reader of each language that tells
// whether the script may run a command (command-options.ts reads the line as unread when it may).
import { type CommandOption, firstOperand, long, type OptionSpec, scan } from "./option-scan.js";

// ---- sed (GNU) ----

/**
 * True when a sed script may run a command: GNU sed's `e` command, the `e` flag of `s`, or anything this
 * reader does not know. Addresses, `s` and `y` with any delimiter, labels, text of a/i/c and file names
 * of r/w are read past.
 */
export function sedRunsCommands(script: string): boolean {
  let at = 0;
  const end = script.length;
  const skipBlanks = (): void => {
    while (at < end && /[ \t]/.test(script[at] as string)) at += 1;
  };
  const toLineEnd = (): void => {
    while (at < end && script[at] !== "\n") at += 1;
  };
  // A delimited part (`/re/`, `\cREc`, the parts of `s` and `y`), from just after the opening delimiter.
  const delimited = (delimiter: string): boolean => {
    while (at < end && script[at] !== delimiter) {
      if (script[at] === "\\") at += 1;
      else if (script[at] === "\n") return false;
      at += 1;
    }
    if (at >= end) return false;
    at += 1;
    return true;
  };
  const address = (): boolean => {
    const char = script[at];
    if (char === "/" || char === "\\") {
      const delimiter = char === "/" ? "/" : (script[at + 1] ?? "");
      at += char === "/" ? 1 : 2;
      if (!delimited(delimiter)) return false;
      while (script[at] === "I" || script[at] === "M") at += 1;
      return true;
    }
    const number = /^(\$|\d+(~\d+)?|\+\d+|~\d+)/.exec(script.slice(at));
    if (number !== null) at += number[0].length;
    return true;
  };
  while (at < end) {
    skipBlanks();
    const char = script[at];
    if (char === undefined) break;
    if (char === "\n" || char === ";" || char === "}" || char === "{") {
      at += 1;
      continue;
    }
    if (char === "#") {
      toLineEnd();
      continue;
    }
    if (!address()) return true;
    skipBlanks();
    if (script[at] === ",") {
      at += 1;
      skipBlanks();
      if (!address()) return true;
    }
    skipBlanks();
    while (script[at] === "!") {
      at += 1;
      skipBlanks();
    }
    const command = script[at];
    if (command === undefined) break;
    at += 1;
    if (command === "{") continue;
    if ("=dDgGhHlnNpPqQxzFLvl".includes(command)) {
      while (at < end && !/[;\n}]/.test(script[at] as string)) at += 1;
      continue;
    }
    if (":btT".includes(command)) {
      // A label ends at a newline or `;`.
      while (at < end && script[at] !== "\n" && script[at] !== ";") at += 1;
      continue;
    }
    if ("rRwWaic".includes(command)) {
      // A file name, or a/i/c's text (with escaped newlines), runs to the end of the line.
      while (at < end && script[at] !== "\n") at += script[at] === "\\" ? 2 : 1;
      continue;
    }
    if (command === "s" || command === "y") {
      const delimiter = script[at];
      if (delimiter === undefined || delimiter === "\n" || delimiter === "\\") return true;
      at += 1;
      if (!delimited(delimiter) || !delimited(delimiter)) return true;
      if (command === "y") continue;
      while (at < end && /[gpiImMe0-9]/.test(script[at] as string)) {
        if (script[at] === "e") return true;
        at += 1;
      }
      if (script[at] === "w") toLineEnd();
      continue;
    }
    // `e` runs a command (or the pattern space); anything else is unknown.
    return true;
  }
  return false;
}

const SED: OptionSpec = {
  long: { "--expression": long("text", 3), "--file": long("file", 4) },
  short: { e: "text", f: "file" },
  valueLetters: "l",
  optionalLetters: "i",
};

export function sedOptions(words: readonly string[]): CommandOption[] {
  // `--sandbox` rejects e, r and w.
  if (words.some((word, index) => index > 0 && word.length >= 4 && "--sandbox".startsWith(word))) return [];
  const options = scan(words, 1, SED);
  const found = options.filter((option) => option.kind === "file");
  const scripts = options.filter((option) => option.kind === "text");
  if (scripts.length === 0 && found.length === 0) {
    const index = firstOperand(words, SED);
    if (index !== -1) scripts.push({ kind: "text", indexes: [index], value: words[index] as string });
  }
  for (const script of scripts) if (sedRunsCommands(script.value ?? "")) found.push(script);
  return found;
}

// ---- awk ----

/**
 * True when an awk program may run a command: `system(…)`, a pipe to or from one (`print | "cmd"`,
 * `"cmd" | getline`, gawk's `|&`), or `@load`/`@include`. Strings, regular expressions and comments are
 * read past, so `/a|b/` and `"x|y"` are not pipes.
 */
export function awkRunsCommands(program: string): boolean {
  let code = "";
  let previous = "";
  for (let at = 0; at < program.length; at += 1) {
    const char = program[at] as string;
    if (char === '"') {
      at += 1;
      while (at < program.length && program[at] !== '"') at += program[at] === "\\" ? 2 : 1;
      code += '""';
      previous = '"';
      continue;
    }
    if (char === "#") {
      while (at < program.length && program[at] !== "\n") at += 1;
      code += "\n";
      continue;
    }
    // A `/` after an operand divides; anywhere else it starts a regular expression.
    if (char === "/" && !/[A-Za-z0-9_)\]$."]/.test(previous)) {
      at += 1;
      let bracket = false;
      while (at < program.length && (bracket || program[at] !== "/")) {
        if (program[at] === "\\") at += 1;
        else if (program[at] === "[") bracket = true;
        else if (program[at] === "]") bracket = false;
        at += 1;
      }
      code += "//";
      previous = "/";
      continue;
    }
    code += char;
    if (!/\s/.test(char)) previous = char;
  }
  return /(?<!\|)\|(?!\|)|\bsystem\b|@load|@include/.test(code);
}

const AWK: OptionSpec = {
  long: {
    "--file": long("file"),
    "--exec": long("file", 4),
    "--include": long("file", 4),
    "--load": long("file", 4),
    "--source": long("text", 4),
  },
  short: { f: "file", E: "file", i: "file", l: "file", e: "text", W: "file" },
  valueLetters: "vF",
  optionalLetters: "dopD",
};

export function awkOptions(words: readonly string[]): CommandOption[] {
  // gawk's `--sandbox` (-S) rejects system(), pipes and redirections.
  if (
    words.some(
      (word, index) => index > 0 && (word === "-S" || (word.length >= 5 && "--sandbox".startsWith(word))),
    )
  ) {
    return [];
  }
  const options = scan(words, 1, AWK);
  const found = options.filter((option) => option.kind === "file");
  const programs = options.filter((option) => option.kind === "text");
  if (programs.length === 0 && found.length === 0) {
    const index = firstOperand(words, AWK);
    if (index !== -1) programs.push({ kind: "text", indexes: [index], value: words[index] as string });
  }
  for (const program of programs) if (awkRunsCommands(program.value ?? "")) found.push(program);
  return found;
}
