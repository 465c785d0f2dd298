export const MAIN_HELP: string = `conch: a safe terminal for AI agents.

Usage:
  conch run [options] [--] ARGV...   run a program and stream its output
  conch exec [options] "SCRIPT"      run a script through your shell
  conch explain [options] "SCRIPT"   show what a script does and what approval it needs
  conch sandbox [options] -- ARGV... run a program under the sandbox alone (--check: does it work here?)
  conch policy check --rules FILE -- ARGV...
                                     evaluate exec-policy rules (.rules or .toml) for ARGV
  conch tool list [--profile P]      the tools a model sees, with their JSON Schemas
  conch tool call NAME 'JSON-ARGS'   run one tool call as a model would, print what it gets back
  conch replay FILE|-                run JSON lines of tool calls in one process (sessions persist)
  conch trust [--revoke] [DIR]       let the project's own rules (.conch) load, as they are now
  conch pending [--json]             the approvals running conchd daemons wait for
  conch approve ID [--session|--always]
                                     grant one (the model's retry runs); conch deny ID [--note TEXT]
  conch console [--print]            open a running conchd's web console (a fresh one-time login link)
  conch record list|path ID          the recordings of PTY sessions (asciicast files)
  conch mcp [options]                Conch's tools as an MCP server on stdio (the same server as conchd)
  conch --version                    print the version

Run 'conch COMMAND --help' for a command's options.
`;

const EXIT_STATUS = `Exit status: the command's own; 124 after a timeout; 130 after Ctrl-C (129 after
SIGHUP, 143 after SIGTERM); 141 when conch's own output was closed; 127 when the program
or shell does not exist, 126 when it cannot be run; 4 when it was not run because a rule,
the approval policy or the person asked said no; 3 when the sandbox cannot run here; 2 for a
usage error or a bad config or rules file.`;

const POLICY_OPTIONS = `  --approval POLICY  untrusted, on-failure, on-request or never (default: the config's,
                     else on-request)
  --sandbox MODE     read-only, workspace-write or danger-full-access (default: the config's,
                     else workspace-write)
  --approver WHO     who answers when approval is needed: tty (ask here; the default when stdin
                     is a terminal; answers are read from stdin), approve, approve-session, deny
                     (answers no), or none (nobody: what needs approval does not run, and the
                     text says so; the default otherwise)`;

const COMMON_OPTIONS = `  --timeout-ms N   kill the command and everything it started after N ms (exit 124)
  --cwd DIR        directory to run in (default: the current one)
  --json           print one JSON object instead of streaming: {"status": "ok", "exit_code",
                   "stdout", "stderr", "duration_ms", ...}; a command that did not run gets
                   {"status": "rejected", "rejection", "reason"} or, when it could not start,
                   {"status": "failed", "error_code", "message"}
  -h, --help       show this help`;

export const RUN_HELP: string = `Usage: conch run [--approval POLICY] [--sandbox MODE] [--approver WHO] [--timeout-ms N]
                 [--cwd DIR] [--json] [--] ARGV...

Runs ARGV directly (no shell) through the whole stack: the exec-policy rules and the approval
policy decide whether it may run (asking when they say so), the sandbox confines it, and its
output streams live. It runs in a process group of its own, with stdin at /dev/null; when it
ends, nothing it started is left running. Config: ~/.config/conch/config.toml and the
project's .conch/config.toml; rules: ~/.config/conch/rules/. Options stop at the first
argument that is not one, or at --.

Options:
${POLICY_OPTIONS}
${COMMON_OPTIONS}

${EXIT_STATUS}
`;

export const EXEC_HELP: string = `Usage: conch exec [--login] [--shell SHELL] [--approval POLICY] [--sandbox MODE]
                  [--approver WHO] [--timeout-ms N] [--cwd DIR] [--json] "SCRIPT"

Runs SCRIPT with your shell (your passwd entry's login shell, else $SHELL, else bash, zsh
or sh) as SHELL -c SCRIPT, through the whole stack as conch run does (each command of the
script is checked against the rules), and streams its output. When it ends, nothing it
started is left running.

Options:
${POLICY_OPTIONS}
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
                   prefixes, external_paths, matched_rules, decisions (and more)
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

export const SANDBOX_HELP: string = `Usage: conch sandbox [--sandbox MODE] [--network] [--writable-root DIR]... [--cwd DIR]
                     [--timeout-ms N] [--json] -- ARGV...
       conch sandbox --check

Runs ARGV under the sandbox only (no approval), streams its output, and exits with its code: the
sandbox a tool call in this directory gets. On Linux that is bubblewrap plus a seccomp filter: /
read-only, the cwd writable (with .git, .conch and .agents kept read-only), a private /tmp, the usual
secrets and Conch's own files unreadable, no network.

Options:
  --sandbox MODE       workspace-write (default), read-only, or danger-full-access (no sandbox);
                       --policy is the same option's old name
  --network            allow network access (workspace-write)
  --writable-root DIR  another writable directory (workspace-write); repeatable
  --cwd DIR            directory to run in (default: the current one)
  --timeout-ms N       kill the command and everything it started after N ms (exit 124)
  --json               print one JSON object instead of streaming (as conch run --json does)
  --check              say whether the sandbox works here, and if not why and how to fix it
  -h, --help           show this help

Exit status: the command's own; 3 when the sandbox is unavailable here (the command did not run);
otherwise as for conch run.
`;

export const TOOL_HELP: string = `Usage: conch tool list [--profile P] [--approval POLICY] [--sandbox MODE] [--cwd DIR] [--json]
       conch tool call [--profile P] [--approval POLICY] [--sandbox MODE] [--approver WHO]
                       [--cwd DIR] [--json] NAME ['JSON-ARGS']

list: the tools of profile P (codex, bash, terminal or argv; default: the config's tool_profile, else
codex) with their descriptions and JSON Schemas, exactly as an MCP client of conchd (or conch mcp) gets
them under the same config, approval policy and sandbox. --json prints {"profile", "tools": [{"name",
"description", "input_schema"}]}.

call: runs one tool call (JSON-ARGS defaults to {}) through the orchestrator exactly as a model's
call would run, and prints exactly the text the model would get, then a newline. A session the call
starts (exec_command, terminal_open) ends with it: conch replay keeps sessions across calls. --json prints
one line {"tool", "text", "result"} instead, result being the structured data (status,
exit_code, wall_time_ms, timed_out, denied, truncated, spill_path, ...).

When approval is needed, tty asks: the command, its description or the model's justification,
the cwd, the sandbox and why; answer y (yes), s (yes for this session), a (always: store the
arity prefix rule in ~/.config/conch/rules/default.rules) or n (no).

Options:
  --profile P        codex, bash, terminal or argv
${POLICY_OPTIONS}
  --cwd DIR          the session's working directory (default: the current one)
  --json             print JSON (see above)
  -h, --help         show this help

Exit status (call): 0 when the command ran, whatever its own exit code (it is in the text); 4
when it was rejected; 3 when the sandbox cannot run here; 2 for invalid arguments or usage;
1 when it could not start.
`;

export const REPLAY_HELP: string = `Usage: conch replay [--profile P] [--approval POLICY] [--sandbox MODE] [--approver WHO]
                    [--cwd DIR] FILE|-

Reads JSON lines {"tool": NAME, "arguments": {...}} from FILE (or stdin for -), runs them in order
in one process through the orchestrator (one session store: an exec_command session started on one
line can be written to on the next), and prints one JSON line per call: {"tool", "text", "result"},
text being exactly what the model would get and result the structured data (status, exit_code,
session_id, running, ...). A line that is not a call gets {"tool": null, "text": "line N: ...",
"result": {"status": "invalid", ...}}. When the input ends, or on Ctrl-C, every session it started is
killed.

Options:
  --profile P        codex, bash, terminal or argv (default: the config's tool_profile, else codex)
${POLICY_OPTIONS}
                     (reading the calls from stdin, the default is deny and tty is refused)
  --cwd DIR          the working directory of the calls (default: the current one)
  -h, --help         show this help

Exit status: 0 when the input ended; 130/143/129 after SIGINT/SIGTERM/SIGHUP; 2 for a usage error
or a bad config.
`;

export const TRUST_HELP: string = `Usage: conch trust [--revoke] [DIR]

Trusts the project holding DIR (the nearest .conch/config.toml at or above it; default: the current
directory): its rules_dirs load from now on, pinned as they are now. A later change to its config or to
any rules file in them (by an agent in a session, say) is not trusted: the rules are ignored, with a
warning, until you review them and run conch trust again. Without trust, a project's config can only
tighten the user's; its rules never load.

  --revoke    forget the project: its rules no longer load
  -h, --help  show this help
`;

const APPROVALS_NOTE = `A conchd serving an MCP client that cannot show a form (Claude Desktop, Gemini CLI, Cline, a
headless run) does not run a command that needs a yes: the call returns naming a pending approval ID,
and the model is told to retry the same call once a person has answered here. Each approval lapses
after 10 minutes, is used by one retry (every retry with --session), and is never a yes by itself.
conch talks to every conchd of this user over its socket in $XDG_STATE_HOME/conch/conchd/ (0600),
which sandboxed commands cannot reach.`;

export const PENDING_HELP: string = `Usage: conch pending [--json] [--full ID]

Lists the approvals every running conchd of this user waits for: the command as the approval prompt
shows it (escaped), cwd, sandbox, why it is asked, the client that asked, and the ID. A row longer than
4,096 characters is shown as its head and end, with a "cut:" row saying how much is left out.

${APPROVALS_NOTE}

  --full ID   show approval ID alone, every row whole however long
  --json      one JSON object: {"daemons": N, "pending": [...]}
  -h, --help  show this help
`;

export const APPROVE_HELP: string = `Usage: conch approve ID [--session | --always]

Grants pending approval ID (see conch pending): the model's retry of that call runs, once.

${APPROVALS_NOTE}

  --session   allow the same command for the rest of that conchd's session (no more asking)
  --always    store the question's rule (conch pending shows it), so commands it matches run unasked
              from now on; refused when no rule may be stored for that command
  -h, --help  show this help

Exit status: 0 when granted; 5 when no running conchd holds approval ID, or it cannot be allowed
always; 2 for a usage error.
`;

export const DENY_HELP: string = `Usage: conch deny ID [--note TEXT]

Refuses pending approval ID (see conch pending): the model's retry reads "rejected by user", and the
note when one is given (e.g. what to do instead).

  --note TEXT  a note for the model, at most 2000 characters
  -h, --help   show this help

Exit status: 0 when refused; 5 when no running conchd holds approval ID; 2 for a usage error.
`;

export const MCP_HELP: string = `Usage: conch mcp [--cwd DIR] [--profile P] [--approval POLICY] [--sandbox MODE] [--config FILE]

Serves the tools of one profile (sandboxed, approved, bounded) to one MCP client over stdin and stdout:
the same server as conchd without --http. Live sessions last as long as it runs; stdin closing, SIGTERM,
SIGINT or its parent dying kills every session and exits 0. A command that needs a person's yes is asked
through the client's form when it can show one; otherwise the call names a pending approval for
conch approve ID. Add it to a client as its command, e.g. claude mcp add conch -- conch mcp

  --cwd DIR          the workspace (default: the current directory)
  --profile P        codex (default), bash, argv or terminal
  --approval POLICY  untrusted, on-failure, on-request (default) or never
  --sandbox MODE     read-only, workspace-write (default) or danger-full-access
  --config FILE      read FILE as the user config instead of ~/.config/conch/config.toml
  -h, --help         show this help
`;

export const CONSOLE_HELP: string = `Usage: conch console [--print] [--pid PID]

Opens the web console of a running conchd (one started with --http PORT) in a browser: the
sessions live (take over, interrupt, kill), the approvals waiting, the audit log, recordings.
It asks the daemon, over its channel socket in your state dir, for a fresh login link that
works once, for 15 minutes. The browser is $BROWSER, else xdg-open where a display is (open on
macOS); when none can be opened, the link is printed instead. The browser is never given the
link on its command line (any user can read that): it opens a page in your state dir
(console/, 0700; the page 0600) that leads it on to the link.

  --print     print the link, open nothing
  --pid PID   the conchd to open, when several serve a console (without it, each link is printed)
  -h, --help  show this help

Exit status: 0 when opened or printed; 5 when no running conchd serves a console; 2 for a usage
error.
`;

export const RECORD_HELP: string = `Usage: conch record list [--json]
       conch record path ID

Every PTY session is recorded as an asciicast v2 file (asciinema's format: play one with
\`asciinema play FILE\`, or in conchd's console) in your state dir, up to record_max_mb (16 MiB
by default) each; \`record = false\` in ~/.config/conch/config.toml turns it off.

  list        the recordings, newest first: session, start (UTC), size, command
  path ID     the file of session ID's newest recording
  --json      list as one JSON object
  -h, --help  show this help

Exit status: 0; 5 when there is no recording of session ID; 2 for a usage error.
`;
