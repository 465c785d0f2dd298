// The walk over one tree-sitter-bash tree: simple commands with literal argv, the operators between them,
// redirections and opaque parts. It moves a single cursor over the tree as copied out of web-tree-sitter
// (flat-tree.ts) and fails closed: a node type it does not know is reported as `unsupported-syntax`,
// never skipped. Words are read by the word reader (word-reader.ts), redirections by the redirection
// reader (redirects.ts); all three share one WalkContext (context.ts): the script, the cursor and the
// opaque parts.
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

import type { Analysis, OpaquePart, Operator, Redirect, SimpleCommand } from "../types.js";
import { WalkContext } from "./context.js";
import type { FlatCursor } from "./flat-tree.js";
import { STATEMENTS, WORDS } from "./node-types.js";
import { Parts } from "./parts.js";
import { RedirectReader } from "./redirects.js";
import { shellScriptIndex } from "./shell-script.js";
import { ARGUMENT, CONDITIONAL, NAME, VALUE, type WordMode, WordReader } from "./word-reader.js";

/** Analyses the script of a nested `bash -c SCRIPT` at the given depth (`zsh`: zsh runs it). */
export type AnalyzeNested = (script: string, depth: number, zsh: boolean) => Analysis;

/** `bash -c` scripts are analysed this many levels deep; a deeper one is `too-deep`. */
const MAX_NESTING_DEPTH = 4;

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

export class Walker {
  readonly commands: SimpleCommand[] = [];
  readonly operators: Operator[] = [];
  readonly redirects: Redirect[] = [];

  private readonly ctx: WalkContext;
  private readonly words: WordReader;
  private readonly redirections: RedirectReader;
  private readonly src: string;
  private readonly cursor: FlatCursor;
  private readonly depth: number;
  private readonly analyzeNested: AnalyzeNested;
  /** The script is run by zsh, which reads some of bash's syntax otherwise (see the top of this file). */
  private readonly zsh: boolean;
  /** The operator that joins the last command to the next one. */
  private pending: Operator = ";";
  /** The first newline at or after the last command checked by checkOneLine. */
  private nextNewline = -1;

  constructor(src: string, cursor: FlatCursor, depth: number, analyzeNested: AnalyzeNested, zsh = false) {
    this.ctx = new WalkContext(src, cursor, zsh);
    this.words = new WordReader(this.ctx);
    this.redirections = new RedirectReader(this.ctx, this.words);
    this.src = src;
    this.cursor = cursor;
    this.depth = depth;
    this.analyzeNested = analyzeNested;
    this.zsh = zsh;
  }

  /** The opaque parts found so far; parse errors found before the walk are pushed here too. */
  get opaque(): OpaquePart[] {
    return this.ctx.opaque;
  }

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
        if (!caseItem) this.ctx.reportNode("parse-error");
      } else if (type === "ERROR") {
        this.walkError();
      } else if (WORDS.has(type) || EXPRESSIONS.has(type)) {
        // The words of `for x in ...`, `case ... in`, case patterns, `for ((...))`: the compound command is
        // opaque already; substitutions in them still run.
        this.words.scanSubstitutions();
      } else if (type !== "comment" && type !== "variable_name" && c.nodeIsNamed) {
        this.ctx.reportNode("unsupported-syntax");
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
    if (start !== -1) this.ctx.report("background", start, end);
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
      this.ctx.reportNode("subshell");
      this.walkBlock();
    } else if (type === "compound_statement") {
      c.gotoFirstChild();
      const arithmetic = c.nodeType === "((";
      c.gotoParent();
      if (arithmetic) {
        this.ctx.reportNode("unsupported-syntax");
        this.words.scanSubstitutions();
      } else {
        this.ctx.reportNode("brace-group");
        this.walkBlock();
      }
    } else if (CONTROL_FLOW.has(type)) {
      this.ctx.reportNode("control-flow");
      if (type === "c_style_for_statement") this.walkArithmeticFor();
      else this.walkBlock();
    } else if (type === "ERROR") {
      this.walkError();
    } else {
      this.ctx.reportNode("unsupported-syntax");
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
      if (pipeline && index > 0 && type === "negated_command") this.ctx.reportNode("parse-error");
      if (STATEMENTS.has(type)) this.walkStatement(type, index === last ? trailing : null);
      else if (OPERATORS.has(type)) this.pending = type as Operator;
      else if (type === "ERROR") this.walkError();
      else if (type !== "comment") this.ctx.reportNode("unsupported-syntax");
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
      else if (type !== "!" && type !== "comment") this.ctx.reportNode("unsupported-syntax");
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
      else this.words.scanSubstitutions();
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
    const heredoc = this.redirections.collectRedirects(own);
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
        this.ctx.reportNode("unsupported-syntax");
      }
    } while (c.gotoNextSibling());
    c.gotoParent();
    if (!walked) {
      // Redirections alone (`> f`, `< f`): zsh runs `$NULLCMD` or `$READNULLCMD` with them.
      if (this.zsh) this.ctx.reportNode("zsh-syntax");
      this.applyTrailing(own, this.commands.length);
    }
    if (heredoc) this.walkHeredocContinuations();
  }

  private walkFunction(trailing: Parts | null): void {
    const c = this.cursor;
    this.ctx.reportNode("function-definition");
    const own = new Parts(-1);
    this.redirections.collectRedirects(own);
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
        this.ctx.reportNode("unsupported-syntax");
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
        this.words.addWord(parts, type, ARGUMENT);
      } else if (type === "variable_assignment") {
        this.assignment();
        parts.lastStart = -1;
        parts.lastEnd = c.endIndex;
      } else if (type === "file_redirect") {
        this.redirections.fileRedirect(parts);
        redirected = true;
      } else if (type === "herestring_redirect") {
        this.redirections.herestring(parts);
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
      if (this.zsh && redirected) this.ctx.reportNode("zsh-syntax");
      for (const redirect of parts.redirects) this.redirects.push(redirect);
      if (parts.argv.length > 0) this.ctx.reportText("unsupported-syntax", parts.argv.join(" "));
      if (trailing !== null) this.applyTrailing(trailing, this.commands.length);
      return;
    }
    this.finish(parts, start, trailing);
  }

  /** Reads the command name into parts; false when it is missing (a parse error). */
  private commandName(parts: Parts): boolean {
    const c = this.cursor;
    c.gotoFirstChild();
    const word = this.words.evalWord(c.nodeType, NAME);
    c.gotoParent();
    const start = this.words.wordStart;
    const end = this.words.wordEnd;
    if (start === end) return false;
    this.words.pushWord(parts, word, start, end);
    const text = this.src.slice(start, end);
    if (RESERVED_WORDS.has(text)) this.ctx.report("unsupported-syntax", start, end);
    if (this.zsh && ZSH_RESERVED_WORDS.has(text)) this.ctx.report("zsh-syntax", start, end);
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
        this.words.pushWord(parts, this.assignmentWord(), wordStart, wordEnd);
      } else if (type === "variable_name") {
        this.words.pushWord(parts, this.ctx.text(), c.startIndex, c.endIndex);
      } else if (WORDS.has(type)) {
        this.words.addWord(parts, type, ARGUMENT);
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
      else if (WORDS.has(type)) this.words.addWord(parts, type, mode);
      else if (type === "test_operator" || type === "variable_name") {
        this.words.pushWord(parts, this.ctx.text(), c.startIndex, c.endIndex);
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
          this.ctx.report("unsupported-syntax", start, end);
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
        this.ctx.reportText("unsupported-syntax", command.text);
      }
      if (next !== undefined && this.zsh && ZSH_RESERVED_WORDS.has(next)) {
        this.ctx.reportText("zsh-syntax", command.text);
      }
    }
    let index = 0;
    while ((argv[index] === "command" || argv[index] === "builtin") && parts.isLiteral(index)) {
      index++;
      while (argv[index]?.startsWith("-")) index++;
    }
    if (argv[index] === "eval" && parts.isLiteral(index)) {
      this.ctx.reportText("eval", command.text);
      return;
    }
    if (argv[0] === "coproc") {
      this.ctx.reportText("background", command.text);
      return;
    }
    const scriptIndex = shellScriptIndex(argv);
    if (scriptIndex === -1 || parts.dynamic?.some((word) => word <= scriptIndex)) return;
    if (this.depth >= MAX_NESTING_DEPTH) {
      this.ctx.reportText("too-deep", command.text);
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
    this.ctx.reportNode("assignment-prefix");
    this.words.scanSubstitutions();
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
        const word = this.words.evalWord(type, VALUE);
        if (word === null) literal = false;
        else value = word;
      } else if (type === "subscript") {
        const text = this.ctx.text();
        if (text.includes("$") || text.includes("`")) {
          literal = false;
          this.ctx.reportNode("parameter-expansion");
          this.words.scanSubstitutions();
        }
      } else if (type !== "comment" && type !== "ERROR") {
        literal = false;
        this.ctx.reportNode("unsupported-syntax");
        this.words.scanSubstitutions();
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
      this.words.pushWord(parts, "$", start, end);
    } else {
      this.ctx.report("unsupported-syntax", start, end);
      this.words.pushWord(parts, null, start, end);
    }
  }

  /** A token at the cursor read as a word: an anonymous one (`==`) as written; a named one is unknown. */
  private pushToken(parts: Parts, type: string): void {
    const c = this.cursor;
    const start = c.startIndex;
    const end = c.endIndex;
    if (c.nodeIsNamed) {
      this.ctx.report("unsupported-syntax", start, end);
      this.words.pushWord(parts, null, start, end);
    } else {
      this.words.pushWord(parts, type, start, end);
    }
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
    if (trailing.argv.length > 0) this.ctx.reportText("unsupported-syntax", trailing.argv.join(" "));
  }
}

function isTimeKeyword(parts: Parts): boolean {
  const argv = parts.argv;
  return argv[0] === "time" && (argv.length === 1 || (argv.length === 2 && argv[1] === "-p"));
}
