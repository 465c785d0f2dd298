/** `conchd --help`. */
export const HELP = `conchd: Conch's tools as an MCP server, on stdio or Streamable HTTP

Usage: conchd [options]
       conchd --http [HOST:]PORT [--allow-remote] [options]

Serves the tools of one profile (sandboxed, approved, bounded) to one MCP client over stdin and stdout,
or, with --http, to MCP clients over Streamable HTTP at http://HOST:PORT/mcp. Live sessions
(exec_command, terminal_open) last as long as conchd; SIGTERM or SIGINT (on stdio, also stdin closing)
kills every session and exits 0.

Options:
  --cwd DIR            the workspace: where commands run and what workspace-write may change
                       (default: the current directory)
  --profile NAME       codex (default), bash, argv or terminal
  --approval POLICY    untrusted, on-failure, on-request (default) or never
  --sandbox MODE       read-only, workspace-write (default) or danger-full-access
  --config FILE        read FILE as the user config instead of ~/.config/conch/config.toml
  --http [HOST:]PORT   serve Streamable HTTP at /mcp instead of stdio; HOST is 127.0.0.1 unless given
                       (localhost, [::1] or another IP address); PORT 0 picks a free port
  --allow-remote       let --http listen on an address that is not loopback (the token is still needed)
  -h, --help           show this help
  --version            print the version

Defaults come from ~/.config/conch/config.toml and the project's .conch/config.toml; options override them.

HTTP: every request needs "Authorization: Bearer TOKEN". The token is $CONCH_TOKEN when set, else the one
in $XDG_STATE_HOME/conch/conchd.token (~/.local/state/conch/conchd.token), written on first start (mode
0600) and reused; conchd refuses a token file that others can read. The startup line on stderr names it:
  conchd: listening on http://127.0.0.1:PORT/mcp (token: PATH)
A request whose Host or Origin header is not conchd's own address gets 403. Every client with the token
is the same client: they share conchd's sessions, and one that reconnects finds its own again.

Approvals: a command that needs a person's yes is asked about through the client's form (MCP
elicitation) when the client can show one, waiting approval_timeout_s (config, default 300). Otherwise
the call returns at once naming a pending approval ID, and a person answers on this machine with
conch approve ID or conch deny ID (conch pending lists them); the model retries the same call. Nothing
runs without a yes. A shell_command longer than 50 s returns its session ID at 50 s; a session nobody
polls for session_idle_ttl_s (config, default 3600) is killed.
`;
