import { expectedReceived } from "@conch/protocol";
/**
 * `argv` run by `shell` (bash) after it closed every descriptor above `keep`: what the calling process
 * inherited without close-on-exec (an `exec 200>>file` in the user's shell, an IDE's pipe, an MCP
 * client's socket) passes through Node's spawn and bwrap into the sandbox, where it would be writable.
 *
 * Run inside bwrap, so the shell is already confined when it starts. bash, not /bin/sh: dash cannot
 * name a descriptor above 9 in a redirection. `-p` makes bash ignore BASH_ENV, ENV, SHELLOPTS, BASHOPTS,
 * GLOBIGNORE and functions from the environment, any of which could run code or hide a descriptor
 * before the loop. The loop also meets the descriptor its own glob read /proc/self/fd through, closed
 * by then; closing it again is silent. The command's argv follows as positional parameters, which the
 * shell never parses, and `exec --` keeps a first word that starts with `-` a command.
 *
 * On a terminal (`tty`) the command is not exec'd but run as a foreground job (`set -m`): a process
 * group of its own that bash hands the terminal to. Without bwrap's --new-session (which would take the
 * terminal away), bwrap itself would otherwise be in the foreground group and die of the SIGINT that a
 * Ctrl-C sends, ending a REPL (python3 -i, node) that handled it. The shell stays, waits, and exits
 * with the job's status.
 */
export function withInheritedFdsClosed(
  shell: string,
  keep: number,
  argv: readonly string[],
  options: { tty?: boolean } = {},
): string[] {
  if (!Number.isInteger(keep) || keep < 2) {
    throw new Error(expectedReceived("keep (the last descriptor to keep)", "an integer of 2 or more", keep));
  }
  const close = `for f in /proc/self/fd/*; do f=\${f##*/}; ((f > ${keep})) && exec {f}>&-; done`;
  // Not the script's last command, so bash cannot turn it into an exec (which would skip the job).
  const run = options.tty === true ? 'set -m; "$@"; exit $?' : 'exec -- "$@"';
  return [shell, "-p", "-c", `${close}; ${run}`, "conch", ...argv];
}
