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
 */
export function withInheritedFdsClosed(shell: string, keep: number, argv: readonly string[]): string[] {
  if (!Number.isInteger(keep) || keep < 2) {
    throw new Error(`The last descriptor to keep must be an integer of 2 or more, received ${keep}`);
  }
  const script = `for f in /proc/self/fd/*; do f=\${f##*/}; ((f > ${keep})) && exec {f}>&-; done; exec -- "$@"`;
  return [shell, "-p", "-c", script, "conch", ...argv];
}
