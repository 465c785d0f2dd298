import { shellNames } from "@conch/protocol";
import { executableName, trustedExecutableName } from "./command-name.js";

const SCRIPT_SHELLS: ReadonlySet<string> = shellNames((shell) => shell.provable);

export interface ShellScript {
  /** The shell's file name: `bash`, `sh`, … */
  readonly shell: string;
  /** `-c` or `-lc` for the exact shape; the flag word that held `c` otherwise. */
  readonly flag: string;
  readonly script: string;
}

/**
 * The script of `bash|sh|zsh|dash -c|-lc SCRIPT` in exactly that three-word shape (Codex's
 * `extract_bash_command`), the only shape a script may be proven safe in. Extra words would become the
 * script's `$0`, `$1`, …; other flags change how the script runs.
 */
export function shellScript(argv: readonly string[]): ShellScript | null {
  if (argv.length !== 3) return null;
  const [program, flag, script] = argv as [string, string, string];
  const shell = trustedExecutableName(program);
  if (shell === null || !SCRIPT_SHELLS.has(shell)) return null;
  return flag === "-c" || flag === "-lc" ? { shell, flag, script } : null;
}

// Shells that may not know bash's `$'…'` quoting: dash (Debian's /bin/sh) reads `$'x\' ; rm y ; ' #'`
// as `$` and the string 'x\', then runs `rm y`, where bash reads one ANSI-C string.
const POSIX_SHELLS: ReadonlySet<string> = shellNames((shell) => shell.posix && shell.family === "bourne");
const UNESCAPED_ANSI_C = /(?<!\\)((?:\\\\)*)\$'/g;

/**
 * The scripts a shell may actually run: the script itself (read with bash's rules by `analyze()`), and
 * for sh-like shells, if it has a `$'`, the script as a shell without `$'…'` reads it (`$'` becomes the
 * escaped `\$'`, so `analyze()` sees a plain `$` and a single-quoted string).
 */
export function scriptReadings(shell: string, script: string): readonly string[] {
  if (!POSIX_SHELLS.has(shell) || !script.includes("$'")) return [script];
  return [script, script.replace(UNESCAPED_ANSI_C, "$1\\$$'")];
}

// Shells of the Bourne family, under any path, with any flags, read with bash's grammar when looking for
// danger or for what a script runs, where missing a script is worse than looking at one too many.
const READ_SHELLS: ReadonlySet<string> = shellNames((shell) => shell.family === "bourne");
// Shells with languages of their own, which the analyser does not read.
const UNREAD_SHELLS: ReadonlySet<string> = shellNames((shell) => shell.family === "own");
// Long options of these shells that take the next word as their value.
const SHELL_LONG_OPTIONS_WITH_VALUE: ReadonlySet<string> = new Set(["--rcfile", "--init-file"]);
const VERSION_SUFFIX = /^([a-z]+?)-?\d+(\.\d+)*$/;

/**
 * The shell a command word names, or null: the file name, without a Windows `.exe` (in any case) or a
 * version suffix (`ksh93`, `bash-5.2`), since every such name runs that shell.
 */
export function shellName(word: string): string | null {
  let name = executableName(word.replaceAll("\\", "/"));
  if (/\.exe$/i.test(name)) name = name.slice(0, -4).toLowerCase();
  const unversioned = VERSION_SUFFIX.exec(name)?.[1] ?? name;
  return READ_SHELLS.has(unversioned) || UNREAD_SHELLS.has(unversioned) ? unversioned : null;
}

/** True for a shell whose scripts the analyser reads (with bash's grammar). */
export function isReadShell(shell: string): boolean {
  return READ_SHELLS.has(shell);
}

// How other shells are told to run a command: fish, csh, nu, xonsh, elvish `-c`; pwsh `-Command`, `-c`,
// `-EncodedCommand` (abbreviations too); cmd `/c`, `/k`.
const UNREAD_SHELL_COMMAND_FLAG = /^(-[A-Za-z]*c|--command(=.*)?|-com[a-z]*|-e(c|n[a-z]*)|\/[ck])$/i;

/**
 * The text a shell outside the Bourne family is given to run: everything after its command flag (an
 * attached `--command=TEXT` included), or null when it has none and so reads its commands from input or
 * a file. Best effort, read with bash's grammar, so that a command named in it is still found.
 */
export function unreadShellText(argv: readonly string[]): string | null {
  for (let index = 1; index < argv.length; index += 1) {
    const word = argv[index] as string;
    if (!UNREAD_SHELL_COMMAND_FLAG.test(word)) continue;
    const attached = word.startsWith("--command=") ? [word.slice("--command=".length)] : [];
    const rest = [...attached, ...argv.slice(index + 1)];
    return rest.length === 0 ? null : rest.join(" ");
  }
  return null;
}

/**
 * The script a shell invocation runs with `-c` in any spelling (`bash -ec 'rm -rf x'`,
 * `/bin/sh -e -c '…'`), or null. The script is the first operand after the options, as in bash.
 */
export function anyShellScript(argv: readonly string[]): ShellScript | null {
  const first = argv[0];
  const shell = first === undefined ? null : shellName(first);
  if (shell === null || !READ_SHELLS.has(shell)) return null;
  let flag: string | null = null;
  for (let index = 1; index < argv.length; index += 1) {
    const word = argv[index] as string;
    if (word === "--" || word === "-") {
      const script = argv[index + 1];
      return flag !== null && script !== undefined ? { shell, flag, script } : null;
    }
    if (word.startsWith("--")) {
      if (SHELL_LONG_OPTIONS_WITH_VALUE.has(word)) index += 1;
      continue;
    }
    if (word.startsWith("-") || word.startsWith("+")) {
      if (word.startsWith("-") && word.includes("c")) flag = word;
      // `-o errexit`, `-eo pipefail`, `+O extglob`: the option name is the next word.
      if (word.endsWith("o") || word.endsWith("O")) index += 1;
      continue;
    }
    return flag !== null ? { shell, flag, script: word } : null;
  }
  return null;
}
