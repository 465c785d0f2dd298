// Renders an argv the way Codex's reason texts show it (`shlex::try_join` of the `shlex` crate), so a
// reason reads exactly as Codex's does: each word is split into chunks, each chunk written unquoted,
// in single quotes or in double quotes, whichever is the first that can hold all of it.

const UNQUOTED = 1;
const SINGLE_QUOTED = 2;
const DOUBLE_QUOTED = 4;

function isUnquotedOk(c: string): boolean {
  return /^[-+./:@\]_0-9A-Za-z]$/.test(c);
}

// A backslash is literal in single quotes for POSIX shells but not for fish; `^` is only safe right
// after the opening quote (a bash quirk).
function isSingleQuotedOk(c: string): boolean {
  return c !== "'" && c !== "^" && c !== "\\";
}

// `$` and `` ` `` would need a backslash that Python's shlex does not strip; `!` and `^` expand
// interactively.
function isDoubleQuotedOk(c: string): boolean {
  return c !== "`" && c !== "$" && c !== "!" && c !== "^";
}

/** How many leading characters of `word` one quoting style can hold, and which style. */
function quotingStrategy(word: string): [number, number] {
  let allowed = UNQUOTED | SINGLE_QUOTED | DOUBLE_QUOTED;
  let i = 0;
  if (word[0] === "^") {
    allowed = SINGLE_QUOTED;
    i = 1;
  }
  for (; i < word.length; i++) {
    const c = word[i] as string;
    let next = allowed;
    if (c.charCodeAt(0) >= 0x80) {
      next &= ~UNQUOTED;
    } else {
      if (!isUnquotedOk(c)) next &= ~UNQUOTED;
      if (!isSingleQuotedOk(c)) next &= ~SINGLE_QUOTED;
      if (!isDoubleQuotedOk(c)) next &= ~DOUBLE_QUOTED;
    }
    if (next === 0) break;
    allowed = next;
  }
  const strategy = allowed & UNQUOTED ? UNQUOTED : allowed & SINGLE_QUOTED ? SINGLE_QUOTED : DOUBLE_QUOTED;
  return [i, strategy];
}

function quoteWord(word: string): string {
  if (word === "") return "''";
  let out = "";
  let rest = word;
  while (rest.length > 0) {
    const [length, strategy] = quotingStrategy(rest);
    const chunk = rest.slice(0, length);
    rest = rest.slice(length);
    if (strategy === UNQUOTED) out += chunk;
    else if (strategy === SINGLE_QUOTED) out += `'${chunk}'`;
    else out += `"${chunk.replace(/[$`"\\]/g, "\\$&")}"`;
  }
  return out;
}

/** The argv as one shell-quoted line; words joined by spaces unquoted if one holds a NUL, as Codex does. */
export function renderCommand(argv: readonly string[]): string {
  if (argv.some((word) => word.includes("\0"))) return argv.join(" ");
  return argv.map(quoteWord).join(" ");
}
