import { describe, expect, it } from "vitest";
import { analyze } from "../src/analyze/analyze.js";
import { loadBashParser } from "../src/analyze/parser.js";
import { isArityRulesError } from "../src/errors.js";
import {
  type Analysis,
  OPAQUE_REASONS,
  type OpaquePart,
  type OpaqueReason,
  type Operator,
  type Redirect,
  type SimpleCommand,
} from "../src/types.js";

// Every case parses with the real tree-sitter-bash grammar; nothing is ever executed.

function cmd(
  argv: string[],
  text: string,
  redirects: Redirect[] = [],
  nested: Analysis | null = null,
): SimpleCommand {
  return { argv, redirects, text, nested };
}

/** The command with the words at these indexes marked as not literal. */
function dyn(command: SimpleCommand, ...dynamic: number[]): SimpleCommand {
  return { ...command, dynamic };
}

// Every reason some expectation below uses; the last test checks that none is left untested.
const covered = new Set<OpaqueReason>();

function op(reason: OpaqueReason, text: string): OpaquePart {
  covered.add(reason);
  return { reason, text };
}

function result(
  commands: SimpleCommand[],
  operators: Operator[] = [],
  opaque: OpaquePart[] = [],
  redirects: Redirect[] = [],
): Analysis {
  return { commands, operators, redirects, opaque };
}

function redirect(
  kind: Redirect["kind"],
  operator: string,
  fd: number | null,
  target: string | null,
  written?: string,
): Redirect {
  return written === undefined ? { kind, operator, fd, target } : { kind, operator, fd, target, written };
}

type Case = [script: string, expected: Analysis];

function table(cases: Case[]): void {
  for (const [script, expected] of cases) {
    it(JSON.stringify(script), async () => {
      expect(await analyze(script)).toEqual(expected);
    });
  }
}

describe("words and quote removal", () => {
  table([
    ["ls -la src", result([cmd(["ls", "-la", "src"], "ls -la src")])],
    [`echo "a"b 'c d' e\\ f`, result([cmd(["echo", "ab", "c d", "e f"], `echo "a"b 'c d' e\\ f`)])],
    // In double quotes a backslash escapes only $ ` " \ and newline; in single quotes nothing.
    [
      String.raw`echo "a\"b\$c\\d\e" 'x\y'`,
      result([cmd(["echo", 'a"b$c\\d\\e', "x\\y"], String.raw`echo "a\"b\$c\\d\e" 'x\y'`)]),
    ],
    [
      `"ls" -l; \\rm x; r''m -r"f" /`,
      result(
        [cmd(["ls", "-l"], `"ls" -l`), cmd(["rm", "x"], "\\rm x"), cmd(["rm", "-rf", "/"], `r''m -r"f" /`)],
        [";", ";"],
      ),
    ],
    [`echo "" ''`, result([cmd(["echo", "", ""], `echo "" ''`)])],
    // No expansion: `{}` and `@{1}` have no comma, `]` alone is no glob, a `~` inside a word is text.
    [
      "echo HEAD~1 a~b HEAD@{1} {} a] $ y == z",
      result([
        cmd(
          ["echo", "HEAD~1", "a~b", "HEAD@{1}", "{}", "a]", "$", "y", "==", "z"],
          "echo HEAD~1 a~b HEAD@{1} {} a] $ y == z",
        ),
      ]),
    ],
    // A tilde bash expands is a home directory, not its text; quoted or escaped it is the text.
    [
      "touch ~/x ~ ~root ~+ a=~/b --p=x:~/c '~/q' \\~/e \"~\"",
      result(
        [
          dyn(
            cmd(
              ["touch", "~/x", "~", "~root", "~+", "a=~/b", "--p=x:~/c", "~/q", "~/e", "~"],
              "touch ~/x ~ ~root ~+ a=~/b --p=x:~/c '~/q' \\~/e \"~\"",
            ),
            1,
            2,
            3,
            4,
            5,
            6,
          ),
        ],
        [],
        [
          op("tilde-expansion", "~/x"),
          op("tilde-expansion", "~"),
          op("tilde-expansion", "~root"),
          op("tilde-expansion", "~+"),
          op("tilde-expansion", "a=~/b"),
          op("tilde-expansion", "--p=x:~/c"),
        ],
      ),
    ],
    [
      'echo "multi\nline" "x\\\ny" héllo 😀',
      result([cmd(["echo", "multi\nline", "xy", "héllo", "😀"], 'echo "multi\nline" "x\\\ny" héllo 😀')]),
    ],
    [
      "git commit -m 'fix: a; b && c'",
      result([cmd(["git", "commit", "-m", "fix: a; b && c"], "git commit -m 'fix: a; b && c'")]),
    ],
    ["ls\t-la", result([cmd(["ls", "-la"], "ls\t-la")])],
    ["a \\\n  -b \\\n  c", result([cmd(["a", "-b", "c"], "a \\\n  -b \\\n  c")])],
    ["", result([])],
    ["   \n\n", result([])],
  ]);
});

describe("ANSI-C strings", () => {
  table([
    [
      String.raw`printf $'a\nb\t\\\'\"\x41\101\e\?\z'`,
      result([cmd(["printf", "a\nb\t\\'\"AA\x1b?\\z"], String.raw`printf $'a\nb\t\\\'\"\x41\101\e\?\z'`)]),
    ],
    // Only escapes that give one ASCII character are decoded.
    [
      String.raw`echo $'\u00e9' $'a\0b' $'\xff' $'\cA'`,
      result(
        [
          dyn(
            cmd(
              ["echo", String.raw`$'\u00e9'`, String.raw`$'a\0b'`, String.raw`$'\xff'`, String.raw`$'\cA'`],
              String.raw`echo $'\u00e9' $'a\0b' $'\xff' $'\cA'`,
            ),
            1,
            2,
            3,
            4,
          ),
        ],
        [],
        [
          op("ansi-c-string", String.raw`$'\u00e9'`),
          op("ansi-c-string", String.raw`$'a\0b'`),
          op("ansi-c-string", String.raw`$'\xff'`),
          op("ansi-c-string", String.raw`$'\cA'`),
        ],
      ),
    ],
    [
      String.raw`$'rm' -rf x; $'\u0072m' x`,
      result(
        [
          cmd(["rm", "-rf", "x"], "$'rm' -rf x"),
          dyn(cmd([String.raw`$'\u0072m'`, "x"], String.raw`$'\u0072m' x`), 0),
        ],
        [";"],
        [op("dynamic-command-name", String.raw`$'\u0072m'`)],
      ),
    ],
  ]);
});

describe("operators", () => {
  table([
    [
      "a && b || c; d | e |& f & g",
      result(
        ["a", "b", "c", "d", "e", "f", "g"].map((name) => cmd([name], name)),
        ["&&", "||", ";", "|", "|&", "&"],
        [op("background", "d | e |& f &")],
      ),
    ],
    ["a\nb\n\nc", result([cmd(["a"], "a"), cmd(["b"], "b"), cmd(["c"], "c")], [";", ";"])],
    [
      "a;b&&c||d|e",
      result(
        ["a", "b", "c", "d", "e"].map((name) => cmd([name], name)),
        [";", "&&", "||", "|"],
      ),
    ],
    ["! a | b && ! c", result([cmd(["a"], "a"), cmd(["b"], "b"), cmd(["c"], "c")], ["|", "&&"])],
    [
      "time a | b; time -p c; time (d)",
      result(
        [
          cmd(["time", "a"], "time a"),
          cmd(["b"], "b"),
          cmd(["time", "-p", "c"], "time -p c"),
          cmd(["d"], "d"),
        ],
        ["|", ";", ";"],
        [op("subshell", "(d)")],
      ),
    ],
    ["a &", result([cmd(["a"], "a")], [], [op("background", "a &")])],
    ["a & b", result([cmd(["a"], "a"), cmd(["b"], "b")], ["&"], [op("background", "a &")])],
    ["coproc cat", result([cmd(["coproc", "cat"], "coproc cat")], [], [op("background", "coproc cat")])],
  ]);
});

describe("redirections", () => {
  const all = [
    redirect("read", "<", null, "in"),
    redirect("write", ">", null, "out"),
    redirect("write", ">", 2, "err"),
    redirect("append", ">>", null, "app"),
    redirect("write", "&>", null, "all"),
    redirect("append", "&>>", null, "both"),
    redirect("write", ">|", null, "clob"),
    redirect("duplicate", ">&", 2, "1"),
    redirect("duplicate", ">&", null, "2"),
    redirect("duplicate", "<&", null, "0"),
    redirect("close", "<&", 3, "-"),
    redirect("close", ">&", 4, "-"),
    redirect("write", ">&", null, "file"),
  ];
  const allScript = "cmd <in >out 2>err >>app &>all &>>both >|clob 2>&1 >&2 <&0 3<&- 4>&- >&file";
  const out = redirect("write", ">", null, "out");
  const stderrToStdout = redirect("duplicate", ">&", 2, "1");
  table([
    [allScript, result([cmd(["cmd"], allScript, all)], [], [], all)],
    [
      "cat</etc/shadow",
      result(
        [cmd(["cat"], "cat</etc/shadow", [redirect("read", "<", null, "/etc/shadow")])],
        [],
        [],
        [redirect("read", "<", null, "/etc/shadow")],
      ),
    ],
    // tree-sitter-bash has no `<>`; it still comes out as a write, with the parse error.
    [
      "cat <>f",
      result(
        [cmd(["cat"], "cat <>f", [redirect("write", "<>", null, "f")])],
        [],
        [op("parse-error", "<")],
        [redirect("write", "<>", null, "f")],
      ),
    ],
    // Bash binds a redirection to the last simple command; a word after it belongs to that command.
    [
      "a && b > x c",
      result(
        [cmd(["a"], "a"), cmd(["b", "c"], "b > x c", [redirect("write", ">", null, "x")])],
        ["&&"],
        [],
        [redirect("write", ">", null, "x")],
      ),
    ],
    [
      "npm test 2>&1 | tail -5",
      result(
        [cmd(["npm", "test"], "npm test 2>&1", [stderrToStdout]), cmd(["tail", "-5"], "tail -5")],
        ["|"],
        [],
        [stderrToStdout],
      ),
    ],
    [
      "{ a; b; } > out 2>&1",
      result(
        [cmd(["a"], "a", [out, stderrToStdout]), cmd(["b"], "b", [out, stderrToStdout])],
        [";"],
        [op("brace-group", "{ a; b; }")],
        [out, stderrToStdout],
      ),
    ],
    [
      "while read l; do x; done < file",
      result(
        [
          cmd(["read", "l"], "read l", [redirect("read", "<", null, "file")]),
          cmd(["x"], "x", [redirect("read", "<", null, "file")]),
        ],
        [";"],
        [op("control-flow", "while read l; do x; done")],
        [redirect("read", "<", null, "file")],
      ),
    ],
    ["> file", result([], [], [], [redirect("write", ">", null, "file")])],
    [">out a b", result([cmd(["a", "b"], ">out a b", [out])], [], [], [out])],
    [
      "exec 3>log",
      result(
        [cmd(["exec"], "exec 3>log", [redirect("write", ">", 3, "log")])],
        [],
        [],
        [redirect("write", ">", 3, "log")],
      ),
    ],
    [
      "echo hi > $f",
      result(
        [cmd(["echo", "hi"], "echo hi > $f", [redirect("write", ">", null, null, "$f")])],
        [],
        [op("parameter-expansion", "$f")],
        [redirect("write", ">", null, null, "$f")],
      ),
    ],
    [
      "a >& $fd",
      result(
        [cmd(["a"], "a >& $fd", [redirect("write", ">&", null, null, "$fd")])],
        [],
        [op("parameter-expansion", "$fd")],
        [redirect("write", ">&", null, null, "$fd")],
      ),
    ],
    [
      "echo x > *.log",
      result(
        [cmd(["echo", "x"], "echo x > *.log", [redirect("write", ">", null, null, "*.log")])],
        [],
        [op("glob", "*.log")],
        [redirect("write", ">", null, null, "*.log")],
      ),
    ],
  ]);
});

describe("opaque parts", () => {
  table([
    [
      'echo $(rm x) "$(ls)"',
      result(
        [dyn(cmd(["echo", "$(rm x)", '"$(ls)"'], 'echo $(rm x) "$(ls)"'), 1, 2)],
        [],
        [op("command-substitution", "$(rm x)"), op("command-substitution", "$(ls)")],
      ),
    ],
    ["echo `pwd`", result([dyn(cmd(["echo", "`pwd`"], "echo `pwd`"), 1)], [], [op("backticks", "`pwd`")])],
    [
      "diff <(a) >(b)",
      result(
        [dyn(cmd(["diff", "<(a)", ">(b)"], "diff <(a) >(b)"), 1, 2)],
        [],
        [op("process-substitution", "<(a)"), op("process-substitution", ">(b)")],
      ),
    ],
    [
      '$CMD -x; "$y" z; $(which ls) -l',
      result(
        [
          dyn(cmd(["$CMD", "-x"], "$CMD -x"), 0),
          dyn(cmd(['"$y"', "z"], '"$y" z'), 0),
          dyn(cmd(["$(which ls)", "-l"], "$(which ls) -l"), 0),
        ],
        [";", ";"],
        [
          op("dynamic-command-name", "$CMD"),
          op("dynamic-command-name", '"$y"'),
          op("command-substitution", "$(which ls)"),
          op("dynamic-command-name", "$(which ls)"),
        ],
      ),
    ],
    [
      'echo $HOME ${x:-$(y)} "$@" $((1+2))',
      result(
        [
          dyn(
            cmd(["echo", "$HOME", "${x:-$(y)}", '"$@"', "$((1+2))"], 'echo $HOME ${x:-$(y)} "$@" $((1+2))'),
            1,
            2,
            3,
            4,
          ),
        ],
        [],
        [
          op("parameter-expansion", "$HOME"),
          op("parameter-expansion", "${x:-$(y)}"),
          op("command-substitution", "$(y)"),
          op("parameter-expansion", "$@"),
          op("parameter-expansion", "$((1+2))"),
        ],
      ),
    ],
    // A glob can expand to a file named like a flag; brace expansion makes words too.
    [
      "ls *.ts a?c [ab] x{a,b} {1..3} --x=*.c '*' \\*",
      result(
        [
          dyn(
            cmd(
              ["ls", "*.ts", "a?c", "[ab]", "x{a,b}", "{1..3}", "--x=*.c", "*", "*"],
              "ls *.ts a?c [ab] x{a,b} {1..3} --x=*.c '*' \\*",
            ),
            1,
            2,
            3,
            4,
            5,
            6,
          ),
        ],
        [],
        [
          op("glob", "*.ts"),
          op("glob", "a?c"),
          op("glob", "[ab]"),
          op("glob", "x{a,b}"),
          op("glob", "{1..3}"),
          op("glob", "--x=*.c"),
        ],
      ),
    ],
    [
      'eval "ls"; command eval x',
      result(
        [cmd(["eval", "ls"], 'eval "ls"'), cmd(["command", "eval", "x"], "command eval x")],
        [";"],
        [op("eval", 'eval "ls"'), op("eval", "command eval x")],
      ),
    ],
    [
      "exec ls; command -v git; builtin cd /",
      result(
        [
          cmd(["exec", "ls"], "exec ls"),
          cmd(["command", "-v", "git"], "command -v git"),
          cmd(["builtin", "cd", "/"], "builtin cd /"),
        ],
        [";", ";"],
      ),
    ],
    [
      "cat <<EOF\nhello $(whoami)\nEOF\nls",
      result(
        [cmd(["cat"], "cat <<EOF"), cmd(["ls"], "ls")],
        [";"],
        [op("heredoc", "<<EOF\nhello $(whoami)\nEOF"), op("command-substitution", "$(whoami)")],
      ),
    ],
    [
      "cat <<-'EOF' | grep x\n\tabc\n\tEOF",
      result(
        [cmd(["cat"], "cat <<-'EOF'"), cmd(["grep", "x"], "grep x")],
        ["|"],
        [op("heredoc", "<<-'EOF' | grep x\n\tabc\n\tEOF")],
      ),
    ],
    [
      "cat <<EOF > out && rm y\nx\nEOF",
      result(
        [cmd(["cat"], "cat <<EOF > out", [redirect("write", ">", null, "out")]), cmd(["rm", "y"], "rm y")],
        ["&&"],
        [op("heredoc", "<<EOF > out && rm y\nx\nEOF")],
        [redirect("write", ">", null, "out")],
      ),
    ],
    [
      'grep x <<< "$(cat f)"',
      result(
        [cmd(["grep", "x"], 'grep x <<< "$(cat f)"')],
        [],
        [op("herestring", '<<< "$(cat f)"'), op("command-substitution", "$(cat f)")],
      ),
    ],
    [
      "(cd x && make) || { echo failed; exit 1; }",
      result(
        [
          cmd(["cd", "x"], "cd x"),
          cmd(["make"], "make"),
          cmd(["echo", "failed"], "echo failed"),
          cmd(["exit", "1"], "exit 1"),
        ],
        ["&&", "||", ";"],
        [op("subshell", "(cd x && make)"), op("brace-group", "{ echo failed; exit 1; }")],
      ),
    ],
    [
      "f() { rm -rf x; }; f",
      result(
        [cmd(["rm", "-rf", "x"], "rm -rf x"), cmd(["f"], "f")],
        [";"],
        [op("function-definition", "f() { rm -rf x; }")],
      ),
    ],
    [
      "function g { b; } > out",
      result([cmd(["b"], "b", [out()])], [], [op("function-definition", "function g { b; } > out")], [out()]),
    ],
    [
      "FOO=1 BAR=$(x) cmd a",
      result(
        [cmd(["cmd", "a"], "FOO=1 BAR=$(x) cmd a")],
        [],
        [
          op("assignment-prefix", "FOO=1"),
          op("assignment-prefix", "BAR=$(x)"),
          op("command-substitution", "$(x)"),
        ],
      ),
    ],
    ["X=1", result([], [], [op("assignment-prefix", "X=1")])],
    [
      "x=(a b) y=`z`; echo",
      result(
        [cmd(["echo"], "echo")],
        [],
        [op("assignment-prefix", "x=(a b)"), op("assignment-prefix", "y=`z`"), op("backticks", "`z`")],
      ),
    ],
    ["((x++))", result([], [], [op("unsupported-syntax", "((x++))")])],
  ]);
});

function out(): Redirect {
  return redirect("write", ">", null, "out");
}

describe("control flow", () => {
  table([
    [
      "if a; then b; elif c; then d; else e; fi",
      result(
        ["a", "b", "c", "d", "e"].map((name) => cmd([name], name)),
        [";", ";", ";", ";"],
        [op("control-flow", "if a; then b; elif c; then d; else e; fi")],
      ),
    ],
    [
      'for f in *.txt $(ls); do rm "$f"; done',
      result(
        [dyn(cmd(["rm", '"$f"'], 'rm "$f"'), 1)],
        [],
        [
          op("control-flow", 'for f in *.txt $(ls); do rm "$f"; done'),
          op("command-substitution", "$(ls)"),
          op("parameter-expansion", "$f"),
        ],
      ),
    ],
    [
      "for ((i=0; i<3; i++)); do echo x; done",
      result(
        [cmd(["echo", "x"], "echo x")],
        [],
        [op("control-flow", "for ((i=0; i<3; i++)); do echo x; done")],
      ),
    ],
    [
      "until a; do b; done",
      result([cmd(["a"], "a"), cmd(["b"], "b")], [";"], [op("control-flow", "until a; do b; done")]),
    ],
    [
      "select x in a b; do c; done",
      result([cmd(["c"], "c")], [], [op("control-flow", "select x in a b; do c; done")]),
    ],
    [
      "case $x in a*) b;; *) c & ;; esac",
      result(
        [cmd(["b"], "b"), cmd(["c"], "c")],
        [";"],
        [op("control-flow", "case $x in a*) b;; *) c & ;; esac"), op("background", "c &")],
      ),
    ],
    [
      "if a; then b; fi &",
      result(
        [cmd(["a"], "a"), cmd(["b"], "b")],
        [";"],
        [op("control-flow", "if a; then b; fi"), op("background", "if a; then b; fi &")],
      ),
    ],
  ]);
});

describe("builtins with their own syntax", () => {
  table([
    ["[[ a &&\n  b ]]", result([cmd(["[[", "a", "&&", "b", "]]"], "[[ a &&\n  b ]]")])],
    [
      "[ -f x ] && [[ -n $a && b == c* ]]",
      result(
        [
          cmd(["[", "-f", "x", "]"], "[ -f x ]"),
          dyn(cmd(["[[", "-n", "$a", "&&", "b", "==", "c*", "]]"], "[[ -n $a && b == c* ]]"), 2),
        ],
        ["&&"],
        [op("parameter-expansion", "$a")],
      ),
    ],
    ["[ -f *.c ]", result([dyn(cmd(["[", "-f", "*.c", "]"], "[ -f *.c ]"), 2)], [], [op("glob", "*.c")])],
    [
      'export A=1 B; local -r x=$(y); unset x; declare -x P="a b"',
      result(
        [
          cmd(["export", "A=1", "B"], "export A=1 B"),
          dyn(cmd(["local", "-r", "x=$(y)"], "local -r x=$(y)"), 2),
          cmd(["unset", "x"], "unset x"),
          cmd(["declare", "-x", "P=a b"], 'declare -x P="a b"'),
        ],
        [";", ";", ";"],
        [op("command-substitution", "$(y)")],
      ),
    ],
  ]);
});

describe("comments", () => {
  table([
    [
      "# setup\nls -la # list\n  # indented\ngit status",
      result([cmd(["ls", "-la"], "ls -la"), cmd(["git", "status"], "git status")], [";"]),
    ],
    ['echo a#b "#c" \\#d', result([cmd(["echo", "a#b", "#c", "#d"], 'echo a#b "#c" \\#d')])],
    ["a |# note\nb", result([cmd(["a"], "a"), cmd(["b"], "b")], ["|"])],
    ["# only a comment", result([])],
  ]);
});

describe("parse errors", () => {
  table([
    ['echo "abc', result([cmd(["echo"], "echo")], [], [op("parse-error", '"abc')])],
    [
      "if a; then",
      result([cmd(["a"], "a")], [], [op("parse-error", "if a; then"), op("control-flow", "if a; then")]),
    ],
    ["a |", result([cmd(["a"], "a")], [], [op("parse-error", "a |")])],
    ["a && (", result([cmd(["a"], "a")], [], [op("parse-error", "&& (")])],
    [")", result([], [], [op("parse-error", ")")])],
    // Accepted by tree-sitter, rejected by bash: `;;` ends a case item only; a redirection needs its
    // target on the same line; `2` glued to `>&1` is that redirection's descriptor, not a target.
    ["ls ;; pwd", result([cmd(["ls"], "ls"), cmd(["pwd"], "pwd")], [";"], [op("parse-error", ";;")])],
    [
      "ls >\nrm -rf /",
      result(
        [cmd(["ls", "-rf", "/"], "ls >\nrm -rf /", [redirect("write", ">", null, "rm")])],
        [],
        [op("parse-error", ">\nrm -rf /")],
        [redirect("write", ">", null, "rm")],
      ),
    ],
    [
      "x > 2>&1",
      result(
        [cmd(["x"], "x > 2>&1", [redirect("write", ">", null, "2"), redirect("duplicate", ">&", null, "1")])],
        [],
        [op("parse-error", "> 2")],
        [redirect("write", ">", null, "2"), redirect("duplicate", ">&", null, "1")],
      ),
    ],
    // A command ends at a newline; tree-sitter reads `rm x` as words of `echo ==`.
    [
      "echo ==\nrm x",
      result(
        [cmd(["echo", "==", "rm", "x"], "echo ==\nrm x")],
        [],
        [op("unsupported-syntax", "echo ==\nrm x")],
      ),
    ],
    ["[ a\n]", result([cmd(["[", "a", "]"], "[ a\n]")], [], [op("unsupported-syntax", "[ a\n]")])],
    ["ls | ! cat", result([cmd(["ls"], "ls"), cmd(["cat"], "cat")], ["|"], [op("parse-error", "! cat")])],
    ["} { [", result([dyn(cmd(["} { ["], "} { ["), 0)], [], [op("dynamic-command-name", "} { [")])],
    ["]] a", result([cmd(["]]", "a"], "]] a")], [], [op("unsupported-syntax", "]]")])],
    [
      'echo "unterminated $(rm x"',
      result([cmd(["echo"], "echo")], [], [op("parse-error", '"unterminated $(rm x"')]),
    ],
  ]);
});

// Places where tree-sitter-bash reads other words than bash does: the words bash would run must never
// hide behind them, so each is opaque.
describe("words tree-sitter reads differently from bash", () => {
  table([
    // Bash removes `\` newline and joins `a#;`, so `rm x` runs; for tree-sitter it is a comment.
    ["echo a\\\n#; rm x", result([cmd(["echo", "a"], "echo a")], [], [op("unsupported-syntax", "a\\\n#;")])],
    // Bash ends the line at \n (the \r is escaped), so `rm -rf /` runs.
    [
      "echo a \\\r\nrm -rf /",
      result(
        [cmd(["echo", "a", "rm", "-rf", "/"], "echo a \\\r\nrm -rf /")],
        [],
        [op("unsupported-syntax", "\\\r"), op("unsupported-syntax", "echo a \\\r\nrm -rf /")],
      ),
    ],
    ["x\r#; rm y", result([cmd(["x"], "x")], [], [op("unsupported-syntax", "x\r#;")])],
    [
      "r\\\nm -rf /",
      result([cmd(["r", "m", "-rf", "/"], "r\\\nm -rf /")], [], [op("unsupported-syntax", "r\\\nm")]),
    ],
    ["echo \\ a", result([cmd(["echo", "a"], "echo \\ a")], [], [op("unsupported-syntax", "\\ a")])],
    // One bash word split in two by tree-sitter: joined, and reported.
    [
      '"r"\\m -rf /',
      result([cmd(["rm", "-rf", "/"], '"r"\\m -rf /')], [], [op("unsupported-syntax", '"r"\\m')]),
    ],
    [
      'echo >"/etc/"\\passwd',
      result(
        [cmd(["echo"], 'echo >"/etc/"\\passwd', [redirect("write", ">", null, "/etc/passwd")])],
        [],
        [op("unsupported-syntax", '"/etc/"\\passwd')],
        [redirect("write", ">", null, "/etc/passwd")],
      ),
    ],
    [
      'echo $"x"y',
      result(
        [dyn(cmd(["echo", '$"x"y'], 'echo $"x"y'), 1)],
        [],
        [op("unsupported-syntax", "$"), op("unsupported-syntax", '$"x"y')],
      ),
    ],
    [
      "echo == $ x",
      result(
        [dyn(cmd(["echo", "==", "$ x"], "echo == $ x"), 2)],
        [],
        [op("parameter-expansion", "$ x"), op("unsupported-syntax", "$ x")],
      ),
    ],
    // `time { a; }` is the time keyword on a brace group; tree-sitter reads commands `time { a` and `}`.
    [
      "time { a; }",
      result(
        [cmd(["time", "{", "a"], "time { a"), cmd(["}"], "}")],
        [";"],
        [op("unsupported-syntax", "time { a"), op("unsupported-syntax", "}")],
      ),
    ],
    ["echo a\0b", result([cmd(["echo", "a\0b"], "echo a\0b")], [], [op("unsupported-syntax", "a\0b")])],
    // Inside quotes these characters are plain text for both.
    ['echo "a\rb" "c\\ d"', result([cmd(["echo", "a\rb", "c\\ d"], 'echo "a\rb" "c\\ d"')])],
    ["find . -name a\\ b", result([cmd(["find", ".", "-name", "a b"], "find . -name a\\ b")])],
  ]);
});

describe("nested shell scripts", () => {
  const tmpWrite = redirect("write", ">", null, "/tmp/x");
  table([
    [
      "bash -lc 'git status && echo hi > /tmp/x'",
      result(
        [
          cmd(
            ["bash", "-lc", "git status && echo hi > /tmp/x"],
            "bash -lc 'git status && echo hi > /tmp/x'",
            [],
            result(
              [cmd(["git", "status"], "git status"), cmd(["echo", "hi"], "echo hi > /tmp/x", [tmpWrite])],
              ["&&"],
              [],
              [tmpWrite],
            ),
          ),
        ],
        [],
        [],
        [tmpWrite],
      ),
    ],
    [
      "/bin/sh -e -c 'ls $(pwd)' name arg",
      result(
        [
          cmd(
            ["/bin/sh", "-e", "-c", "ls $(pwd)", "name", "arg"],
            "/bin/sh -e -c 'ls $(pwd)' name arg",
            [],
            result([dyn(cmd(["ls", "$(pwd)"], "ls $(pwd)"), 1)], [], [op("command-substitution", "$(pwd)")]),
          ),
        ],
        [],
        [op("command-substitution", "$(pwd)")],
      ),
    ],
    [
      'zsh -o pipefail -c "a | b"; dash -ec x; bash -l -c y',
      result(
        [
          cmd(
            ["zsh", "-o", "pipefail", "-c", "a | b"],
            'zsh -o pipefail -c "a | b"',
            [],
            result([cmd(["a"], "a"), cmd(["b"], "b")], ["|"]),
          ),
          cmd(["dash", "-ec", "x"], "dash -ec x", [], result([cmd(["x"], "x")])),
          cmd(["bash", "-l", "-c", "y"], "bash -l -c y", [], result([cmd(["y"], "y")])),
        ],
        [";", ";"],
      ),
    ],
    // The script is decoded from `$'...'` first: `\n` becomes a newline inside the double quotes.
    [
      String.raw`bash -c $'printf "%s\n" hi'`,
      result([
        cmd(
          ["bash", "-c", 'printf "%s\n" hi'],
          String.raw`bash -c $'printf "%s\n" hi'`,
          [],
          result([cmd(["printf", "%s\n", "hi"], 'printf "%s\n" hi')]),
        ),
      ]),
    ],
    // The script is not literal: the command is opaque, and nothing is guessed about the script.
    [
      'bash -c "$X"',
      result([dyn(cmd(["bash", "-c", '"$X"'], 'bash -c "$X"'), 2)], [], [op("parameter-expansion", "$X")]),
    ],
    [
      "bash script.sh -c x; sh -c; bash",
      result(
        [
          cmd(["bash", "script.sh", "-c", "x"], "bash script.sh -c x"),
          cmd(["sh", "-c"], "sh -c"),
          cmd(["bash"], "bash"),
        ],
        [";", ";"],
      ),
    ],
    [
      "bash -c 'echo \"$(id)\"' &",
      result(
        [
          cmd(
            ["bash", "-c", 'echo "$(id)"'],
            "bash -c 'echo \"$(id)\"'",
            [],
            result(
              [dyn(cmd(["echo", '"$(id)"'], 'echo "$(id)"'), 1)],
              [],
              [op("command-substitution", "$(id)")],
            ),
          ),
        ],
        [],
        [op("command-substitution", "$(id)"), op("background", "bash -c 'echo \"$(id)\"' &")],
      ),
    ],
  ]);

  // `bash -c 'SCRIPT'` wrapped n times around `rm -rf x`.
  function wrap(levels: number): string {
    let script = "rm -rf x";
    for (let level = 0; level < levels; level++) script = `bash -c '${script.replaceAll("'", "'\\''")}'`;
    return script;
  }

  it("analyses four levels of nested scripts", async () => {
    let analysis = await analyze(wrap(4));
    expect(analysis.opaque).toEqual([]);
    for (let level = 4; level > 0; level--) {
      const [command] = analysis.commands;
      expect(command?.argv.slice(0, 2)).toEqual(["bash", "-c"]);
      analysis = command?.nested as Analysis;
    }
    expect(analysis).toEqual(result([cmd(["rm", "-rf", "x"], "rm -rf x")]));
  });

  it("stops below four levels with too-deep, in the outer analysis too", async () => {
    const analysis = await analyze(wrap(5));
    const innermost = wrap(1);
    expect(analysis.opaque).toEqual([op("too-deep", innermost)]);
    let level = analysis;
    for (let depth = 0; depth < 4; depth++) {
      expect(level.opaque).toEqual([op("too-deep", innermost)]);
      level = level.commands[0]?.nested as Analysis;
    }
    expect(level).toEqual(
      result([cmd(["bash", "-c", "rm -rf x"], innermost)], [], [op("too-deep", innermost)]),
    );
  });
});

describe("size limit", () => {
  it("parses a script of exactly 64 KiB", async () => {
    const script = `echo ${"a".repeat(65_536 - 5)}`;
    const analysis = await analyze(script);
    expect(analysis.opaque).toEqual([]);
    expect(analysis.commands).toHaveLength(1);
  });

  it("refuses a script one byte over, without parsing it", async () => {
    const script = `echo ${"a".repeat(65_536 - 4)}`;
    expect(await analyze(script)).toEqual(result([], [], [op("too-large", `${script.slice(0, 100)}…`)]));
  });

  it("counts UTF-8 bytes, not characters", async () => {
    const script = `echo ${"é".repeat(33_000)}`; // 33,005 characters, 66,005 bytes
    expect((await analyze(script)).opaque).toEqual([op("too-large", `${script.slice(0, 100)}…`)]);
    expect((await analyze(`echo ${"é".repeat(32_000)}`)).opaque).toEqual([]);
  });
});

describe("the parser", () => {
  it("serves concurrent first calls from one initialisation", async () => {
    const analyses = await Promise.all(Array.from({ length: 20 }, (_, index) => analyze(`echo ${index}`)));
    expect(analyses.map((analysis) => analysis.commands[0]?.argv)).toEqual(
      Array.from({ length: 20 }, (_, index) => ["echo", String(index)]),
    );
  });

  it("shares one frozen result between analyses of the same script", async () => {
    const first = await analyze("ls > out");
    const second = await analyze("ls > out");
    expect(second).toBe(first);
    expect(Object.isFrozen(first.redirects[0])).toBe(true);
    expect(Object.isFrozen(first.commands[0]?.argv)).toBe(true);
    expect(() => first.commands[0]?.argv.push("-la")).toThrow(TypeError);
  });

  it("freezes every object of an analysis, nested analyses included", async () => {
    const analysis = await analyze("x=1 bash -c 'ls $y > out 2>&1 && sh -c \"rm *\"' < in | cat $(date) &");
    expect(analysis.commands[0]?.nested?.commands[1]?.nested).not.toBe(null);
    const unfrozen: string[] = [];
    const visit = (value: unknown, path: string): void => {
      if (typeof value !== "object" || value === null) return;
      if (!Object.isFrozen(value)) unfrozen.push(path);
      for (const [key, item] of Object.entries(value)) visit(item, `${path}.${key}`);
    };
    visit(analysis, "analysis");
    expect(unfrozen).toEqual([]);
  });

  it("keeps the 128 analyses used last, bash and zsh readings together", async () => {
    const bash = await analyze("echo lru");
    const zsh = await analyze("echo lru", { zsh: true });
    for (let index = 0; index < 126; index++) await analyze(`echo lru ${index}`);
    expect(await analyze("echo lru")).toBe(bash);
    // One more drops the analysis used longest ago: the zsh one.
    await analyze("echo lru 126");
    const again = await analyze("echo lru", { zsh: true });
    expect(again).not.toBe(zsh);
    expect(again).toEqual(zsh);
    expect(await analyze("echo lru")).toBe(bash);
  });

  it("fails with PARSER_UNAVAILABLE when the grammar cannot be loaded", async () => {
    const error: unknown = await loadBashParser("/nonexistent/tree-sitter-bash.wasm").catch(
      (caught) => caught,
    );
    expect(isArityRulesError(error)).toBe(true);
    expect(error).toMatchObject({ name: "ArityRulesError", code: "PARSER_UNAVAILABLE" });
    expect((error as Error).message).toMatch(
      /^cannot load the bash parser \(web-tree-sitter with tree-sitter-bash\): .*\/nonexistent\/tree-sitter-bash\.wasm/,
    );
  });
});

// Spellings of `rm -rf /`: each must be read as exactly that command, or leave the script opaque.
describe("a command is read or the script is opaque, however it is spelled", () => {
  const spellings = [
    "rm -rf /",
    "r''m -r\"f\" /",
    "\\rm -\\r\\f /",
    "$'rm' $'-rf' $'\\x2f'",
    '"r"\\m -rf /',
    "rm -r\\\nf /",
    "echo hi;rm -rf /",
    "echo hi&&rm -rf /",
    "echo hi|rm -rf /",
    "echo hi\nrm -rf /",
    "echo a\\\n#; rm -rf /",
    "echo a \\\r\nrm -rf /",
    "x\r#; rm -rf /",
    "rm $'-rf' \"/\"",
    "{ rm -rf /; }",
    "(rm -rf /)",
    "! rm -rf /",
    "if true; then rm -rf /; fi",
    "rm > /dev/null -rf /",
    "bash -c 'rm -rf /'",
    "sh -lc \"bash -c 'rm -rf /'\"",
    "$(echo rm) -rf /",
    "r${x}m -rf /",
    "rm -rf $HOME/..",
    "eval 'rm -rf /'",
  ];

  function reads(analysis: Analysis): boolean {
    return analysis.commands.some(
      (command) =>
        JSON.stringify(command.argv) === JSON.stringify(["rm", "-rf", "/"]) ||
        (command.nested !== null && reads(command.nested)),
    );
  }

  for (const script of spellings) {
    it(JSON.stringify(script), async () => {
      const analysis = await analyze(script);
      expect(reads(analysis) || analysis.opaque.length > 0).toBe(true);
    });
  }
});

describe("a script zsh runs", () => {
  table([
    [
      "zsh -c '=rm f'",
      result(
        [
          cmd(
            ["zsh", "-c", "=rm f"],
            "zsh -c '=rm f'",
            [],
            result([cmd(["rm", "f"], "=rm f")], [], [op("zsh-syntax", "=rm")]),
          ),
        ],
        [],
        [op("zsh-syntax", "=rm")],
      ),
    ],
    // bash reads the same script as the command `=rm`.
    [
      "bash -c '=rm f'",
      result([cmd(["bash", "-c", "=rm f"], "bash -c '=rm f'", [], result([cmd(["=rm", "f"], "=rm f")]))]),
    ],
  ]);
});

describe("function substitutions (bash 5.3, ksh93, mksh)", () => {
  it.each([
    ["echo ${ rm -rf x; }", "${ rm -rf x; }"],
    ["echo ${| rm x; }", "${| rm x; }"],
    ['echo "${ rm x; }"', "${ rm x; }"],
    ["[[ ${ rm x; } ]]", "${ rm x; }"],
  ])("%s runs its commands: a command substitution, never a plain expansion", async (script, text) => {
    const { opaque } = await analyze(script);
    expect(opaque).toContainEqual(op("command-substitution", text));
    expect(opaque.some((part) => part.reason === "parse-error")).toBe(true);
  });
});

describe("coverage of this file", () => {
  it("has a case for every opaque reason", () => {
    expect([...covered].sort()).toEqual([...OPAQUE_REASONS].sort());
  });
});

describe("nesting that would exhaust the stack", () => {
  it("is opaque as too-deep instead of throwing", async () => {
    const script = `${"( ls | ".repeat(4000)}ls${" )".repeat(4000)}`;
    const analysis = await analyze(script);
    expect(analysis.commands).toEqual([]);
    expect(analysis.opaque.map((o) => o.reason)).toEqual(["too-deep"]);
  });
});
