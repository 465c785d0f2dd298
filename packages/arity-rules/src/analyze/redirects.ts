// The redirection reader: file redirections, here-strings and heredocs at the cursor, read into the Parts
// of the command they belong to, their targets read by the word reader.

import type { OpaquePart, Redirect } from "../types.js";
import type { WalkContext } from "./context.js";
import type { FlatCursor } from "./flat-tree.js";
import { STATEMENTS, WORDS } from "./node-types.js";
import type { Parts } from "./parts.js";
import { ARGUMENT, type WordReader } from "./word-reader.js";

const DESCRIPTOR = /^\d+-?$/;
const DIGITS = /^\d+$/;

function makeRedirect(operator: string, fd: number | null, target: string | null): Redirect {
  switch (operator) {
    case "<":
      return { kind: "read", operator, fd, target };
    case ">>":
    case "&>>":
      return { kind: "append", operator, fd, target };
    case "<&-":
    case ">&-":
      return { kind: "close", operator: operator.slice(0, 2), fd, target: "-" };
    case ">&":
    case "<&":
      if (target === "-") return { kind: "close", operator, fd, target };
      if (target !== null && DESCRIPTOR.test(target)) return { kind: "duplicate", operator, fd, target };
      // `>&file` writes the file; an unknown target may be a file too.
      return { kind: operator === ">&" ? "write" : "duplicate", operator, fd, target };
    default:
      // `>`, `>|`, `&>`, `<>`, and anything unexpected: assume a write.
      return { kind: "write", operator, fd, target };
  }
}

export class RedirectReader {
  private readonly ctx: WalkContext;
  private readonly src: string;
  private readonly cursor: FlatCursor;
  private readonly zsh: boolean;
  private readonly words: WordReader;
  /** Where an ERROR `<` just before a redirection ends (half of a `<>`). */
  private lessError = -1;
  // The redirection being read by fileRedirect.
  private redirectStart = 0;
  private operatorEnd = 0;

  constructor(ctx: WalkContext, words: WordReader) {
    this.ctx = ctx;
    this.src = ctx.src;
    this.cursor = ctx.cursor;
    this.zsh = ctx.zsh;
    this.words = words;
  }

  /**
   * Reads the redirections among the cursor node's children into parts (their opaque parts are deferred
   * until they are applied). Returns whether one of them is a heredoc.
   */
  collectRedirects(parts: Parts): boolean {
    const c = this.cursor;
    const saved = this.ctx.opaque;
    const deferred: OpaquePart[] = [];
    this.ctx.opaque = deferred;
    let heredoc = false;
    c.gotoFirstChild();
    do {
      const type = c.nodeType;
      // tree-sitter-bash has no `<>` (open for reading and writing): it reads an ERROR `<`, then `>`.
      if (type === "ERROR" && this.ctx.text() === "<") this.lessError = c.endIndex;
      else if (type === "file_redirect") this.fileRedirect(parts);
      else if (type === "herestring_redirect") this.herestring(parts);
      else if (type === "heredoc_redirect") {
        this.heredoc(parts);
        heredoc = true;
      }
    } while (c.gotoNextSibling());
    c.gotoParent();
    this.ctx.opaque = saved;
    if (deferred.length > 0) parts.deferred = deferred;
    return heredoc;
  }

  fileRedirect(parts: Parts): void {
    const c = this.cursor;
    this.redirectStart = c.startIndex;
    const end = c.endIndex;
    let fd: number | null = null;
    let operator = "";
    let target: string | null = null;
    let hasTarget = false;
    let targetStart = -1;
    let targetEnd = -1;
    c.gotoFirstChild();
    do {
      const type = c.nodeType;
      if (type === "file_descriptor") {
        const text = this.ctx.text();
        if (DIGITS.test(text)) fd = Number(text);
        else this.ctx.reportNode("unsupported-syntax");
      } else if (WORDS.has(type)) {
        if (!hasTarget) {
          hasTarget = true;
          target = this.words.evalWord(type, ARGUMENT);
          targetStart = this.words.wordStart;
          targetEnd = this.words.wordEnd;
        } else if (c.startIndex === targetEnd) {
          // One bash word that tree-sitter split in two (`>"/etc/"\passwd`).
          const rest = this.words.evalWord(type, ARGUMENT);
          target = target !== null && rest !== null ? target + rest : null;
          targetEnd = this.words.wordEnd;
          this.ctx.report("unsupported-syntax", targetStart, targetEnd);
        } else {
          // tree-sitter reads `echo a > x b` as a redirection to x and b; for bash, b is a word of echo.
          this.words.addWord(parts, type, ARGUMENT);
        }
      } else if (type === "ERROR") {
        if (operator === "<" && this.ctx.text() === ">") operator = "<>";
      } else if (type !== "comment") {
        if (c.nodeIsNamed) this.ctx.reportNode("unsupported-syntax");
        else {
          operator = type === ">" && c.startIndex === this.lessError ? "<>" : type;
          this.operatorEnd = c.endIndex;
        }
      }
    } while (c.gotoNextSibling());
    c.gotoParent();
    if (hasTarget && this.misplacedTarget(operator, targetStart, targetEnd)) {
      this.ctx.report("parse-error", this.redirectStart, end);
    }
    // zsh's `>!` and `>>!` (clobbering, as `>|`) redirect to the next word; bash's to a file named `!`.
    if (this.zsh && operator.includes(">") && this.src[this.operatorEnd] === "!") {
      this.ctx.report("zsh-syntax", this.redirectStart, end);
    }
    const redirect = makeRedirect(operator, fd, target);
    if (hasTarget && target === null) redirect.written = this.src.slice(targetStart, targetEnd);
    parts.redirects.push(redirect);
    if (end > parts.end) parts.end = end;
  }

  /**
   * Redirections tree-sitter accepts and bash rejects (nothing runs): a target on the next line
   * (`ls >` newline `x`), or digits glued to a redirection (`x > 2>&1`: for bash, 2 is the descriptor of
   * `>&1` and `>` has no target; after `>&` and `<&` the digits are the target).
   */
  private misplacedTarget(operator: string, targetStart: number, targetEnd: number): boolean {
    if (this.src.slice(this.operatorEnd, targetStart).includes("\n")) return true;
    const next = this.src[targetEnd];
    return (
      (next === ">" || next === "<") &&
      operator !== ">&" &&
      operator !== "<&" &&
      DIGITS.test(this.src.slice(targetStart, targetEnd))
    );
  }

  /** `<<< word`: stdin from a string, no file. */
  herestring(parts: Parts): void {
    this.ctx.reportNode("herestring");
    this.words.scanSubstitutions();
    const end = this.cursor.endIndex;
    if (end > parts.end) parts.end = end;
  }

  /**
   * `<<EOF` / `<<-EOF`. tree-sitter hangs what follows the delimiter on the same line under the heredoc
   * node: more redirections and words of the command (read here), and the rest of the pipeline or list
   * (walked after the command by walkHeredocContinuations).
   */
  private heredoc(parts: Parts): void {
    const c = this.cursor;
    this.ctx.reportNode("heredoc");
    c.gotoFirstChild();
    do {
      const type = c.nodeType;
      if (type === "heredoc_start") {
        if (c.endIndex > parts.end) parts.end = c.endIndex;
      } else if (type === "file_redirect") {
        this.fileRedirect(parts);
      } else if (type === "herestring_redirect") {
        this.herestring(parts);
      } else if (type === "heredoc_body") {
        this.words.scanSubstitutions();
      } else if (WORDS.has(type)) {
        this.words.addWord(parts, type, ARGUMENT);
        if (c.endIndex > parts.end) parts.end = c.endIndex;
      } else if (c.nodeIsNamed && !STATEMENTS.has(type)) {
        if (type !== "heredoc_end" && type !== "file_descriptor" && type !== "comment" && type !== "ERROR") {
          this.ctx.reportNode("unsupported-syntax");
        }
      }
    } while (c.gotoNextSibling());
    c.gotoParent();
  }
}
