// Which argv is a shell running one script: Codex's `extract_bash_command`, limited to shells named
// bare or by a system path. A script is split into its commands for the rules only when the program
// that runs it is certainly that shell: `./bash -lc 'git status'` runs whatever file `./bash` is, so it
// is judged as the command it is, never as the `git status` it claims to run.

const SCRIPT_SHELLS: ReadonlySet<string> = new Set(["bash", "zsh", "sh", "dash"]);

const SYSTEM_BIN_DIRS: ReadonlySet<string> = new Set([
  "/bin",
  "/sbin",
  "/usr/bin",
  "/usr/sbin",
  "/usr/local/bin",
  "/usr/local/sbin",
  "/opt/homebrew/bin",
]);

/** The program a command word names if it is a bare name or an absolute path in a system directory. */
function trustedProgramName(word: string): string | null {
  const slash = word.lastIndexOf("/");
  if (slash === -1) return word === "" ? null : word;
  const name = word.slice(slash + 1);
  return name !== "" && SYSTEM_BIN_DIRS.has(word.slice(0, slash)) ? name : null;
}

export interface ShellScript {
  /** The shell as written, e.g. `/bin/bash`. */
  shell: string;
  /** Its program name, e.g. `bash`. */
  name: string;
  /** `-c` or `-lc`. */
  flag: string;
  script: string;
}

/** `bash|zsh|sh|dash -c|-lc SCRIPT`, in exactly that three-word shape, or null. */
export function shellScript(argv: readonly string[]): ShellScript | null {
  if (argv.length !== 3) return null;
  const [shell, flag, script] = argv as [string, string, string];
  const name = trustedProgramName(shell);
  if (name === null || !SCRIPT_SHELLS.has(name) || (flag !== "-c" && flag !== "-lc")) return null;
  return { shell, name, flag, script };
}
