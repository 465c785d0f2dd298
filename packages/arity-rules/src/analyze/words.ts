// Quote removal for the pieces of a bash word, exactly as bash does it. Each function returns the literal
// text, or null when bash would produce something this module does not reproduce (then the word is opaque).

const SIMPLE_ANSI_C_ESCAPES: Readonly<Record<string, string>> = {
  a: "\x07",
  b: "\b",
  e: "\x1b",
  E: "\x1b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
  "\\": "\\",
  "'": "'",
  '"': '"',
  "?": "?",
};

/**
 * The start of a function substitution (bash 5.3, ksh93, mksh): `${ cmd; }` and `${| cmd; }` run cmd in
 * the shell itself, where `${x}` expands a variable. tree-sitter-bash 0.25 has no such node: it reads
 * them as an ERROR, or as an `expansion` (inside `[[ ]]`, after `case`).
 */
export const FUNSUB_START: RegExp = /^\$\{[ \t\n|]/;

const OCTAL_DIGIT = /^[0-7]$/;
const HEX_DIGIT = /^[0-9A-Fa-f]$/;

/**
 * The body of `$'...'` (between `$'` and `'`) decoded, or null when it uses an escape whose result is not
 * a plain ASCII character: `\u`, `\U`, `\c`, a NUL (bash cuts the word there) or a byte above 0x7f (it
 * would combine with its neighbours into UTF-8). Unknown escapes such as `\z` stay as written, as in bash;
 * zsh (`zsh`, its getkeystring with GETKEYS_DOLLARS_QUOTE) drops the backslash of an unknown escape, so
 * `$'r\m'` is `rm` there, and reads `\C-x` and `\M-x` as control and meta characters (null here).
 */
export function decodeAnsiC(body: string, zsh = false): string | null {
  if (!body.includes("\\")) return body;
  let out = "";
  let index = 0;
  while (index < body.length) {
    const slash = body.indexOf("\\", index);
    if (slash === -1) {
      out += body.slice(index);
      break;
    }
    out += body.slice(index, slash);
    const letter = body[slash + 1];
    index = slash + 2;
    if (letter === undefined) return null;
    const simple = SIMPLE_ANSI_C_ESCAPES[letter];
    if (simple !== undefined) {
      out += simple;
      continue;
    }
    let code = -1;
    if (OCTAL_DIGIT.test(letter)) {
      let digits = letter;
      while (digits.length < 3 && OCTAL_DIGIT.test(body[index] ?? "")) digits += body[index++];
      code = Number.parseInt(digits, 8);
    } else if (letter === "x") {
      let digits = "";
      while (digits.length < 2 && HEX_DIGIT.test(body[index] ?? "")) digits += body[index++];
      if (digits === "") return null;
      code = Number.parseInt(digits, 16);
    } else if (letter === "u" || letter === "U" || letter === "c") {
      return null;
    } else if (zsh) {
      if (letter === "C" || letter === "M") return null;
      out += letter;
      continue;
    } else {
      out += `\\${letter}`;
      continue;
    }
    if (code <= 0 || code > 0x7f) return null;
    out += String.fromCharCode(code);
  }
  return out;
}

/**
 * Text inside double quotes: a backslash escapes only `$`, `` ` ``, `"`, `\` and a newline (a line
 * continuation, removed); before anything else it stays.
 */
export function unquoteDoubleQuoted(text: string): string {
  if (!text.includes("\\")) return text;
  let out = "";
  let index = 0;
  while (index < text.length) {
    const slash = text.indexOf("\\", index);
    if (slash === -1) {
      out += text.slice(index);
      break;
    }
    out += text.slice(index, slash);
    const next = text[slash + 1];
    if (next === "$" || next === "`" || next === '"' || next === "\\") {
      out += next;
      index = slash + 2;
    } else if (next === "\n") {
      index = slash + 2;
    } else {
      out += "\\";
      index = slash + 1;
    }
  }
  return out;
}
