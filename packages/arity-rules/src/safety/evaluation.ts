// Where bash evaluates text as code although no command is written there. An arithmetic expression reads
// its variables' values as expressions in turn, and an array subscript in one (`a[$(rm f)]`) is expanded,
// command substitutions included; so is a subscript in a name given to a builtin (`test -v 'a[…]'`,
// `declare 'a[…]=1'`, `unset 'a[…]'`), in an assignment (`a['$(rm f)']=1`), an indirection (`${!x}`,
// with x='a[$(rm f)]'), a substring's offset (`${y:x}`), and a value assigned to a variable bash evaluates
// (`RANDOM='a[$(rm f)]'`, `OPTIND=…`). Only literal numbers and names an expression assigns itself are
// known not to run anything.
import type { OpaquePart } from "../types.js";

// A name, not the letters of a number (`0x1f`, `16#ff`).
const ARITHMETIC_NAME = /(?<![0-9A-Za-z_#])[A-Za-z_][A-Za-z0-9_]*/g;
const ASSIGNED_NAME = /([A-Za-z_][A-Za-z0-9_]*)\s*(\+\+|--|(<<|>>|[-+*/%&|^])?=(?!=))/g;

export const INTEGER: RegExp = /^[-+]?\d+$/;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
// A subscript bash does not evaluate into anything else.
const LITERAL_INDEX = /^(\d+|@|\*)$/;

/** True when an arithmetic expression reads a variable it does not assign first. */
function readsVariables(expression: string): boolean {
  const assigned = new Set([...expression.matchAll(ASSIGNED_NAME)].map((match) => match[1]));
  return (expression.match(ARITHMETIC_NAME) ?? []).some((name) => !assigned.has(name));
}

/**
 * A variable name bash looks up without evaluating anything: an identifier, or (`index`) an identifier
 * with a literal index (`a[0]`, `a[@]`).
 */
export function isPlainName(word: string, index = true): boolean {
  if (IDENTIFIER.test(word)) return true;
  if (!index) return false;
  const open = word.indexOf("[");
  return (
    open > 0 &&
    word.endsWith("]") &&
    IDENTIFIER.test(word.slice(0, open)) &&
    LITERAL_INDEX.test(word.slice(open + 1, -1))
  );
}

// Variables whose assigned value bash evaluates arithmetically whatever their attributes (bash 5.2 does for
// RANDOM, SRANDOM, OPTIND and HISTCMD; the others are integers in other versions or in zsh).
const EVALUATED_VARIABLES: ReadonlySet<string> = new Set([
  "RANDOM",
  "SRANDOM",
  "OPTIND",
  "OPTERR",
  "HISTCMD",
  "SECONDS",
  "LINENO",
  "BASH_XTRACEFD",
  "BASH_COMPAT",
]);

/** True when assigning value (null: unknown) to the variable name makes bash evaluate the value. */
export function evaluatesAssignment(name: string, value: string | null): boolean {
  return EVALUATED_VARIABLES.has(name) && (value === null || !INTEGER.test(value));
}

/** The index of the character that closes the bracket opened just before `from`, or -1. */
function closing(text: string, from: number, open: string, close: string): number {
  let depth = 1;
  for (let index = from; index < text.length; index += 1) {
    const char = text[index];
    if (char === "\\") index += 1;
    else if (char === open) depth += 1;
    else if (char === close && --depth === 0) return index;
  }
  return -1;
}

/** `${…}` (its inside) that evaluates something: a subscript, an indirection, a substring, `@P`. */
function evaluatesParameter(body: string): boolean {
  const special = /^([#!]?)([A-Za-z_][A-Za-z0-9_]*|\d+|[@*#?$!-])/.exec(body);
  if (special === null) return false;
  const [whole, prefix] = special as unknown as [string, string];
  let rest = body.slice(whole.length);
  let listed = false;
  if (rest.startsWith("[")) {
    const end = closing(rest, 1, "[", "]");
    const subscript = end === -1 ? rest.slice(1) : rest.slice(1, end);
    if (!LITERAL_INDEX.test(subscript)) return true;
    listed = subscript === "@" || subscript === "*";
    rest = end === -1 ? "" : rest.slice(end + 1);
  }
  // `${!x}` looks up the variable x names, subscript and all; `${!prefix*}` and `${!a[@]}` list names.
  if (prefix === "!" && !(listed && rest === "") && rest !== "*" && rest !== "@") return true;
  if (rest.startsWith(":") && !"-=?+".includes(rest[1] ?? "-")) return readsVariables(rest.slice(1));
  return rest === "@P";
}

/**
 * True when text (a word, an expansion, a loop or heredoc as written) holds an expansion bash evaluates
 * with a variable in it: `$((x))`, `$[x]`, `${a[i]}`, `${#a[$i]}`, `${!x}`, `${y:x}`, `${x@P}`, at any
 * depth. Quotes are not taken into account, which errs towards evaluating.
 */
function evaluatesExpansion(text: string): boolean {
  for (let at = text.indexOf("$"); at !== -1; at = text.indexOf("$", at + 1)) {
    const next = text[at + 1];
    if (next === "(" && text[at + 2] === "(") {
      const end = closing(text, at + 2, "(", ")");
      if (readsVariables(text.slice(at + 3, end === -1 ? undefined : end))) return true;
    } else if (next === "[") {
      const end = closing(text, at + 2, "[", "]");
      if (readsVariables(text.slice(at + 2, end === -1 ? undefined : end))) return true;
    } else if (next === "{") {
      const end = closing(text, at + 2, "{", "}");
      if (evaluatesParameter(text.slice(at + 2, end === -1 ? undefined : end))) return true;
    }
  }
  return false;
}

/**
 * What an assignment as written (`a[x]=1`, `x=([k]=v)`, `RANDOM=$n`) makes bash evaluate: a subscript
 * that is not a literal index, one in a compound value, or a value a special variable evaluates.
 */
export function evaluatesAssignmentText(text: string): boolean {
  const match = /^([A-Za-z_][A-Za-z0-9_]*)(?:\[(.*?)\])?\+?=(.*)$/s.exec(text);
  if (match === null) return false;
  const [, name, subscript, value] = match as unknown as [string, string, string | undefined, string];
  if (subscript !== undefined && !LITERAL_INDEX.test(subscript)) return true;
  if (value.startsWith("(")) {
    for (const element of value.matchAll(/\[([^\]]*)\]\+?=/g)) {
      if (!LITERAL_INDEX.test(element[1] as string)) return true;
    }
  }
  return evaluatesAssignment(name, value);
}

/** The name an assignment as written assigns (`PATH` for `PATH=x`, `a` for `a[1]+=x`), or null. */
export function assignedName(text: string): string | null {
  return /^([A-Za-z_][A-Za-z0-9_]*)(\[|\+?=)/.exec(text)?.[1] ?? null;
}

/**
 * The scripts of the command substitutions in text (`$(…)`, `` `…` ``), for reading what evaluated text
 * runs. Best effort: quotes are not taken into account.
 */
export function substitutionsIn(text: string): string[] {
  const found: string[] = [];
  for (let at = 0; at < text.length; at += 1) {
    const char = text[at];
    if (char === "\\") {
      at += 1;
    } else if (char === "$" && text[at + 1] === "(" && text[at + 2] !== "(") {
      const end = closing(text, at + 2, "(", ")");
      found.push(text.slice(at + 2, end === -1 ? undefined : end));
      if (end === -1) break;
      at = end;
    } else if (char === "`") {
      const end = text.indexOf("`", at + 1);
      found.push(text.slice(at + 1, end === -1 ? undefined : end));
      if (end === -1) break;
      at = end;
    }
  }
  return found;
}

// Builtins whose operands are assignments (`export BASH_ENV=x`) or names of variables they export.
export const DECLARATIONS: ReadonlySet<string> = new Set([
  "export",
  "declare",
  "typeset",
  "local",
  "readonly",
]);

// Bash evaluates a variable's value as an arithmetic expression, and so runs `$(…)` in it (evaluation.ts):
// `let`, `declare -i` and `[[ x -eq 1 ]]` take such expressions as operands.
const ARITHMETIC_OPERATORS: ReadonlySet<string> = new Set(["-eq", "-ne", "-lt", "-le", "-gt", "-ge"]);

// Opaque parts whose text may hold an expansion that evaluates a value: the expansion itself, and the
// words of loops, heredoc bodies, here-strings and assignments, which are not reported one by one.
const EXPANDING_PARTS: ReadonlySet<string> = new Set([
  "parameter-expansion",
  "control-flow",
  "heredoc",
  "herestring",
  "assignment-prefix",
]);

/** An expansion, loop or assignment of the analysis that evaluates a variable's value as code. */
export function evaluatesValues(part: OpaquePart): boolean {
  const { reason, text } = part;
  if (reason === "control-flow") {
    const header = /^for\s*\(\((.*?)\)\)/s.exec(text);
    if (header !== null && readsVariables(header[1] as string)) return true;
  }
  // A heredoc whose delimiter is quoted (`<<'EOF'`) expands nothing in its body.
  if (reason === "heredoc" && /^<<-?[^\n]*['"\\]/.test(text)) return false;
  return EXPANDING_PARTS.has(reason) && evaluatesExpansion(text);
}

/** A builtin that evaluates its operands arithmetically with a variable in them. */
export function evaluatesOperands(name: string, args: readonly string[]): boolean {
  if (name === "let") return args.some(readsVariables);
  if (name === "[[") {
    return args.some(
      (arg, index) =>
        ARITHMETIC_OPERATORS.has(arg) &&
        [args[index - 1], args[index + 1]].some((side) => !INTEGER.test(side ?? "")),
    );
  }
  if (!DECLARATIONS.has(name) || !args.some((arg) => /^-[A-Za-z]*i/.test(arg))) return false;
  return args.some((arg) => {
    const equals = arg.indexOf("=");
    return equals > 0 && !arg.startsWith("-") && readsVariables(arg.slice(equals + 1));
  });
}
