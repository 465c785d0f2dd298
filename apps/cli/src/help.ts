export const MAIN_HELP: string = `conch: a safe terminal for AI agents.

Usage:
  conch run [options] [--] ARGV...   run a program and stream its output
  conch exec [options] "SCRIPT"      run a script through your shell
  conch explain [options] "SCRIPT"   show what a script does and what approval it needs
  conch sandbox [options] -- ARGV... run a program under the sandbox alone (--check: does it work here?)
  conch policy check --rules FILE -- ARGV...
                                     evaluate exec-policy rules (.rules or .toml) for ARGV
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

export const EXPLAIN_HELP: string = `Usage: conch explain [--json] [--rules FILE]... [--cwd DIR] [--sandbox MODE] "SCRIPT"
       conch explain --argv [--json] [--rules FILE]... [--cwd DIR] [--sandbox MODE] -- ARGV...

Analyses SCRIPT (as bash -lc SCRIPT) or ARGV without running anything: its simple commands,
the parts that cannot be read with certainty and why, redirections, whether it is known safe
or dangerous, the arity prefix of each command, paths it touches outside the cwd, the
exec-policy rules that match, and the decision under each approval policy.

Options:
  --json           print one JSON object: commands, opaque, redirects, safe, dangerous,
                   prefixes, externalPaths, matchedRules, decisions (and more)
  --rules FILE     exec-policy rules (.rules in Codex's format, or .toml); repeatable
  --cwd DIR        the directory the script would run in (default: the current one)
  --sandbox MODE   read-only, workspace-write (default), danger-full-access, external-sandbox
  --argv           explain ARGV (after --) instead of a script
  -h, --help       show this help

Exit status: 0; 2 for a usage error or a bad rules file (file:line: what is wrong).
`;

export const POLICY_HELP: string = `Usage: conch policy check --rules FILE [--rules FILE]... -- ARGV...

Evaluates ARGV against exec-policy rules and prints what \`codex execpolicy check\` prints:
{"matchedRules": [...], "decision": ...} (no decision when no rule matches). FILE is a Codex
.rules file (prefix_rule(...), host_executable(...)) or Conch TOML ([[rule]] pattern = [...]).

Exit status: 0; 2 for a usage error or a bad rules file (file:line: what is wrong).
`;

export const SANDBOX_HELP: string = `Usage: conch sandbox [--policy MODE] [--network] [--writable-root DIR]... [--cwd DIR]
                     [--timeout-ms N] [--json] -- ARGV...
       conch sandbox --check

Runs ARGV under the sandbox only (no approval), streams its output, and exits with its code. On
Linux the sandbox is bubblewrap plus a seccomp filter: / read-only, the cwd, /tmp and $TMPDIR
writable (with .git, .conch and .agents kept read-only), no network.

Options:
  --policy MODE        workspace-write (default), read-only, or danger-full-access (no sandbox)
  --network            allow network access (workspace-write)
  --writable-root DIR  another writable directory (workspace-write); repeatable
  --cwd DIR            directory to run in (default: the current one)
  --timeout-ms N       kill the command and everything it started after N ms (exit 124)
  --json               print the result as one JSON object instead of streaming
  --check              say whether the sandbox works here, and if not why and how to fix it
  -h, --help           show this help

Exit status: the command's own; 3 when the sandbox is unavailable here (the command did not run);
otherwise as for conch run.
`;
