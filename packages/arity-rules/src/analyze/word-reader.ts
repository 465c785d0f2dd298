// The word reader: a word at the cursor read as bash reads it, after quote removal (words.ts decodes the
// quoted pieces), with its expansions, globs and braces, and whether the result is literal. What makes a
// word not literal is reported as an opaque part; a word that zsh reads otherwise is `zsh-syntax` (see the
// top of walker.ts). Command and process substitutions under a node are found by scanSubstitutions.

import type { WalkContext } from "./context.js";
import type { FlatCursor } from "./flat-tree.js";
import type { Parts } from "./parts.js";
import { decodeAnsiC, FUNSUB_START, unquoteDoubleQuoted } from "./words.js";

const BLANK = /[ \t\n]/;
// Characters that make an unquoted word more than its text: escapes, globs, braces, stray quotes, blanks.
const UNQUOTED_SPECIAL = /[\\*?[{'"` \t\n]/;

// How a word is read. Only ARGUMENT and NAME words undergo pathname and brace expansion.
export const ARGUMENT = 0;
export const NAME = 1;
export const CONDITIONAL = 2; // inside [[ ]]: no splitting, no globbing; patterns are literal
export const VALUE = 3; // the value of an assignment
export type WordMode = typeof ARGUMENT | typeof NAME | typeof CONDITIONAL | typeof VALUE;

// The part of a word before its first quote or escape: where a tilde can still be unquoted.
const QUOTING = /['"\\]|\$['"]/;
const TILDE_AFTER_ASSIGNMENT = /[=:]~/;

/**
 * Whether bash expands a tilde in the word whose source is `text`: an unquoted `~` at its start, or
 * after an unquoted `=` or `:` (bash expands those in any word that looks like an assignment; this
 * errs towards reading one where bash would not, which only makes a command less certain).
 */
function tildeExpands(text: string): boolean {
  // Most words have no tilde at all: no search for quotes then.
  if (!text.includes("~")) return false;
  const quote = text.search(QUOTING);
  const unquoted = quote === -1 ? text : text.slice(0, quote);
  return unquoted.startsWith("~") || TILDE_AFTER_ASSIGNMENT.test(unquoted);
}

export class WordReader {
  /** Source range of the last word read by evalWord. */
  wordStart = 0;
  wordEnd = 0;

  private readonly ctx: WalkContext;
  private readonly src: string;
  private readonly cursor: FlatCursor;
  private readonly zsh: boolean;

  // The word being read by evalWord. Words never nest (substitutions inside are only scanned), so one set
  // of fields serves every word without allocating.
  private value = "";
  private literal = true;
  private glob = false;
  private bracket = false;
  private braceDepth = 0;
  private braceSeparator = false;
  private brace = false;
  private misread = false;
  /** An unquoted `(` or an extended glob in the word: a glob qualifier or a pattern group for zsh. */
  private paren = false;

  constructor(ctx: WalkContext) {
    this.ctx = ctx;
    this.src = ctx.src;
    this.cursor = ctx.cursor;
    this.zsh = ctx.zsh;
  }

  addWord(parts: Parts, type: string, mode: WordMode): void {
    const word = this.evalWord(type, mode);
    this.pushWord(parts, word, this.wordStart, this.wordEnd);
  }

  /**
   * Adds a word (null when not literal) read from start..end. Two words with nothing between them are one
   * word for bash; tree-sitter splits some (`"r"\m` is `rm`), so they are joined and reported.
   */
  pushWord(parts: Parts, word: string | null, start: number, end: number): void {
    if (start === parts.lastEnd) {
      const last = parts.argv.length - 1;
      if (parts.lastStart === -1 || last < 0) {
        // Glued to an assignment before it: bash reads another command than tree-sitter.
        this.ctx.report("unsupported-syntax", start, end);
        parts.add(word ?? this.src.slice(start, end), false);
        parts.lastStart = start;
      } else {
        this.ctx.report("unsupported-syntax", parts.lastStart, end);
        if (word !== null && parts.isLiteral(last)) parts.argv[last] += word;
        else {
          parts.argv[last] = this.src.slice(parts.lastStart, end);
          parts.markDynamic(last);
        }
      }
    } else {
      parts.add(word ?? this.src.slice(start, end), word !== null);
      parts.lastStart = start;
    }
    parts.lastEnd = end;
  }

  /**
   * The literal value of the word at the cursor after quote removal, or null when bash could expand it to
   * something else (the reasons are reported; a non-literal command name is `dynamic-command-name`).
   */
  evalWord(type: string, mode: WordMode): string | null {
    this.paren = false;
    const word = this.readWord(type, mode);
    return this.zsh && (mode === ARGUMENT || mode === NAME) ? this.zshWord(type, word, mode) : word;
  }

  /**
   * A word that zsh reads otherwise, as zsh reads it: a leading unquoted `=` is a PATH lookup (a command
   * name is read without it, any other word is not literal) or a process substitution `=(…)`; an
   * unquoted `(` is a glob qualifier or a pattern group. Both are reported as `zsh-syntax`.
   */
  private zshWord(type: string, word: string | null, mode: WordMode): string | null {
    const start = this.wordStart;
    const end = this.wordEnd;
    // A plain word (no escapes) is read without unquoted(), which notes the `(` of the others.
    const text = this.src.slice(start, end);
    const paren = this.paren || (type === "word" && !UNQUOTED_SPECIAL.test(text) && text.includes("("));
    const equals = this.src[start] === "=" && end - start > 1;
    if (!paren && !equals) return word;
    this.ctx.report("zsh-syntax", start, end);
    if (paren) return null;
    return mode === NAME && word?.startsWith("=") ? word.slice(1) : null;
  }

  private readWord(type: string, mode: WordMode): string | null {
    const c = this.cursor;
    const start = c.startIndex;
    const end = c.endIndex;
    this.wordStart = start;
    this.wordEnd = end;
    const text = this.src.slice(start, end);
    if (mode !== CONDITIONAL && tildeExpands(text)) {
      // `~`, `~/x`, `~user`, `~+`, and `~` after `=` or `:` in an assignment-like word: bash reads a home
      // directory there, never the text. Quoted (`'~/x'`) it is the text, so the two are not one command.
      if (mode === NAME) this.ctx.report("dynamic-command-name", start, end);
      else this.ctx.report("tilde-expansion", start, end);
      return null;
    }
    if (type === "word" && !UNQUOTED_SPECIAL.test(text)) return text;
    this.value = "";
    this.literal = true;
    this.glob = false;
    this.bracket = false;
    this.braceDepth = 0;
    this.braceSeparator = false;
    this.brace = false;
    this.misread = false;
    this.wordPart(type, start, end, mode);
    if (this.misread) {
      this.literal = false;
      if (mode !== NAME) this.ctx.report("unsupported-syntax", start, end);
    }
    if ((this.glob || this.brace) && (mode === ARGUMENT || mode === NAME)) {
      this.literal = false;
      if (mode === ARGUMENT) this.ctx.report("glob", start, end);
    }
    if (this.literal) return this.value;
    if (mode === NAME) this.ctx.report("dynamic-command-name", start, end);
    return null;
  }

  private wordPart(type: string, start: number, end: number, mode: WordMode): void {
    const c = this.cursor;
    switch (type) {
      case "word":
        this.unquoted(this.src.slice(start, end));
        return;
      case "number":
        if (c.gotoFirstChild()) {
          c.gotoParent();
          this.expansion(start, end, mode);
        } else {
          this.unquoted(this.src.slice(start, end));
        }
        return;
      case "raw_string":
        this.quoted(this.src.slice(start + 1, end - 1));
        return;
      case "string":
        this.doubleQuoted(start, mode);
        return;
      case "ansi_c_string": {
        const decoded = decodeAnsiC(this.src.slice(start + 2, end - 1), this.zsh);
        if (decoded === null) {
          this.literal = false;
          if (mode !== NAME) this.ctx.report("ansi-c-string", start, end);
        } else {
          this.quoted(decoded);
        }
        return;
      }
      case "simple_expansion":
        // `$name`; tree-sitter reads `== $ x` as one expansion of x.
        if (BLANK.test(this.src.slice(start, end))) this.misread = true;
        this.expansion(start, end, mode);
        return;
      case "expansion":
        // `${ cmd; }`, `${| cmd; }`: a function substitution runs cmd (bash 5.3, ksh93, mksh).
        if (FUNSUB_START.test(this.src.slice(start, start + 3))) {
          this.literal = false;
          this.ctx.report("command-substitution", start, end);
          return;
        }
        this.expansion(start, end, mode);
        return;
      case "arithmetic_expansion":
        this.expansion(start, end, mode);
        return;
      case "command_substitution":
        this.literal = false;
        this.ctx.report(this.src[start] === "`" ? "backticks" : "command-substitution", start, end);
        return;
      case "process_substitution":
        this.literal = false;
        this.ctx.report("process-substitution", start, end);
        return;
      case "brace_expression":
        this.value += this.src.slice(start, end);
        this.brace = true;
        return;
      case "extglob_pattern":
        this.value += this.src.slice(start, end);
        if (mode !== CONDITIONAL) this.glob = true;
        this.paren = true;
        return;
      case "concatenation": {
        let position = start;
        c.gotoFirstChild();
        do {
          const partStart = c.startIndex;
          const partEnd = c.endIndex;
          if (partStart !== position) this.misread = true; // parts of one word touch each other
          position = partEnd;
          this.wordPart(c.nodeType, partStart, partEnd, mode);
        } while (c.gotoNextSibling());
        c.gotoParent();
        return;
      }
      case "$": {
        // A literal `$` only when the token is exactly `$` and no string follows: bash drops the `$` of
        // `$"..."` (a translated string), and tree-sitter folds some flags into this token (`-f$`).
        const next = this.src[end];
        if (this.src.slice(start, end) !== "$" || next === '"' || next === "'") {
          this.misread = true;
          return;
        }
        this.value += "$";
        return;
      }
      case "ERROR":
        this.literal = false;
        return;
      default:
        // regex outside [[ ]], translated strings `$"..."`, anything unknown.
        if (type === "regex" && mode === CONDITIONAL) {
          this.value += this.src.slice(start, end);
          return;
        }
        this.literal = false;
        if (mode !== NAME) this.ctx.report("unsupported-syntax", start, end);
    }
  }

  /** `$x`, `${x...}`, `$((...))`: the value is unknown and may split into several words. */
  private expansion(start: number, end: number, mode: WordMode): void {
    this.literal = false;
    if (mode !== NAME) this.ctx.report("parameter-expansion", start, end);
    this.scanSubstitutions();
  }

  /** The parts of `"..."`, including any text between them that tree-sitter leaves out of a node. */
  private doubleQuoted(start: number, mode: WordMode): void {
    const c = this.cursor;
    let position = start + 1;
    c.gotoFirstChild();
    do {
      const type = c.nodeType;
      const partStart = c.startIndex;
      const partEnd = c.endIndex;
      if (partStart > position) this.quoted(unquoteDoubleQuoted(this.src.slice(position, partStart)));
      if (partEnd > position) position = partEnd;
      if (type === '"') continue;
      if (type === "string_content") this.quoted(unquoteDoubleQuoted(this.src.slice(partStart, partEnd)));
      else if (type === "$") this.value += "$";
      else if (type === "word" || type === "concatenation") {
        this.literal = false;
        if (mode !== NAME) this.ctx.report("unsupported-syntax", partStart, partEnd);
      } else this.wordPart(type, partStart, partEnd, mode);
    } while (c.gotoNextSibling());
    c.gotoParent();
  }

  /** Quoted text: taken as it is; it cannot start a glob, but a `]` can end one begun outside quotes. */
  private quoted(text: string): void {
    this.value += text;
    if (this.bracket && text.includes("]")) this.glob = true;
  }

  /** Unquoted text: backslash escapes, and the characters of pathname and brace expansion. */
  private unquoted(text: string): void {
    let out = "";
    let from = 0;
    for (let index = 0; index < text.length; index++) {
      switch (text.charCodeAt(index)) {
        case 0x5c: // backslash: the next character is literal; before a newline, both go
          if (index + 1 >= text.length) break;
          out += text.slice(from, index);
          from = text.charCodeAt(index + 1) === 0x0a ? index + 2 : index + 1;
          index++;
          break;
        case 0x2a: // *
        case 0x3f: // ?
          this.glob = true;
          break;
        case 0x5b: // [
          this.bracket = true;
          break;
        case 0x5d: // ]
          if (this.bracket) this.glob = true;
          break;
        case 0x7b: // {
          this.braceDepth++;
          break;
        case 0x28: // ( : a glob qualifier or a pattern group for zsh
          this.paren = true;
          break;
        case 0x2c: // ,
          if (this.braceDepth > 0) this.braceSeparator = true;
          break;
        case 0x2e: // .
          if (this.braceDepth > 0 && text.charCodeAt(index + 1) === 0x2e) this.braceSeparator = true;
          break;
        case 0x7d: // }
          if (this.braceDepth > 0) {
            this.braceDepth--;
            if (this.braceSeparator) this.brace = true;
          }
          break;
        case 0x22: // " ' ` or a blank in a word node: tree-sitter and bash read this word differently
        case 0x27:
        case 0x60:
        case 0x20:
        case 0x09:
        case 0x0a:
          this.misread = true;
          break;
      }
    }
    this.value += from === 0 ? text : out + text.slice(from);
  }

  /** Reports the command and process substitutions at or under the cursor: their commands run. */
  scanSubstitutions(): void {
    const c = this.cursor;
    if (this.substitution() || !c.gotoFirstChild()) return;
    let depth = 1;
    for (;;) {
      if (!this.substitution() && c.gotoFirstChild()) {
        depth++;
        continue;
      }
      while (!c.gotoNextSibling()) {
        c.gotoParent();
        if (--depth === 0) return;
      }
    }
  }

  private substitution(): boolean {
    const c = this.cursor;
    const type = c.nodeType;
    if (type === "command_substitution") {
      const start = c.startIndex;
      this.ctx.report(this.src[start] === "`" ? "backticks" : "command-substitution", start, c.endIndex);
      return true;
    }
    if (type === "process_substitution") {
      this.ctx.reportNode("process-substitution");
      return true;
    }
    if (type === "expansion" && FUNSUB_START.test(this.src.slice(c.startIndex, c.startIndex + 3))) {
      this.ctx.reportNode("command-substitution");
      return true;
    }
    // zsh subscripts an unbraced expansion (`$x[i]`, `"$x[1,$n]"`), evaluating the subscript.
    if (this.zsh && type === "simple_expansion" && this.src[c.endIndex] === "[") {
      const close = this.src.indexOf("]", c.endIndex);
      this.ctx.report("zsh-syntax", c.startIndex, close === -1 ? c.endIndex + 1 : close + 1);
    }
    return false;
  }
}
