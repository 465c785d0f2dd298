// The walk over one tree-sitter-bash tree: simple commands with literal argv, the operators between them,
// redirections and opaque parts. It moves a single TreeCursor (no Node objects) and fails closed: a node
// type it does not know is reported as `unsupported-syntax`, never skipped.
//
// A script zsh runs is walked with `zsh` set. tree-sitter still reads it with bash's grammar; where zsh
// reads the same text otherwise, the walker reports `zsh-syntax`:
// - a word starting with an unquoted `=` (`=rm f`, `sudo =rm f`: zsh puts the command's path there, and
//   `=(…)` is a process substitution); a command name is read without the `=`, so rules see `rm`, any
//   other such word is not literal;
// - `repeat`, `foreach`, `end` or `always` as a command name, or after `time`;
// - redirections with no command (`> f`, `< f`, `<<< x`): zsh runs `$NULLCMD` or `$READNULLCMD`;
// - `>!` and `>>!` (bash: a file named `!`; zsh: clobbering the next word);
// - an unbraced expansion followed by `[` (`$x[i]`, `"$x[1,$n]"`): a subscript zsh evaluates;
// - an unquoted `(` in a word, or an extended glob, outside `[[ ]]` (glob qualifiers, `*(e:…:)` runs
//   code), though tree-sitter-bash reads nearly every such word as a parse error anyway.
// `$'…'` is decoded as zsh decodes it (words.ts). Other zsh-only syntax that tree-sitter-bash cannot parse
// (`for x (a b) cmd`, `rm f &!`, `() { … }`, `${(e)x}`, `$=x`, `if [[ … ]] { … }`) is a parse error, never
// read with certainty either. Everything else is read with bash's rules: options set in zsh's startup
// files (EXTENDED_GLOB, SH_WORD_SPLIT, …) are not known here.

import type { TreeCursor } from "web-tree-sitter";
import type { Analysis, OpaquePart, OpaqueReason, Operator, Redirect, SimpleCommand } from "../types.js";
import { shellScriptIndex } from "./shell-script.js";
import { decodeAnsiC, FUNSUB_START, unquoteDoubleQuoted } from "./words.js";

/** Analyses the script of a nested `bash -c SCRIPT` at the given depth (`zsh`: zsh runs it). */
export type AnalyzeNested = (script: string, depth: number, zsh: boolean) => Analysis;

/** `bash -c` scripts are analysed this many levels deep; a deeper one is `too-deep`. */
const MAX_NESTING_DEPTH = 4;

const STATEMENTS: ReadonlySet<string> = new Set([
  "c_style_for_statement",
  "case_statement",
  "command",
  "compound_statement",
  "declaration_command",
  "for_statement",
  "function_definition",
  "if_statement",
  "list",
  "negated_command",
  "pipeline",
  "redirected_statement",
  "subshell",
  "test_command",
  "unset_command",
  "variable_assignment",
  "variable_assignments",
  "while_statement",
]);

const WORDS: ReadonlySet<string> = new Set([
  "word",
  "number",
  "string",
  "raw_string",
  "ansi_c_string",
  "translated_string",
  "concatenation",
  "simple_expansion",
  "expansion",
  "arithmetic_expansion",
  "command_substitution",
  "process_substitution",
  "brace_expression",
  "extglob_pattern",
  "regex",
]);

const EXPRESSIONS: ReadonlySet<string> = new Set([
  "binary_expression",
  "unary_expression",
  "parenthesized_expression",
  "postfix_expression",
  "ternary_expression",
]);

const CONTROL_FLOW: ReadonlySet<string> = new Set([
  "if_statement",
  "while_statement",
  "for_statement",
  "c_style_for_statement",
  "case_statement",
]);

// Parts of a compound statement that hold statements of their own.
const CLAUSES: ReadonlySet<string> = new Set(["do_group", "else_clause", "elif_clause", "case_item"]);

// Bash reserved words: as an unquoted command name they mean tree-sitter misread a compound command
// (it reads `time { a; }` as the command `time { a` and the command `}`).
const RESERVED_WORDS: ReadonlySet<string> = new Set([
  "{",
  "}",
  "!",
  "[[",
  "]]",
  "case",
  "do",
  "done",
  "elif",
  "else",
  "esac",
  "fi",
  "for",
  "function",
  "if",
  "in",
  "select",
  "then",
  "until",
  "while",
]);

// Reserved words of zsh that bash lacks: as a command name (or after `time`), zsh reads a loop or a block
// that tree-sitter reads as a simple command (`repeat 2 rm f`, `foreach x (a b)`, `} always {`).
const ZSH_RESERVED_WORDS: ReadonlySet<string> = new Set(["repeat", "foreach", "end", "always"]);

const OPERATORS: ReadonlySet<string> = new Set(["&&", "||", "|", "|&"]);
const CASE_TERMINATORS: ReadonlySet<string> = new Set([";;", ";&", ";;&"]);
const DESCRIPTOR = /^\d+-?$/;
const DIGITS = /^\d+$/;
const BLANK = /[ \t\n]/;
// Characters that make an unquoted word more than its text: escapes, globs, braces, stray quotes, blanks.
const UNQUOTED_SPECIAL = /[\\*?[{'"` \t\n]/;

// How a word is read. Only ARGUMENT and NAME words undergo pathname and brace expansion.
const ARGUMENT = 0;
const NAME = 1;
const CONDITIONAL = 2; // inside [[ ]]: no splitting, no globbing; patterns are literal
const VALUE = 3; // the value of an assignment
type WordMode = typeof ARGUMENT | typeof NAME | typeof CONDITIONAL | typeof VALUE;

/** The words, redirections and deferred opaque parts gathered for one command, or for a redirection list. */
class Parts {
  readonly argv: string[] = [];
  /** Indexes of argv words that are not literal (they hold their source text). */
  dynamic: number[] | null = null;
  readonly redirects: Redirect[] = [];
  /** Where the command's text ends, its own redirections included. */
  end: number;
  /** Opaque parts of trailing redirections, reported when the redirections are applied. */
  deferred: OpaquePart[] | null = null;
  /** Source range of the last word read into argv (start -1 after an assignment), to spot split words. */
  lastStart = -1;
  lastEnd = -1;

  constructor(end: number) {
    this.end = end;
  }

  add(word: string, literal: boolean): void {
    if (!literal) this.markDynamic(this.argv.length);
    this.argv.push(word);
  }

  markDynamic(index: number): void {
    if (this.dynamic === null) this.dynamic = [index];
    else if (!this.dynamic.includes(index)) this.dynamic.push(index);
  }

  isLiteral(index: number): boolean {
    return this.dynamic === null || !this.dynamic.includes(index);
  }

  /** Appends other after this: its redirections, words and deferred parts. */
  append(other: Parts): void {
    for (const redirect of other.redirects) this.redirects.push(redirect);
    for (let index = 0; index < other.argv.length; index++) {
      this.add(other.argv[index] as string, other.isLiteral(index));
    }
    if (other.deferred !== null) this.deferred = [...(this.deferred ?? []), ...other.deferred];
    if (other.end > this.end) this.end = other.end;
  }
}

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

export class Walker {
  readonly commands: SimpleCommand[] = [];
  readonly operators: Operator[] = [];
  readonly redirects: Redirect[] = [];
  opaque: OpaquePart[] = [];

  private readonly src: string;
  private readonly cursor: TreeCursor;
  private readonly depth: number;
  private readonly analyzeNested: AnalyzeNested;
  /** The script is run by zsh, which reads some of bash's syntax otherwise (see the top of this file). */
  private readonly zsh: boolean;
  /** The operator that joins the last command to the next one. */
  private pending: Operator = ";";

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
  private wordStart = 0;
  private wordEnd = 0;
  /** Where an ERROR `<` just before a redirection ends (half of a `<>`). */
  private lessError = -1;
  /** The first newline at or after the last command checked by checkOneLine. */
  private nextNewline = -1;
  // The redirection being read by fileRedirect.
  private redirectStart = 0;
  private operatorEnd = 0;

  constructor(src: string, cursor: TreeCursor, depth: number, analyzeNested: AnalyzeNested, zsh = false) {
    this.src = src;
    this.cursor = cursor;
    this.depth = depth;
    this.analyzeNested = analyzeNested;
    this.zsh = zsh;
  }

  /** Walks the tree from the cursor's node (the root). */
  walk(): void {
    if (this.cursor.nodeType === "ERROR") this.walkError();
    else this.walkBlock();
  }

  result(): Analysis {
    return {
      commands: this.commands,
      operators: this.operators,
      redirects: this.redirects,
      opaque: this.opaque,
    };
  }

  // ---- statements ----

  /** The children of a program, subshell, brace group, or a part of a compound command. */
  private walkBlock(caseItem = false): void {
    const c = this.cursor;
    if (!c.gotoFirstChild()) return;
    do {
      const type = c.nodeType;
      if (STATEMENTS.has(type)) {
        this.walkStatement(type, null);
      } else if (type === "&") {
        this.pending = "&";
        this.reportBackground();
      } else if (CLAUSES.has(type)) {
        this.walkBlock(type === "case_item");
      } else if (CASE_TERMINATORS.has(type)) {
        // tree-sitter accepts `ls ;; pwd`; bash rejects `;;` outside a case item and runs nothing.
        if (!caseItem) this.reportNode("parse-error");
      } else if (type === "ERROR") {
        this.walkError();
      } else if (WORDS.has(type) || EXPRESSIONS.has(type)) {
        // The words of `for x in ...`, `case ... in`, case patterns, `for ((...))`: the compound command is
        // opaque already; substitutions in them still run.
        this.scanSubstitutions();
      } else if (type !== "comment" && type !== "variable_name" && c.nodeIsNamed) {
        this.reportNode("unsupported-syntax");
      }
    } while (c.gotoNextSibling());
    c.gotoParent();
  }

  /** At a `&`: the statement before it runs in the background. */
  private reportBackground(): void {
    const c = this.cursor;
    const end = c.endIndex;
    if (!c.gotoPreviousSibling()) return;
    const start = STATEMENTS.has(c.nodeType) ? c.startIndex : -1;
    c.gotoNextSibling();
    if (start !== -1) this.report("background", start, end);
  }

  /**
   * One statement at the cursor. `trailing` holds redirections (and stray words) written after it, which
   * bash binds to the last simple command in it (`a && b > x` redirects only b); every path applies them
   * exactly once.
   */
  private walkStatement(type: string, trailing: Parts | null): void {
    switch (type) {
      case "command":
        this.walkCommand(trailing);
        return;
      case "declaration_command":
      case "unset_command":
        this.walkDeclaration(trailing);
        return;
      case "test_command":
        this.walkTest(trailing);
        return;
      case "list":
        this.walkSequence(trailing, false);
        return;
      case "pipeline":
        this.walkSequence(trailing, true);
        return;
      case "negated_command":
        this.walkNegated(trailing);
        return;
      case "redirected_statement":
        this.walkRedirected(trailing);
        return;
      case "function_definition":
        this.walkFunction(trailing);
        return;
    }
    const from = this.commands.length;
    const c = this.cursor;
    if (type === "variable_assignment") {
      this.assignment();
    } else if (type === "variable_assignments") {
      c.gotoFirstChild();
      do {
        if (c.nodeType === "variable_assignment") this.assignment();
      } while (c.gotoNextSibling());
      c.gotoParent();
    } else if (type === "subshell") {
      this.reportNode("subshell");
      this.walkBlock();
    } else if (type === "compound_statement") {
      c.gotoFirstChild();
      const arithmetic = c.nodeType === "((";
      c.gotoParent();
      if (arithmetic) {
        this.reportNode("unsupported-syntax");
        this.scanSubstitutions();
      } else {
        this.reportNode("brace-group");
        this.walkBlock();
      }
    } else if (CONTROL_FLOW.has(type)) {
      this.reportNode("control-flow");
      if (type === "c_style_for_statement") this.walkArithmeticFor();
      else this.walkBlock();
    } else if (type === "ERROR") {
      this.walkError();
    } else {
      this.reportNode("unsupported-syntax");
    }
    if (trailing !== null) this.applyTrailing(trailing, from);
  }

  /** A list (`&&`, `||`) or a pipeline (`|`, `|&`). */
  private walkSequence(trailing: Parts | null, pipeline: boolean): void {
    const c = this.cursor;
    let last = -1;
    if (trailing !== null) {
      let index = 0;
      c.gotoFirstChild();
      do {
        if (STATEMENTS.has(c.nodeType)) last = index;
        index++;
      } while (c.gotoNextSibling());
      c.gotoParent();
    }
    let index = 0;
    c.gotoFirstChild();
    do {
      const type = c.nodeType;
      // `!` negates a whole pipeline; bash rejects it after a `|`.
      if (pipeline && index > 0 && type === "negated_command") this.reportNode("parse-error");
      if (STATEMENTS.has(type)) this.walkStatement(type, index === last ? trailing : null);
      else if (OPERATORS.has(type)) this.pending = type as Operator;
      else if (type === "ERROR") this.walkError();
      else if (type !== "comment") this.reportNode("unsupported-syntax");
      index++;
    } while (c.gotoNextSibling());
    c.gotoParent();
    if (trailing !== null && last === -1) this.applyTrailing(trailing, this.commands.length);
  }

  private walkNegated(trailing: Parts | null): void {
    const c = this.cursor;
    let walked = false;
    c.gotoFirstChild();
    do {
      const type = c.nodeType;
      if (STATEMENTS.has(type)) {
        this.walkStatement(type, walked ? null : trailing);
        walked = true;
      } else if (type === "ERROR") this.walkError();
      else if (type !== "!" && type !== "comment") this.reportNode("unsupported-syntax");
    } while (c.gotoNextSibling());
    c.gotoParent();
    if (trailing !== null && !walked) this.applyTrailing(trailing, this.commands.length);
  }

  /** `for ((init; test; step)); do ...; done`: the arithmetic is only scanned (`i=0` is no assignment prefix). */
  private walkArithmeticFor(): void {
    const c = this.cursor;
    c.gotoFirstChild();
    do {
      const type = c.nodeType;
      if (type === "do_group" || type === "compound_statement") this.walkBlock();
      else if (type === "ERROR") this.walkError();
      else this.scanSubstitutions();
    } while (c.gotoNextSibling());
    c.gotoParent();
  }

  /** Statements found inside an ERROR node; the parse error itself was reported before the walk. */
  private walkError(): void {
    const c = this.cursor;
    if (!c.gotoFirstChild()) return;
    do {
      const type = c.nodeType;
      if (STATEMENTS.has(type)) this.walkStatement(type, null);
      else if (type === "ERROR") this.walkError();
    } while (c.gotoNextSibling());
    c.gotoParent();
  }

  private walkRedirected(outer: Parts | null): void {
    const c = this.cursor;
    const own = new Parts(-1);
    const heredoc = this.collectRedirects(own);
    if (outer !== null) own.append(outer);
    let walked = false;
    c.gotoFirstChild();
    do {
      const type = c.nodeType;
      if (STATEMENTS.has(type) && !walked) {
        this.walkStatement(type, own);
        walked = true;
      } else if (type === "ERROR") {
        this.walkError();
      } else if (
        type !== "file_redirect" &&
        type !== "heredoc_redirect" &&
        type !== "herestring_redirect" &&
        type !== "comment"
      ) {
        this.reportNode("unsupported-syntax");
      }
    } while (c.gotoNextSibling());
    c.gotoParent();
    if (!walked) {
      // Redirections alone (`> f`, `< f`): zsh runs `$NULLCMD` or `$READNULLCMD` with them.
      if (this.zsh) this.reportNode("zsh-syntax");
      this.applyTrailing(own, this.commands.length);
    }
    if (heredoc) this.walkHeredocContinuations();
  }

  private walkFunction(trailing: Parts | null): void {
    const c = this.cursor;
    this.reportNode("function-definition");
    const own = new Parts(-1);
    this.collectRedirects(own);
    if (trailing !== null) own.append(trailing);
    const from = this.commands.length;
    c.gotoFirstChild();
    do {
      const type = c.nodeType;
      // The body's commands run when the function is called; its braces are not a separate opaque part.
      if (type === "compound_statement") this.walkBlock();
      else if (STATEMENTS.has(type)) this.walkStatement(type, null);
      else if (type === "ERROR") this.walkError();
      else if (
        c.nodeIsNamed &&
        type !== "word" &&
        type !== "comment" &&
        type !== "file_redirect" &&
        type !== "heredoc_redirect" &&
        type !== "herestring_redirect"
      ) {
        this.reportNode("unsupported-syntax");
      }
    } while (c.gotoNextSibling());
    c.gotoParent();
    this.applyTrailing(own, from);
  }

  // ---- simple commands ----

  private walkCommand(trailing: Parts | null): void {
    const c = this.cursor;
    const start = c.startIndex;
    const parts = new Parts(c.endIndex);
    let named = false;
    let timed = -1;
    let redirected = false;
    c.gotoFirstChild();
    do {
      const type = c.nodeType;
      if (type === "command_name") {
        named = this.commandName(parts);
      } else if (WORDS.has(type)) {
        this.addWord(parts, type, ARGUMENT);
      } else if (type === "variable_assignment") {
        this.assignment();
        parts.lastStart = -1;
        parts.lastEnd = c.endIndex;
      } else if (type === "file_redirect") {
        this.fileRedirect(parts);
        redirected = true;
      } else if (type === "herestring_redirect") {
        this.herestring(parts);
        redirected = true;
      } else if (type === "subshell" && named && timed === -1 && isTimeKeyword(parts)) {
        // `time ( ... )`: the keyword times the subshell; only the subshell's commands run.
        timed = this.commands.length;
        this.walkStatement(type, null);
      } else if (type === "$") {
        this.loneDollar(parts);
      } else if (type !== "comment" && type !== "ERROR") {
        this.pushToken(parts, type); // `==`, `=~` read as words
      }
    } while (c.gotoNextSibling());
    c.gotoParent();
    this.checkOneLine(start, parts.end);
    if (timed !== -1) {
      for (const redirect of parts.redirects) this.redirects.push(redirect);
      if (trailing !== null) this.applyTrailing(trailing, timed);
      return;
    }
    if (!named) {
      // Only assignments and redirections (or a name lost to a parse error): no command runs, but zsh
      // runs `$NULLCMD` or `$READNULLCMD` for redirections with no command.
      if (this.zsh && redirected) this.reportNode("zsh-syntax");
      for (const redirect of parts.redirects) this.redirects.push(redirect);
      if (parts.argv.length > 0) this.reportText("unsupported-syntax", parts.argv.join(" "));
      if (trailing !== null) this.applyTrailing(trailing, this.commands.length);
      return;
    }
    this.finish(parts, start, trailing);
  }

  /** Reads the command name into parts; false when it is missing (a parse error). */
  private commandName(parts: Parts): boolean {
    const c = this.cursor;
    c.gotoFirstChild();
    const word = this.evalWord(c.nodeType, NAME);
    c.gotoParent();
    const start = this.wordStart;
    const end = this.wordEnd;
    if (start === end) return false;
    this.pushWord(parts, word, start, end);
    const text = this.src.slice(start, end);
    if (RESERVED_WORDS.has(text)) this.report("unsupported-syntax", start, end);
    if (this.zsh && ZSH_RESERVED_WORDS.has(text)) this.report("zsh-syntax", start, end);
    return true;
  }

  /** `export A=1 B`, `local -r x`, `declare -a`, `readonly`, `typeset`, `unset x`. */
  private walkDeclaration(trailing: Parts | null): void {
    const c = this.cursor;
    const start = c.startIndex;
    const parts = new Parts(c.endIndex);
    c.gotoFirstChild();
    do {
      const type = c.nodeType;
      if (type === "variable_assignment") {
        const wordStart = c.startIndex;
        const wordEnd = c.endIndex;
        this.pushWord(parts, this.assignmentWord(), wordStart, wordEnd);
      } else if (type === "variable_name") {
        this.pushWord(parts, this.text(), c.startIndex, c.endIndex);
      } else if (WORDS.has(type)) {
        this.addWord(parts, type, ARGUMENT);
      } else if (type !== "comment" && type !== "ERROR") {
        this.pushToken(parts, type); // the keyword
      }
    } while (c.gotoNextSibling());
    c.gotoParent();
    this.checkOneLine(start, parts.end);
    this.finish(parts, start, trailing);
  }

  /** `[ ... ]` and `[[ ... ]]`, as argv `["[", ..., "]"]`. */
  private walkTest(trailing: Parts | null): void {
    const c = this.cursor;
    const start = c.startIndex;
    const parts = new Parts(c.endIndex);
    const conditional = this.src.startsWith("[[", start);
    this.flattenTest(parts, conditional ? CONDITIONAL : ARGUMENT);
    if (!conditional) this.checkOneLine(start, parts.end); // `[[ ]]` may span lines, `[` may not
    this.finish(parts, start, trailing);
  }

  private flattenTest(parts: Parts, mode: WordMode): void {
    const c = this.cursor;
    if (!c.gotoFirstChild()) return;
    do {
      const type = c.nodeType;
      if (EXPRESSIONS.has(type)) this.flattenTest(parts, mode);
      else if (WORDS.has(type)) this.addWord(parts, type, mode);
      else if (type === "test_operator" || type === "variable_name") {
        this.pushWord(parts, this.text(), c.startIndex, c.endIndex);
      } else if (type !== "comment" && type !== "ERROR") this.pushToken(parts, type);
    } while (c.gotoNextSibling());
    c.gotoParent();
  }

  /**
   * A simple command ends at a newline that is not escaped; tree-sitter sometimes reads on (`echo ==`
   * newline `rm x` is one command to it, two to bash). Reports the command when a newline separates two of
   * its parts; newlines inside quoted words and heredoc bodies are no such gap.
   */
  private checkOneLine(start: number, end: number): void {
    if (this.nextNewline < start) {
      const found = this.src.indexOf("\n", start);
      this.nextNewline = found === -1 ? this.src.length : found;
    }
    if (this.nextNewline >= end) return;
    const c = this.cursor;
    c.gotoFirstChild();
    let previousEnd = -1;
    do {
      const partStart = c.startIndex;
      if (previousEnd !== -1 && partStart > previousEnd) {
        const gap = this.src.slice(previousEnd, partStart).replaceAll("\\\n", "");
        if (gap.includes("\n")) {
          this.report("unsupported-syntax", start, end);
          break;
        }
      }
      previousEnd = c.endIndex;
    } while (c.gotoNextSibling());
    c.gotoParent();
  }

  /** Pushes a finished simple command, then looks at what it runs: eval, a nested shell script. */
  private finish(parts: Parts, start: number, trailing: Parts | null): void {
    if (trailing !== null) {
      for (const redirect of trailing.redirects) parts.redirects.push(redirect);
      for (let index = 0; index < trailing.argv.length; index++) {
        parts.add(trailing.argv[index] as string, trailing.isLiteral(index));
      }
      if (trailing.deferred !== null) for (const part of trailing.deferred) this.opaque.push(part);
      if (trailing.end > parts.end) parts.end = trailing.end;
    }
    const command: SimpleCommand = {
      argv: parts.argv,
      redirects: parts.redirects,
      text: this.src.slice(start, parts.end),
      nested: null,
    };
    if (parts.dynamic !== null) command.dynamic = [...parts.dynamic].sort((a, b) => a - b);
    if (this.commands.length > 0) this.operators.push(this.pending);
    this.pending = ";";
    this.commands.push(command);
    for (const redirect of parts.redirects) this.redirects.push(redirect);
    this.inspect(command, parts);
  }

  private inspect(command: SimpleCommand, parts: Parts): void {
    const argv = parts.argv;
    if (argv.length === 0 || !parts.isLiteral(0)) return;
    if (argv[0] === "time") {
      // `time` is a keyword: the word after it (and `-p`) starts the timed command, and a reserved word
      // there means tree-sitter misread a compound command (`time { a; }`).
      let word = 1;
      while (argv[word] === "-p" || argv[word] === "--" || argv[word] === "time") word++;
      const next = argv[word];
      if (next !== undefined && (RESERVED_WORDS.has(next) || next === "coproc")) {
        this.reportText("unsupported-syntax", command.text);
      }
      if (next !== undefined && this.zsh && ZSH_RESERVED_WORDS.has(next)) {
        this.reportText("zsh-syntax", command.text);
      }
    }
    let index = 0;
    while ((argv[index] === "command" || argv[index] === "builtin") && parts.isLiteral(index)) {
      index++;
      while (argv[index]?.startsWith("-")) index++;
    }
    if (argv[index] === "eval" && parts.isLiteral(index)) {
      this.reportText("eval", command.text);
      return;
    }
    if (argv[0] === "coproc") {
      this.reportText("background", command.text);
      return;
    }
    const scriptIndex = shellScriptIndex(argv);
    if (scriptIndex === -1 || parts.dynamic?.some((word) => word <= scriptIndex)) return;
    if (this.depth >= MAX_NESTING_DEPTH) {
      this.reportText("too-deep", command.text);
      return;
    }
    const program = argv[0] as string;
    const nested = this.analyzeNested(
      argv[scriptIndex] as string,
      this.depth + 1,
      program.slice(program.lastIndexOf("/") + 1) === "zsh",
    );
    command.nested = nested;
    for (const redirect of nested.redirects) this.redirects.push(redirect);
    for (const part of nested.opaque) this.opaque.push(part);
  }

  /** `FOO=1 cmd` or a bare `FOO=1`: the environment or the shell changes; substitutions in it run. */
  private assignment(): void {
    this.reportNode("assignment-prefix");
    this.scanSubstitutions();
  }

  /** `NAME=value` as a word of a declaration command, or null when the value is not literal. */
  private assignmentWord(): string | null {
    const c = this.cursor;
    const start = c.startIndex;
    let valueStart = c.endIndex;
    let value = "";
    let literal = true;
    c.gotoFirstChild();
    do {
      const type = c.nodeType;
      if (type === "variable_name" || type === "=" || type === "+=") continue;
      if (WORDS.has(type)) {
        valueStart = c.startIndex;
        const word = this.evalWord(type, VALUE);
        if (word === null) literal = false;
        else value = word;
      } else if (type === "subscript") {
        const text = this.text();
        if (text.includes("$") || text.includes("`")) {
          literal = false;
          this.reportNode("parameter-expansion");
          this.scanSubstitutions();
        }
      } else if (type !== "comment" && type !== "ERROR") {
        literal = false;
        this.reportNode("unsupported-syntax");
        this.scanSubstitutions();
      }
    } while (c.gotoNextSibling());
    c.gotoParent();
    return literal ? this.src.slice(start, valueStart) + value : null;
  }

  private loneDollar(parts: Parts): void {
    const start = this.cursor.startIndex;
    const end = this.cursor.endIndex;
    const next = this.src[end];
    // `$"..."` (a translated string) is read by tree-sitter as `$` followed by a separate string, and
    // some flags ending in `$` (`-f$`) become one `$` token: only a token that is exactly `$` is literal.
    const exact = this.src.slice(start, end) === "$";
    if (exact && (next === undefined || next === " " || next === "\t" || next === "\n" || next === ";")) {
      this.pushWord(parts, "$", start, end);
    } else {
      this.report("unsupported-syntax", start, end);
      this.pushWord(parts, null, start, end);
    }
  }

  /** A token at the cursor read as a word: an anonymous one (`==`) as written; a named one is unknown. */
  private pushToken(parts: Parts, type: string): void {
    const c = this.cursor;
    const start = c.startIndex;
    const end = c.endIndex;
    if (c.nodeIsNamed) {
      this.report("unsupported-syntax", start, end);
      this.pushWord(parts, null, start, end);
    } else {
      this.pushWord(parts, type, start, end);
    }
  }

  // ---- redirections ----

  /**
   * Reads the redirections among the cursor node's children into parts (their opaque parts are deferred
   * until they are applied). Returns whether one of them is a heredoc.
   */
  private collectRedirects(parts: Parts): boolean {
    const c = this.cursor;
    const saved = this.opaque;
    const deferred: OpaquePart[] = [];
    this.opaque = deferred;
    let heredoc = false;
    c.gotoFirstChild();
    do {
      const type = c.nodeType;
      // tree-sitter-bash has no `<>` (open for reading and writing): it reads an ERROR `<`, then `>`.
      if (type === "ERROR" && this.text() === "<") this.lessError = c.endIndex;
      else if (type === "file_redirect") this.fileRedirect(parts);
      else if (type === "herestring_redirect") this.herestring(parts);
      else if (type === "heredoc_redirect") {
        this.heredoc(parts);
        heredoc = true;
      }
    } while (c.gotoNextSibling());
    c.gotoParent();
    this.opaque = saved;
    if (deferred.length > 0) parts.deferred = deferred;
    return heredoc;
  }

  private fileRedirect(parts: Parts): void {
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
        const text = this.text();
        if (DIGITS.test(text)) fd = Number(text);
        else this.reportNode("unsupported-syntax");
      } else if (WORDS.has(type)) {
        if (!hasTarget) {
          hasTarget = true;
          target = this.evalWord(type, ARGUMENT);
          targetStart = this.wordStart;
          targetEnd = this.wordEnd;
        } else if (c.startIndex === targetEnd) {
          // One bash word that tree-sitter split in two (`>"/etc/"\passwd`).
          const rest = this.evalWord(type, ARGUMENT);
          target = target !== null && rest !== null ? target + rest : null;
          targetEnd = this.wordEnd;
          this.report("unsupported-syntax", targetStart, targetEnd);
        } else {
          // tree-sitter reads `echo a > x b` as a redirection to x and b; for bash, b is a word of echo.
          this.addWord(parts, type, ARGUMENT);
        }
      } else if (type === "ERROR") {
        if (operator === "<" && this.text() === ">") operator = "<>";
      } else if (type !== "comment") {
        if (c.nodeIsNamed) this.reportNode("unsupported-syntax");
        else {
          operator = type === ">" && c.startIndex === this.lessError ? "<>" : type;
          this.operatorEnd = c.endIndex;
        }
      }
    } while (c.gotoNextSibling());
    c.gotoParent();
    if (hasTarget && this.misplacedTarget(operator, targetStart, targetEnd)) {
      this.report("parse-error", this.redirectStart, end);
    }
    // zsh's `>!` and `>>!` (clobbering, as `>|`) redirect to the next word; bash's to a file named `!`.
    if (this.zsh && operator.includes(">") && this.src[this.operatorEnd] === "!") {
      this.report("zsh-syntax", this.redirectStart, end);
    }
    parts.redirects.push(makeRedirect(operator, fd, target));
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
  private herestring(parts: Parts): void {
    this.reportNode("herestring");
    this.scanSubstitutions();
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
    this.reportNode("heredoc");
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
        this.scanSubstitutions();
      } else if (WORDS.has(type)) {
        this.addWord(parts, type, ARGUMENT);
        if (c.endIndex > parts.end) parts.end = c.endIndex;
      } else if (c.nodeIsNamed && !STATEMENTS.has(type)) {
        if (type !== "heredoc_end" && type !== "file_descriptor" && type !== "comment" && type !== "ERROR") {
          this.reportNode("unsupported-syntax");
        }
      }
    } while (c.gotoNextSibling());
    c.gotoParent();
  }

  private walkHeredocContinuations(): void {
    const c = this.cursor;
    c.gotoFirstChild();
    do {
      if (c.nodeType === "heredoc_redirect") this.walkHeredocContinuation();
    } while (c.gotoNextSibling());
    c.gotoParent();
  }

  private walkHeredocContinuation(): void {
    const c = this.cursor;
    c.gotoFirstChild();
    do {
      const type = c.nodeType;
      if (type === "&&" || type === "||") this.pending = type;
      else if (STATEMENTS.has(type)) this.walkStatement(type, null);
    } while (c.gotoNextSibling());
    c.gotoParent();
  }

  /** Applies trailing redirections to every command pushed since `from` (a compound command's body). */
  private applyTrailing(trailing: Parts, from: number): void {
    for (const redirect of trailing.redirects) {
      for (let index = from; index < this.commands.length; index++) {
        (this.commands[index] as SimpleCommand).redirects.push(redirect);
      }
      this.redirects.push(redirect);
    }
    if (trailing.deferred !== null) for (const part of trailing.deferred) this.opaque.push(part);
    // Words after a redirection of a compound command are a syntax error in bash.
    if (trailing.argv.length > 0) this.reportText("unsupported-syntax", trailing.argv.join(" "));
  }

  // ---- words ----

  private addWord(parts: Parts, type: string, mode: WordMode): void {
    const word = this.evalWord(type, mode);
    this.pushWord(parts, word, this.wordStart, this.wordEnd);
  }

  /**
   * Adds a word (null when not literal) read from start..end. Two words with nothing between them are one
   * word for bash; tree-sitter splits some (`"r"\m` is `rm`), so they are joined and reported.
   */
  private pushWord(parts: Parts, word: string | null, start: number, end: number): void {
    if (start === parts.lastEnd) {
      const last = parts.argv.length - 1;
      if (parts.lastStart === -1 || last < 0) {
        // Glued to an assignment before it: bash reads another command than tree-sitter.
        this.report("unsupported-syntax", start, end);
        parts.add(word ?? this.src.slice(start, end), false);
        parts.lastStart = start;
      } else {
        this.report("unsupported-syntax", parts.lastStart, end);
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
  private evalWord(type: string, mode: WordMode): string | null {
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
    this.report("zsh-syntax", start, end);
    if (paren) return null;
    return mode === NAME && word?.startsWith("=") ? word.slice(1) : null;
  }

  private readWord(type: string, mode: WordMode): string | null {
    const c = this.cursor;
    const start = c.startIndex;
    const end = c.endIndex;
    this.wordStart = start;
    this.wordEnd = end;
    if (type === "word") {
      const text = this.src.slice(start, end);
      if (!UNQUOTED_SPECIAL.test(text)) return text;
    }
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
      if (mode !== NAME) this.report("unsupported-syntax", start, end);
    }
    if ((this.glob || this.brace) && (mode === ARGUMENT || mode === NAME)) {
      this.literal = false;
      if (mode === ARGUMENT) this.report("glob", start, end);
    }
    if (this.literal) return this.value;
    if (mode === NAME) this.report("dynamic-command-name", start, end);
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
          if (mode !== NAME) this.report("ansi-c-string", start, end);
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
          this.report("command-substitution", start, end);
          return;
        }
        this.expansion(start, end, mode);
        return;
      case "arithmetic_expansion":
        this.expansion(start, end, mode);
        return;
      case "command_substitution":
        this.literal = false;
        this.report(this.src[start] === "`" ? "backticks" : "command-substitution", start, end);
        return;
      case "process_substitution":
        this.literal = false;
        this.report("process-substitution", start, end);
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
        if (mode !== NAME) this.report("unsupported-syntax", start, end);
    }
  }

  /** `$x`, `${x...}`, `$((...))`: the value is unknown and may split into several words. */
  private expansion(start: number, end: number, mode: WordMode): void {
    this.literal = false;
    if (mode !== NAME) this.report("parameter-expansion", start, end);
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
        if (mode !== NAME) this.report("unsupported-syntax", partStart, partEnd);
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
  private scanSubstitutions(): void {
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
      this.report(this.src[start] === "`" ? "backticks" : "command-substitution", start, c.endIndex);
      return true;
    }
    if (type === "process_substitution") {
      this.reportNode("process-substitution");
      return true;
    }
    if (type === "expansion" && FUNSUB_START.test(this.src.slice(c.startIndex, c.startIndex + 3))) {
      this.reportNode("command-substitution");
      return true;
    }
    // zsh subscripts an unbraced expansion (`$x[i]`, `"$x[1,$n]"`), evaluating the subscript.
    if (this.zsh && type === "simple_expansion" && this.src[c.endIndex] === "[") {
      const close = this.src.indexOf("]", c.endIndex);
      this.report("zsh-syntax", c.startIndex, close === -1 ? c.endIndex + 1 : close + 1);
    }
    return false;
  }

  // ---- helpers ----

  private text(): string {
    return this.src.slice(this.cursor.startIndex, this.cursor.endIndex);
  }

  private report(reason: OpaqueReason, start: number, end: number): void {
    this.opaque.push({ reason, text: this.src.slice(start, end) });
  }

  private reportNode(reason: OpaqueReason): void {
    this.report(reason, this.cursor.startIndex, this.cursor.endIndex);
  }

  private reportText(reason: OpaqueReason, text: string): void {
    this.opaque.push({ reason, text });
  }
}

function isTimeKeyword(parts: Parts): boolean {
  const argv = parts.argv;
  return argv[0] === "time" && (argv.length === 1 || (argv.length === 2 && argv[1] === "-p"));
}
