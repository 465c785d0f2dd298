// Shell builtins, and the uses of them the analyser models. A builtin runs inside the shell, so what it
// does is the shell's doing, not a program's: `compgen -C 'rm f' x`, `fc -e 'rm f'`, `bind -x` and
// `history -s` run text as commands, and builtins that take a variable name evaluate a subscript in it
// (`printf -v 'a[$(rm f)]' x`, `test -v`, `read`, `declare`, `unset`). Rules naming programs cannot see
// any of that, so a builtin counts as read only when it is on the modelled list below and used as the
// list says; any other builtin of bash or of the other Bourne-family shells read with bash's grammar
// (zsh, ksh, mksh, dash) leaves the command line unread.
import { evaluatesAssignment, INTEGER, isPlainName } from "./evaluation.js";

/** What keeps one use of a builtin from being read: the text is null when it is the whole command. */
export interface BuiltinFinding {
  readonly reason: "unmodelled-builtin" | "evaluated-text" | "program-path";
  readonly text: string | null;
}

const BASH_BUILTINS: readonly string[] = [
  ".",
  ":",
  "[",
  "[[",
  "alias",
  "bg",
  "bind",
  "break",
  "builtin",
  "caller",
  "cd",
  "command",
  "compgen",
  "complete",
  "compopt",
  "continue",
  "coproc",
  "declare",
  "dirs",
  "disown",
  "echo",
  "enable",
  "eval",
  "exec",
  "exit",
  "export",
  "false",
  "fc",
  "fg",
  "getopts",
  "hash",
  "help",
  "history",
  "jobs",
  "kill",
  "let",
  "local",
  "logout",
  "mapfile",
  "popd",
  "printf",
  "pushd",
  "pwd",
  "read",
  "readarray",
  "readonly",
  "return",
  "set",
  "shift",
  "shopt",
  "source",
  "suspend",
  "test",
  "time",
  "times",
  "trap",
  "true",
  "type",
  "typeset",
  "ulimit",
  "umask",
  "unalias",
  "unset",
  "wait",
];

// Builtins of zsh, ksh93 and mksh that bash lacks. Module builtins (zsh/zpty, zsh/net/tcp, …) need
// `zmodload`, which is itself unmodelled.
const OTHER_SHELL_BUILTINS: readonly string[] = [
  "alarm",
  "autoload",
  "bindkey",
  "bye",
  "cap",
  "chdir",
  "compadd",
  "comparguments",
  "compcall",
  "compctl",
  "compdescribe",
  "compfiles",
  "compgroups",
  "compound",
  "compquote",
  "compset",
  "comptags",
  "comptry",
  "compvalues",
  "disable",
  "echotc",
  "echoti",
  "emulate",
  "enum",
  "float",
  "functions",
  "getcap",
  "getln",
  "global",
  "hist",
  "integer",
  "limit",
  "log",
  "nameref",
  "nocorrect",
  "noglob",
  "print",
  "private",
  "pushln",
  "r",
  "rehash",
  "sched",
  "setcap",
  "setopt",
  "ttyctl",
  "unfunction",
  "unhash",
  "unlimit",
  "unsetopt",
  "vared",
  "whence",
  "where",
  "which",
  "zcompile",
  "zformat",
  "zle",
  "zmodload",
  "zparseopts",
  "zregexparse",
  "zstyle",
];

const SHELL_BUILTINS: ReadonlySet<string> = new Set([...BASH_BUILTINS, ...OTHER_SHELL_BUILTINS]);

/** True for a name a Bourne-family shell runs itself (a builtin or the keywords `[[`, `time`, `coproc`). */
export function isShellBuiltin(name: string): boolean {
  return SHELL_BUILTINS.has(name);
}

/** One use of a builtin being read: its words, which of them are not literal, and what was found. */
class Use {
  readonly findings: BuiltinFinding[] = [];
  readonly words: readonly string[];
  private readonly dynamic: (index: number) => boolean;

  constructor(words: readonly string[], dynamic: (index: number) => boolean) {
    this.words = words;
    this.dynamic = dynamic;
  }

  isDynamic(index: number): boolean {
    return this.dynamic(index);
  }

  unmodelled(): void {
    if (!this.findings.some((finding) => finding.reason === "unmodelled-builtin")) {
      this.findings.push({ reason: "unmodelled-builtin", text: null });
    }
  }

  evaluated(index: number): void {
    this.findings.push({ reason: "evaluated-text", text: this.words[index] ?? "" });
  }

  /** The word at index names a variable the builtin assigns (or looks up, `lookup`). */
  name(index: number, subscript: boolean, lookup = false): void {
    const word = this.words[index];
    if (word === undefined) return;
    if (this.isDynamic(index) || !isPlainName(word, subscript)) this.evaluated(index);
    else if (!lookup && evaluatesAssignment(word, null)) this.evaluated(index);
    else if (!lookup && word === "PATH") this.findings.push({ reason: "program-path", text: word });
  }
}

interface Options {
  /** The index of the first operand. */
  readonly end: number;
  /** The value options given, by letter, as indexes of the words holding the value (-1 if attached). */
  readonly values: ReadonlyMap<string, number[]>;
}

/**
 * Reads bash's `internal_getopt` options from index 1: clusters of `flags`, `valueLetters` taking the
 * rest of the word or the next word, `--` ending them; `plus` also takes `+x` words (declare, set). Null
 * for an unknown letter or an option word that is not literal.
 */
function readOptions(use: Use, flags: string, valueLetters: string, plus = false): Options | null {
  const values = new Map<string, number[]>();
  let index = 1;
  while (index < use.words.length) {
    const word = use.words[index] as string;
    if (use.isDynamic(index)) {
      if (word.startsWith("-") || word.startsWith("+") || /^["'$`]/.test(word)) return null;
      break;
    }
    if (word === "--") return { end: index + 1, values };
    const sign = word[0];
    if (word.length < 2 || !(sign === "-" || (plus && sign === "+"))) break;
    let next = index + 1;
    for (let at = 1; at < word.length; at += 1) {
      const letter = word[at] as string;
      if (valueLetters.includes(letter)) {
        const attached = at + 1 < word.length;
        values.set(letter, [...(values.get(letter) ?? []), attached ? -1 : index + 1]);
        if (!attached) next = index + 2;
        break;
      }
      if (!flags.includes(letter)) return null;
    }
    index = next;
  }
  return { end: Math.min(index, use.words.length), values };
}

function anything(): void {}

function printf(use: Use): void {
  const first = use.words[1];
  if (first === undefined) return;
  if (use.isDynamic(1)) {
    use.unmodelled();
    return;
  }
  if (first.startsWith("-") && first !== "--") {
    use.unmodelled();
    if (first === "-v") use.name(2, true);
    else if (first.startsWith("-v")) use.findings.push({ reason: "evaluated-text", text: first.slice(2) });
  }
}

/** Reads the options; the values of `names` options and, if `operands`, every operand name a variable. */
function targets(use: Use, flags: string, valueLetters: string, names: string, operands: boolean): void {
  const options = readOptions(use, flags, valueLetters);
  if (options === null) {
    use.unmodelled();
    return;
  }
  for (const letter of names) {
    for (const index of options.values.get(letter) ?? []) {
      if (index === -1) use.unmodelled();
      else use.name(index, false);
    }
  }
  if (!operands) return;
  for (let index = options.end; index < use.words.length; index += 1) use.name(index, true);
}

function read(use: Use): void {
  targets(use, "ersE", "adinNptu", "a", true);
}

function mapfile(use: Use): void {
  const options = readOptions(use, "t", "dnOsuCc");
  if (options === null || use.words.length - options.end > 1) {
    use.unmodelled();
    return;
  }
  use.name(options.end, false);
}

function getopts(use: Use): void {
  use.name(2, false);
}

// Its operands are process and job ids, not names; `-p NAME` names a variable.
function wait(use: Use): void {
  targets(use, "fn", "p", "p", false);
}

/**
 * export, readonly, local, declare, typeset: options from `letters` (never -i, which makes every later
 * assignment arithmetic, nor -n, a nameref to any name, nor -I, which inherits either), and operands
 * `NAME` or `NAME=VALUE` with an identifier for NAME. A value that is not literal is modelled only where
 * `dynamicValues`: declare, typeset and local read `x=$y` as a compound assignment when x is an array.
 */
function declaration(letters: string, dynamicValues: boolean): (use: Use) => void {
  return (use) => {
    const options = readOptions(use, letters, "", true);
    if (options === null) {
      use.unmodelled();
      return;
    }
    for (let index = options.end; index < use.words.length; index += 1) {
      const word = use.words[index] as string;
      const dynamic = use.isDynamic(index);
      const match = /^([A-Za-z_][A-Za-z0-9_]*)(\+?=)?/.exec(word);
      if (match === null || (match[2] === undefined && match[0] !== word)) {
        use.evaluated(index);
        continue;
      }
      const name = match[1] as string;
      if (match[2] === undefined) continue;
      if (name === "PATH") use.findings.push({ reason: "program-path", text: word });
      const value = word.slice(match[0].length);
      if (dynamic) {
        if (!dynamicValues) use.unmodelled();
        if (evaluatesAssignment(name, null)) use.evaluated(index);
      } else if (value.startsWith("(") || evaluatesAssignment(name, value)) {
        use.evaluated(index);
      }
    }
  };
}

function unset(use: Use): void {
  const options = readOptions(use, "fvn", "");
  if (options === null) {
    use.unmodelled();
    return;
  }
  for (let index = options.end; index < use.words.length; index += 1) use.name(index, true, true);
}

/** `test`, `[` and `[[`: the operand of `-v` and `-R` is a variable name (bash's `[[` arithmetic aside). */
function test(use: Use): void {
  for (let index = 1; index + 1 < use.words.length; index += 1) {
    const word = use.words[index];
    const operand = use.words[index + 1];
    if ((word === "-v" || word === "-R") && operand !== "]" && operand !== "]]")
      use.name(index + 1, true, true);
  }
}

// set's options that only change how the script's own commands run. Not -k (assignments anywhere in a
// command become its environment: `set -k; bash -c ls BASH_ENV=x`), -H (history expansion), nor
// `-o history`, `-o posix`, `-o keyword`, `-o histexpand`.
const SET_LETTERS = "abefhmnuvxBCEPT";
const SET_NAMES: ReadonlySet<string> = new Set([
  "allexport",
  "braceexpand",
  "emacs",
  "errexit",
  "errtrace",
  "functrace",
  "hashall",
  "ignoreeof",
  "interactive-comments",
  "monitor",
  "noclobber",
  "noexec",
  "noglob",
  "nolog",
  "notify",
  "nounset",
  "onecmd",
  "physical",
  "pipefail",
  "verbose",
  "vi",
  "xtrace",
]);

function set(use: Use): void {
  for (let index = 1; index < use.words.length; index += 1) {
    const word = use.words[index] as string;
    if (use.isDynamic(index)) {
      use.unmodelled();
      return;
    }
    if (word === "--" || word === "-" || word.length < 2 || !(word[0] === "-" || word[0] === "+")) return;
    for (const letter of word.slice(1)) {
      if (letter === "o") {
        const name = use.words[index + 1];
        if (name !== undefined && (use.isDynamic(index + 1) || !SET_NAMES.has(name))) {
          use.unmodelled();
          return;
        }
        index += 1;
      } else if (!SET_LETTERS.includes(letter)) {
        use.unmodelled();
        return;
      }
    }
  }
}

// shopt options that only change globbing, matching and messages. Not the compat* levels, extdebug,
// localvar_*, *_expand_once or anything else that changes how the analyser's reading would run.
const SHOPT_NAMES: ReadonlySet<string> = new Set([
  "autocd",
  "cdable_vars",
  "cdspell",
  "checkhash",
  "checkjobs",
  "checkwinsize",
  "cmdhist",
  "dirspell",
  "dotglob",
  "execfail",
  "expand_aliases",
  "extglob",
  "extquote",
  "failglob",
  "force_fignore",
  "globasciiranges",
  "globskipdots",
  "globstar",
  "gnu_errfmt",
  "histappend",
  "histreedit",
  "histverify",
  "huponexit",
  "inherit_errexit",
  "interactive_comments",
  "lastpipe",
  "lithist",
  "mailwarn",
  "nocaseglob",
  "nocasematch",
  "nullglob",
  "shift_verbose",
  "sourcepath",
  "xpg_echo",
]);

function shopt(use: Use): void {
  const options = readOptions(use, "supqo", "");
  if (options === null) {
    use.unmodelled();
    return;
  }
  const given = use.words.slice(1, options.end).join("");
  if (!given.includes("s") && !given.includes("u")) return;
  const names = given.includes("o") ? SET_NAMES : SHOPT_NAMES;
  for (let index = options.end; index < use.words.length; index += 1) {
    if (use.isDynamic(index) || !names.has(use.words[index] as string)) {
      use.unmodelled();
      return;
    }
  }
}

/** return, exit, shift, break, continue, logout: a number (zsh evaluates it as arithmetic). */
function numeric(use: Use): void {
  for (let index = 1; index < use.words.length; index += 1) {
    if (!use.isDynamic(index) && !INTEGER.test(use.words[index] as string)) use.evaluated(index);
  }
}

function jobs(use: Use): void {
  const options = readOptions(use, "lnprs", "");
  if (options === null) use.unmodelled();
}

// The modelled builtins. The runners (exec, command, builtin, time, coproc, noglob, nocorrect, `jobs -x`)
// are looked through, the text of eval and trap is read, and source, alias, hash -p, enable and let are
// reported on their own; the others change nothing a rule could be about, or take the names checked here.
const MODELLED: ReadonlyMap<string, (use: Use) => void> = new Map([
  [":", anything],
  ["true", anything],
  ["false", anything],
  ["echo", anything],
  ["pwd", anything],
  ["cd", anything],
  ["pushd", anything],
  ["popd", anything],
  ["dirs", anything],
  ["times", anything],
  ["caller", anything],
  ["help", anything],
  ["suspend", anything],
  ["bg", anything],
  ["fg", anything],
  ["disown", anything],
  ["kill", anything],
  ["umask", anything],
  ["ulimit", anything],
  ["type", anything],
  ["which", anything],
  ["where", anything],
  ["whence", anything],
  ["unalias", anything],
  ["alias", anything],
  ["hash", anything],
  ["enable", anything],
  ["source", anything],
  [".", anything],
  ["eval", anything],
  ["trap", anything],
  ["let", anything],
  ["exec", anything],
  ["command", anything],
  ["builtin", anything],
  ["time", anything],
  ["coproc", anything],
  ["noglob", anything],
  ["nocorrect", anything],
  ["jobs", jobs],
  ["printf", printf],
  ["read", read],
  ["mapfile", mapfile],
  ["readarray", mapfile],
  ["getopts", getopts],
  ["wait", wait],
  ["export", declaration("fnp", true)],
  ["readonly", declaration("aAfp", true)],
  ["local", declaration("aAfFgprtxlu", false)],
  ["declare", declaration("aAfFgprtxlu", false)],
  ["typeset", declaration("aAfFgprtxlu", false)],
  ["unset", unset],
  ["test", test],
  ["[", test],
  ["[[", test],
  ["set", set],
  ["shopt", shopt],
  ["return", numeric],
  ["exit", numeric],
  ["shift", numeric],
  ["break", numeric],
  ["continue", numeric],
  ["logout", numeric],
]);

/** The names of the modelled builtins, for the README and its test. */
export const MODELLED_BUILTINS: readonly string[] = [...MODELLED.keys()];

/**
 * What keeps this use of a builtin (`words[0]`, its name) from being read: nothing for a program or a
 * modelled use. `dynamic(index)` says whether a word is not literal.
 */
export function builtinFindings(
  words: readonly string[],
  dynamic: (index: number) => boolean,
): readonly BuiltinFinding[] {
  const name = words[0];
  if (name === undefined || !SHELL_BUILTINS.has(name)) return [];
  const use = new Use(words, dynamic);
  const handler = MODELLED.get(name);
  if (handler === undefined) use.unmodelled();
  else handler(use);
  return use.findings;
}
