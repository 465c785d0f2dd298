import { dirname } from "node:path";
import { invalidRequestError, ShellDetectError } from "../errors.js";
import { shellQuote } from "./quote.js";
import { type ShellSnapshot, unsupportedSnapshotReason } from "./shell-snapshot.js";

/** Sets one variable and execs the shell, so the snapshot needs nothing from the caller's environment. */
const ENV_PROGRAM = "/usr/bin/env";

/**
 * The argv that runs `script` in a non-login shell with `snapshot` applied: spawn `file` with the rest
 * as arguments.
 *
 * The script stays the shell's own `-c` argument, untouched: no prefix line, no eval, so quotes,
 * newlines, a trailing `\`, a `#!` line, top-level `&` and `||`, heredocs, `$0` and `$#`, `$LINENO`
 * and the line numbers in error messages are exactly what `shell -c SCRIPT` gives. The snapshot is
 * loaded by the startup hook each shell already has for non-interactive runs, before the script is
 * parsed, so its aliases apply from the script's first line:
 * - bash sources `$BASH_ENV`. The value is expanded before use, so a command substitution makes it
 *   name the file only while the file exists: a deleted snapshot leaves a plain `bash -c`, with no
 *   "No such file" line in the output. `--norc` because bash, when its stdin is a socket (as Node's
 *   pipes are) or SSH_CLIENT is set, and SHLVL is unset, takes itself for a command run by sshd and
 *   reads ~/.bashrc instead of BASH_ENV.
 * - zsh reads `$ZDOTDIR/.zshenv` (instead of `~/.zshenv`, whose effect the snapshot already holds).
 *   A missing file is skipped silently.
 * Both snapshots unset the variable again first, so the command's children never see it.
 * - POSIX sh has no such hook, and its snapshot holds variables only, so a first sh sources it (if it
 *   is there) and execs a second one with the script: the script's argv is again `sh -c SCRIPT`.
 */
export function snapshotExecArgs(snapshot: ShellSnapshot, script: string): [file: string, ...args: string[]] {
  if (typeof script !== "string") {
    throw invalidRequestError("script", "a string", script);
  }
  const { shell, path } = snapshot;
  const file = shellQuote(path);
  switch (shell.type) {
    case "bash":
      return [
        ENV_PROGRAM,
        `BASH_ENV=$([ -r ${file} ] && builtin printf %s ${file})`,
        shell.path,
        "--norc",
        "-c",
        script,
      ];
    case "zsh":
      return [ENV_PROGRAM, `ZDOTDIR=${dirname(path)}`, shell.path, "-c", script];
    case "sh":
    case "dash":
      return [
        shell.path,
        "-c",
        `if [ -r ${file} ]; then . ${file}; fi; exec "$0" -c "$1"`,
        shell.path,
        script,
      ];
    default:
      // Reachable only from untyped callers or a forged snapshot: no capture writes one for these shells.
      throw new ShellDetectError("UNSUPPORTED_SHELL", unsupportedSnapshotReason(String(shell.type)));
  }
}
