// A reader for the subset of Starlark that Codex `.rules` files use: top-level calls such as
// `prefix_rule(pattern = ["git", ["push", "fetch"]], decision = "prompt")`, with keyword (or leading
// positional) arguments whose values are string literals (both quote styles, triple-quoted, `r`-raw,
// Starlark escapes), lists, ints, True/False/None; `#` comments, trailing commas and line breaks inside
// brackets. Anything else (assignments, variables, expressions, load(), def) is reported as
// unsupported rather than guessed at.

export type StarlarkValue =
  | { readonly kind: "string"; readonly value: string; readonly line: number }
  | { readonly kind: "list"; readonly items: readonly StarlarkValue[]; readonly line: number }
  | { readonly kind: "int"; readonly text: string; readonly line: number }
  | { readonly kind: "bool"; readonly value: boolean; readonly line: number }
  | { readonly kind: "none"; readonly line: number };

interface StarlarkArgument {
  /** Null for a positional argument. */
  readonly name: string | null;
  readonly value: StarlarkValue;
  readonly line: number;
}

export interface StarlarkCall {
  readonly name: string;
  readonly line: number;
  readonly args: readonly StarlarkArgument[];
}

/** A syntax error at a 1-based line. */
export class StarlarkSyntaxError extends Error {
  readonly line: number;

  constructor(line: number, message: string) {
    super(message);
    this.name = "StarlarkSyntaxError";
    this.line = line;
  }
}

/** The Starlark type name of a value, as Starlark's own errors spell it. */
export function starlarkTypeName(value: StarlarkValue): string {
  switch (value.kind) {
    case "string":
      return "string";
    case "list":
      return "list";
    case "int":
      return "int";
    case "bool":
      return "bool";
    case "none":
      return "NoneType";
  }
}

type Token =
  | { readonly type: "ident"; readonly text: string; readonly line: number }
  | { readonly type: "string"; readonly value: string; readonly line: number }
  | { readonly type: "int"; readonly text: string; readonly line: number }
  | { readonly type: "punct"; readonly text: string; readonly line: number }
  | { readonly type: "newline"; readonly line: number }
  | { readonly type: "eof"; readonly line: number };

const IDENT_START = /[A-Za-z_]/;
const IDENT_PART = /[A-Za-z0-9_]/;
const PUNCT = new Set(["(", ")", "[", "]", ",", "=", ";"]);
// Tokens Starlark knows but this subset does not accept; named so the error says what was found.
const OTHER_OPERATORS = new Set("{}.:+-*/%<>!&|^~@");

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  a: "\x07",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
  "\\": "\\",
  "'": "'",
  '"': '"',
};

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let line = 1;
  // Lines of the brackets still open: inside them line breaks do not end a statement.
  const open: { readonly bracket: string; readonly line: number }[] = [];
  const n = text.length;

  const readString = (raw: boolean): string => {
    const startLine = line;
    const quote = text[i] as string;
    const triple = text.startsWith(quote.repeat(3), i);
    i += triple ? 3 : 1;
    let value = "";
    for (;;) {
      if (i >= n) throw new StarlarkSyntaxError(startLine, "unterminated string literal");
      const c = text[i] as string;
      if (triple ? text.startsWith(quote.repeat(3), i) : c === quote) {
        i += triple ? 3 : 1;
        return value;
      }
      if (c === "\n") {
        if (!triple) throw new StarlarkSyntaxError(startLine, "unterminated string literal");
        line++;
        value += c;
        i++;
        continue;
      }
      if (c !== "\\") {
        value += c;
        i++;
        continue;
      }
      const e = text[i + 1];
      if (e === undefined) throw new StarlarkSyntaxError(startLine, "unterminated string literal");
      if (raw) {
        // A raw string keeps the backslash; it still cannot end the string on an escaped quote.
        value += `\\${e}`;
        if (e === "\n") line++;
        i += 2;
        continue;
      }
      i += 2;
      const simple = SIMPLE_ESCAPES[e];
      if (simple !== undefined) {
        value += simple;
      } else if (e === "\n") {
        line++;
      } else if (e >= "0" && e <= "7") {
        let digits = e;
        while (digits.length < 3 && /[0-7]/.test(text[i] ?? "")) digits += text[i++];
        value += String.fromCodePoint(Number.parseInt(digits, 8));
      } else if (e === "x" || e === "u" || e === "U") {
        const width = e === "x" ? 2 : e === "u" ? 4 : 8;
        const hex = text.slice(i, i + width);
        if (!new RegExp(`^[0-9A-Fa-f]{${width}}$`).test(hex)) {
          throw new StarlarkSyntaxError(line, `invalid escape sequence \\${e}${hex}`);
        }
        const codePoint = Number.parseInt(hex, 16);
        if (codePoint > 0x10ffff || (codePoint >= 0xd800 && codePoint <= 0xdfff)) {
          throw new StarlarkSyntaxError(line, `invalid escape sequence \\${e}${hex}`);
        }
        value += String.fromCodePoint(codePoint);
        i += width;
      } else {
        // Unknown escapes stay as written, as in starlark-rust (and Python).
        value += `\\${e}`;
      }
    }
  };

  while (i < n) {
    const c = text[i] as string;
    if (c === "\n") {
      if (open.length === 0) tokens.push({ type: "newline", line });
      line++;
      i++;
    } else if (c === " " || c === "\t" || c === "\r" || c === "\f") {
      i++;
    } else if (c === "#") {
      while (i < n && text[i] !== "\n") i++;
    } else if (c === "\\" && text[i + 1] === "\n") {
      line++;
      i += 2;
    } else if (c === '"' || c === "'") {
      const startLine = line;
      tokens.push({ type: "string", value: readString(false), line: startLine });
    } else if ((c === "r" || c === "R") && (text[i + 1] === '"' || text[i + 1] === "'")) {
      const startLine = line;
      i++;
      tokens.push({ type: "string", value: readString(true), line: startLine });
    } else if (IDENT_START.test(c)) {
      const start = i;
      while (i < n && IDENT_PART.test(text[i] as string)) i++;
      tokens.push({ type: "ident", text: text.slice(start, i), line });
    } else if (c >= "0" && c <= "9") {
      const start = i;
      while (i < n && /[0-9A-Za-z_]/.test(text[i] as string)) i++;
      const literal = text.slice(start, i);
      if (!/^(0|[1-9][0-9]*|0[xX][0-9A-Fa-f]+|0[oO][0-7]+|0[bB][01]+)$/.test(literal)) {
        throw new StarlarkSyntaxError(line, `invalid number literal ${literal}`);
      }
      tokens.push({ type: "int", text: literal, line });
    } else if (PUNCT.has(c)) {
      if (c === "(" || c === "[") open.push({ bracket: c, line });
      else if (c === ")" || c === "]") {
        const opened = open.pop();
        if (opened === undefined) throw new StarlarkSyntaxError(line, `unexpected \`${c}\``);
        if ((opened.bracket === "(") !== (c === ")")) {
          throw new StarlarkSyntaxError(
            line,
            `\`${c}\` does not close \`${opened.bracket}\` from line ${opened.line}`,
          );
        }
      }
      tokens.push({ type: "punct", text: c, line });
      i++;
    } else if (OTHER_OPERATORS.has(c)) {
      throw new StarlarkSyntaxError(line, `unsupported syntax: \`${c}\` (only calls with literal arguments)`);
    } else {
      throw new StarlarkSyntaxError(line, `unexpected character ${JSON.stringify(c)}`);
    }
  }
  const unclosed = open.at(-1);
  if (unclosed !== undefined) {
    throw new StarlarkSyntaxError(unclosed.line, `\`${unclosed.bracket}\` is never closed`);
  }
  tokens.push({ type: "eof", line });
  return tokens;
}

function describe(token: Token): string {
  switch (token.type) {
    case "ident":
      return `\`${token.text}\``;
    case "string":
      return "a string";
    case "int":
      return `\`${token.text}\``;
    case "punct":
      return `\`${token.text}\``;
    case "newline":
      return "end of line";
    case "eof":
      return "end of file";
  }
}

/** Parses every top-level call of a `.rules` file, in order. */
export function parseStarlarkCalls(text: string): StarlarkCall[] {
  const tokens = tokenize(text);
  let pos = 0;
  const peek = (): Token => tokens[pos] as Token;
  const next = (): Token => tokens[pos++] as Token;
  const isPunct = (token: Token, text: string): boolean => token.type === "punct" && token.text === text;
  const parseValue = (): StarlarkValue => {
    const token = next();
    switch (token.type) {
      case "string":
        return { kind: "string", value: token.value, line: token.line };
      case "int":
        return { kind: "int", text: token.text, line: token.line };
      case "ident":
        if (token.text === "True" || token.text === "False") {
          return { kind: "bool", value: token.text === "True", line: token.line };
        }
        if (token.text === "None") return { kind: "none", line: token.line };
        if (isPunct(peek(), "(")) {
          throw new StarlarkSyntaxError(
            token.line,
            `unsupported syntax: call to \`${token.text}\` inside an argument`,
          );
        }
        throw new StarlarkSyntaxError(
          token.line,
          `unsupported syntax: variable \`${token.text}\` (only literal values)`,
        );
      case "punct":
        if (token.text === "[") {
          const items: StarlarkValue[] = [];
          while (!isPunct(peek(), "]")) {
            items.push(parseValue());
            if (isPunct(peek(), ",")) next();
            else if (!isPunct(peek(), "]")) {
              const found = peek();
              throw new StarlarkSyntaxError(
                found.line,
                `expected \`,\` or \`]\` but found ${describe(found)}`,
              );
            }
          }
          next();
          return { kind: "list", items, line: token.line };
        }
        if (token.text === "(") {
          throw new StarlarkSyntaxError(token.line, "unsupported syntax: tuple or parenthesised expression");
        }
        throw new StarlarkSyntaxError(token.line, `expected a value but found ${describe(token)}`);
      default:
        throw new StarlarkSyntaxError(token.line, `expected a value but found ${describe(token)}`);
    }
  };

  const parseCall = (): StarlarkCall => {
    const head = next();
    if (head.type !== "ident") {
      throw new StarlarkSyntaxError(
        head.line,
        `expected a call such as prefix_rule(...) but found ${describe(head)}`,
      );
    }
    const open = peek();
    if (isPunct(open, "=")) {
      throw new StarlarkSyntaxError(head.line, `unsupported syntax: assignment to \`${head.text}\``);
    }
    if (!isPunct(open, "(")) {
      throw new StarlarkSyntaxError(
        open.line,
        `expected \`(\` after \`${head.text}\` but found ${describe(open)}`,
      );
    }
    next();
    const args: StarlarkArgument[] = [];
    let sawKeyword = false;
    while (!isPunct(peek(), ")")) {
      const start = peek();
      let name: string | null = null;
      if (start.type === "ident" && isPunct(tokens[pos + 1] as Token, "=")) {
        name = start.text;
        pos += 2;
        sawKeyword = true;
      } else if (sawKeyword) {
        throw new StarlarkSyntaxError(start.line, "positional argument follows keyword argument");
      }
      args.push({ name, value: parseValue(), line: start.line });
      if (isPunct(peek(), ",")) next();
      else if (!isPunct(peek(), ")")) {
        const found = peek();
        throw new StarlarkSyntaxError(found.line, `expected \`,\` or \`)\` but found ${describe(found)}`);
      }
    }
    next();
    return { name: head.text, line: head.line, args };
  };

  const calls: StarlarkCall[] = [];
  for (;;) {
    const token = peek();
    if (token.type === "eof") break;
    if (token.type === "newline" || isPunct(token, ";")) {
      next();
      continue;
    }
    calls.push(parseCall());
    const after = peek();
    if (after.type !== "newline" && after.type !== "eof" && !isPunct(after, ";")) {
      throw new StarlarkSyntaxError(
        after.line,
        `expected end of line after the call but found ${describe(after)}`,
      );
    }
  }
  return calls;
}
