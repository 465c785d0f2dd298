export const MAIN_HELP: string = `conch: a safe terminal for AI agents.

Usage:
  conch run [options] [--] ARGV...   run a program and stream its output
  conch exec [options] "SCRIPT"      run a script through your shell
  conch --version                    print the version

Run 'conch COMMAND --help' for a command's options.
`;

const EXIT_STATUS = `Exit status: the command's own; 124 after a timeout; 130 after Ctrl-C (129 after
SIGHUP, 143 after SIGTERM); 141 when conch's own output was closed; 127 when the program
or shell does not exist, 126 when it cannot be run; 2 for a usage error.`;

const COMMON_OPTIONS = `  --timeout-ms N   kill the command and everything it started after N ms (exit 124)
  --cwd DIR        directory to run in (default: the current one)
  --json           print the result as one JSON object instead of streaming
  -h, --help       show this help`;

export const RUN_HELP: string = `Usage: conch run [--timeout-ms N] [--cwd DIR] [--json] [--] ARGV...

Runs ARGV directly (no shell) in a process group of its own, with stdin at /dev/null,
and streams its output. When it ends, nothing it started is left running. Options stop
at the first argument that is not one, or at --.

Options:
${COMMON_OPTIONS}

${EXIT_STATUS}
`;

export const EXEC_HELP: string = `Usage: conch exec [--login] [--shell SHELL] [--timeout-ms N] [--cwd DIR] [--json] "SCRIPT"

Runs SCRIPT with your shell (your passwd entry's login shell, else $SHELL, else bash, zsh
or sh) as SHELL -c SCRIPT, in a process group of its own, and streams its output. When it
ends, nothing it started is left running.

Options:
  --login          run a login shell (SHELL -lc SCRIPT), loading your profile
  --shell SHELL    use this shell instead: a name (bash, zsh, sh, dash, fish, pwsh) or a path
${COMMON_OPTIONS}

${EXIT_STATUS}
`;
