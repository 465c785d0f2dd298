// Codex's list of programs that only read (is_safe_command.rs, `is_safe_to_call_with_exec`), with its
// per-command rules. Conch is stricter in five places, each closing a way to write or run a program with
// a listed one: `uniq IN OUT` writes OUT; `sed -n 1p -ew FILE` adds a script that writes; `rg -nz` hides
// -z in a cluster; `base64 -Do FILE` hides -o in a cluster (and getopt_long accepts `--out`); and git is
// not on the list at all, since `git status`, `diff`, `log -p`, `show` and `branch` run programs a
// repository's config or attributes name (core.fsmonitor, diff.external, textconv and filter drivers,
// pagers, gpg.program), and the agent can write such a repository (see git.ts). Codex now leaves git out too.
import { trustedExecutableName } from "./command-name.js";

const ALWAYS_SAFE: ReadonlySet<string> = new Set([
  "cat",
  "cd",
  "cut",
  "echo",
  "expr",
  "false",
  "grep",
  "head",
  "id",
  "ls",
  "nl",
  "paste",
  "pwd",
  "rev",
  "seq",
  "stat",
  "tail",
  "tr",
  "true",
  "uname",
  "wc",
  "which",
  "whoami",
]);

// The GNU versions only; Codex does not vouch for the BSD ones.
const LINUX_ONLY_SAFE: ReadonlySet<string> = new Set(["numfmt", "tac"]);

// Actions that run a program, delete, or write file names to a file.
const UNSAFE_FIND_ACTIONS: ReadonlySet<string> = new Set([
  "-exec",
  "-execdir",
  "-ok",
  "-okdir",
  "-delete",
  "-fls",
  "-fprint",
  "-fprint0",
  "-fprintf",
]);

/** True when argv (already stripped of wrappers) runs a program on the known-safe list, used safely. */
export function isSafeToCallWithExec(argv: readonly string[]): boolean {
  const first = argv[0];
  const name = first === undefined ? null : trustedExecutableName(first);
  if (name === null) return false;
  if (ALWAYS_SAFE.has(name)) return true;
  if (LINUX_ONLY_SAFE.has(name)) return process.platform === "linux";
  switch (name) {
    case "base64":
      return !argv.slice(1).some(isBase64OutputOption);
    case "find":
      return !argv.slice(1).some((arg) => UNSAFE_FIND_ACTIONS.has(arg));
    case "rg":
      return isSafeRipgrep(argv.slice(1));
    case "sed":
      return isSafeSedPrint(argv.slice(1));
    case "uniq":
      return uniqOperandCount(argv.slice(1)) <= 1;
    default:
      return false;
  }
}

// BSD base64 writes with `-o FILE`, `-oFILE`, `--output[=FILE]`, in a cluster (`-Do FILE`) and as any
// getopt_long abbreviation (`--out`). GNU base64 has no option containing `o` at all.
function isBase64OutputOption(arg: string): boolean {
  if (arg.startsWith("--")) {
    const equals = arg.indexOf("=");
    const name = equals === -1 ? arg : arg.slice(0, equals);
    return name.length > 2 && "--output".startsWith(name);
  }
  return arg.startsWith("-") && arg.slice(1).includes("o");
}

// `sed -n Np` or `sed -n M,Np`, with at most one file operand that is not an option: a 4th word like
// `-ew out.txt` would add a script that writes a file.
function isSafeSedPrint(args: readonly string[]): boolean {
  if (args.length > 3 || args[0] !== "-n" || !/^(\d+,)?\d+p$/.test(args[1] ?? "")) return false;
  const file = args[2];
  return file === undefined || file === "-" || !file.startsWith("-");
}

// ripgrep runs a program for each file with --pre, runs one to get the host name with --hostname-bin,
// and runs decompressors with -z/--search-zip. Values of other options are skipped, so `rg -e -z` (a
// pattern) stays safe while `rg -nz` does not.
const RG_LONG_WITH_VALUE: ReadonlySet<string> = new Set([
  "after-context",
  "before-context",
  "color",
  "colors",
  "context",
  "context-separator",
  "dfa-size-limit",
  "encoding",
  "engine",
  "field-context-separator",
  "field-match-separator",
  "file",
  "glob",
  "hyperlink-format",
  "iglob",
  "ignore-file",
  "max-columns",
  "max-count",
  "max-depth",
  "max-filesize",
  "path-separator",
  "pre-glob",
  "regex-size-limit",
  "regexp",
  "replace",
  "sort",
  "sortr",
  "threads",
  "type",
  "type-add",
  "type-clear",
  "type-not",
]);
const RG_SHORT_WITH_VALUE: ReadonlySet<string> = new Set([..."ABCEMefgjmrtT"]);
const RG_UNSAFE_LONG: ReadonlySet<string> = new Set(["pre", "hostname-bin", "search-zip"]);

function isSafeRipgrep(args: readonly string[]): boolean {
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index] as string;
    if (arg === "--") return true;
    if (arg.startsWith("--")) {
      const equals = arg.indexOf("=");
      const name = arg.slice(2, equals === -1 ? undefined : equals);
      if (RG_UNSAFE_LONG.has(name)) return false;
      if (equals === -1 && RG_LONG_WITH_VALUE.has(name)) index += 1;
    } else if (arg.startsWith("-")) {
      for (let at = 1; at < arg.length; at += 1) {
        const flag = arg[at] as string;
        if (flag === "z") return false;
        if (RG_SHORT_WITH_VALUE.has(flag)) {
          if (at + 1 === arg.length) index += 1;
          break;
        }
      }
    }
  }
  return true;
}

// `uniq [INPUT [OUTPUT]]` writes its second operand, so more than one operand is not safe. Values of
// -f/-s/-w are not operands; anything unrecognised counts as an operand, which errs towards unsafe.
const UNIQ_SHORT_WITH_VALUE: ReadonlySet<string> = new Set(["f", "s", "w"]);
const UNIQ_LONG_WITH_VALUE: ReadonlySet<string> = new Set(["--skip-fields", "--skip-chars", "--check-chars"]);

function uniqOperandCount(args: readonly string[]): number {
  let operands = 0;
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index] as string;
    if (arg === "--") return operands + args.length - index - 1;
    if (arg.startsWith("--")) {
      if (UNIQ_LONG_WITH_VALUE.has(arg)) index += 1;
    } else if (arg.startsWith("-") && arg !== "-") {
      for (let at = 1; at < arg.length; at += 1) {
        if (UNIQ_SHORT_WITH_VALUE.has(arg[at] as string)) {
          if (at + 1 === arg.length) index += 1;
          break;
        }
      }
    } else {
      operands += 1;
    }
  }
  return operands;
}
