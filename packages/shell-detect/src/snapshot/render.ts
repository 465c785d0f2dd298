import { shellQuote } from "./quote.js";
import type { CaptureRecords } from "./records.js";
import type { SnapshotShellType } from "./shell-snapshot.js";

/** Decides which exported variables a snapshot may carry; `value` is decoded as UTF-8. */
export type KeepVariable = (name: string, value: string) => boolean;

/** What a snapshot prints to stderr when `PROBE_VARIABLE` is set: how a capture proves it loads. */
export const PROBE_VARIABLE = "CONCH_SNAPSHOT_PROBE";
export const PROBE_OUTPUT = "conch-snapshot-loaded\n";

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

// The shell sets these itself for each process; a snapshot's copy would be stale or wrong.
const PER_PROCESS = new Set(["PWD", "OLDPWD", "SHLVL", "_", PROBE_VARIABLE]);
// Read-only in bash (and in a bash run as sh): assigning one prints an error before every command.
const BASH_READONLY = new Set(["BASHOPTS", "BASH_VERSINFO", "EUID", "PPID", "SHELLOPTS", "UID"]);

// Options that only a person at a prompt uses (history, job control, line editing), that bash will
// not set (login_shell), or that would change how the script runs rather than how its words expand:
// a script that wants errexit or xtrace says so itself, and a leftover `set -x` in a profile must not
// trace every command. expand_aliases is set last, after the functions are read.
const BASH_SET_SKIPPED = new Set([
  "emacs",
  "vi",
  "history",
  "histexpand",
  "monitor",
  "ignoreeof",
  "errexit",
  "nounset",
  "pipefail",
  "xtrace",
  "verbose",
  "noexec",
  "onecmd",
  "errtrace",
  "functrace",
  "privileged",
  "posix",
]);
const BASH_SHOPT_SKIPPED = new Set(["login_shell", "restricted_shell", "expand_aliases"]);
// The same for zsh, by the names `setopt` prints (lower case, no underscores; `noNAME` when off).
// aliases was turned off by the capture script itself; zsh expands aliases in scripts by default.
const ZSH_SKIPPED = new Set([
  "interactive",
  "login",
  "shinstdin",
  "singlecommand",
  "privileged",
  "restricted",
  "monitor",
  "zle",
  "aliases",
  "rcs",
  "globalrcs",
  "errexit",
  "errreturn",
  "unset",
  "exec",
  "xtrace",
  "verbose",
  "pipefail",
  "sourcetrace",
  "warncreateglobal",
  "warnnestedvar",
  "localoptions",
  "localtraps",
  "localpatterns",
  "kshoptionprint",
]);

/**
 * The snapshot script for `records`. Order matters: variables first, read under default options; then
 * options before bash's functions (`declare -f` output may need extglob to parse) and after zsh's
 * (`functions` prints them in zsh's default syntax); aliases after the functions, which would
 * otherwise be parsed with the aliases expanded a second time. The probe line sits before the aliases
 * so no alias can change it, and reaching it proves everything above it parsed.
 */
export function renderSnapshot(
  type: SnapshotShellType,
  shellPath: string,
  records: CaptureRecords,
  keep: KeepVariable,
): string {
  const lines = [
    `# Conch shell snapshot of ${JSON.stringify(shellPath)}: loaded before each command; written by a capture, never edited.`,
  ];
  // A snapshot is loaded through BASH_ENV (bash) or ZDOTDIR (zsh); unset, they stay out of the
  // command's children. A value the user exports comes back with the other variables.
  if (type === "bash") lines.push("unset BASH_ENV");
  // zsh starts with aliases of its own (run-help, which-command): left in place, they would be
  // expanded in the function definitions below. The captured aliases, those included, come last.
  if (type === "zsh") lines.push("unset ZDOTDIR", "\\builtin unalias -a; \\builtin unalias -as");
  for (const { name, value } of records.env) {
    if (keepVariable(type, name, value, keep)) lines.push(`export ${name}=${shellQuote(value)}`);
  }
  switch (type) {
    case "bash":
      lines.push(...bashOptions(records.options), ...functions(records), probe("bash"));
      lines.push(records.aliases.replace(/\n$/, ""), "shopt -s expand_aliases");
      break;
    case "zsh":
      if (records.fpath.length > 0) lines.push(`fpath=(${records.fpath.map(shellQuote).join(" ")})`);
      lines.push(...functions(records), ...zshOptions(records.options), probe("zsh"));
      lines.push(records.aliases.replace(/\n$/, ""), "\\builtin :");
      break;
    case "sh":
    case "dash":
      lines.push(probe("sh"));
      break;
  }
  return `${lines.filter((line) => line !== "").join("\n")}\n`;
}

function keepVariable(type: SnapshotShellType, name: string, value: string, keep: KeepVariable): boolean {
  if (!NAME.test(name) || PER_PROCESS.has(name) || (type !== "zsh" && BASH_READONLY.has(name))) {
    return false;
  }
  return keep(name, Buffer.from(value, "latin1").toString("utf8"));
}

function bashOptions(text: string): string[] {
  return text.split("\n").filter((line) => {
    const shopt = /^shopt -[su] ([A-Za-z0-9_]+)$/.exec(line);
    if (shopt) return !BASH_SHOPT_SKIPPED.has(shopt[1] ?? "");
    const set = /^set [-+]o ([A-Za-z-]+)$/.exec(line);
    return set !== null && !BASH_SET_SKIPPED.has(set[1] ?? "");
  });
}

function zshOptions(text: string): string[] {
  return text
    .split("\n")
    .filter((line) => /^[A-Za-z0-9_]+$/.test(line))
    .map((line) => line.toLowerCase().replaceAll("_", ""))
    .filter((name) => !ZSH_SKIPPED.has(name) && !(name.startsWith("no") && ZSH_SKIPPED.has(name.slice(2))))
    .map((name) => `setopt ${name}`);
}

// Completion functions (`_git`, and zsh's hundreds of autoload stubs) serve a person pressing Tab; the
// command-not-found handlers would turn every typo into a slow package lookup with a wall of advice.
function skippedFunction(name: string): boolean {
  return /^_[^_]/.test(name) || /^command_not_found_handler?$/.test(name);
}

function functions(records: CaptureRecords): string[] {
  return records.functions
    .filter(({ name }) => !skippedFunction(name))
    .map(({ body }) => body.replace(/\n$/, ""));
}

function probe(kind: "bash" | "zsh" | "sh"): string {
  const output = JSON.stringify(PROBE_OUTPUT.trim());
  switch (kind) {
    case "bash":
      return `if [[ -n \${${PROBE_VARIABLE}+x} ]]; then builtin unset ${PROBE_VARIABLE}; builtin printf '%s\\n' ${output} >&2; fi`;
    case "zsh":
      return `if [[ -n \${${PROBE_VARIABLE}+x} ]]; then \\builtin unset ${PROBE_VARIABLE}; \\builtin print -r -- ${output} >&2; fi`;
    case "sh":
      return `if [ -n "\${${PROBE_VARIABLE}+x}" ]; then unset ${PROBE_VARIABLE}; printf '%s\\n' ${output} >&2; fi`;
  }
}
