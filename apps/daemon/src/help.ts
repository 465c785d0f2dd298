/** `conchd --help`. */
export const HELP = `conchd: Conch's tools as an MCP server on stdio

Usage: conchd [options]

Serves the tools of one profile (sandboxed, approved, bounded) to one MCP client over stdin and stdout.
Live sessions (exec_command, terminal_open) last as long as conchd; stdin closing, SIGTERM or SIGINT
kills every session and exits 0.

Options:
  --cwd DIR            the workspace: where commands run and what workspace-write may change
                       (default: the current directory)
  --profile NAME       codex (default), bash, argv or terminal
  --approval POLICY    untrusted, on-failure, on-request (default) or never
  --sandbox MODE       read-only, workspace-write (default) or danger-full-access
  -h, --help           show this help
  --version            print the version

Defaults come from ~/.config/conch/config.toml and the project's .conch/config.toml; options override them.

Approvals: conchd cannot ask a person yet. A command that needs a yes is rejected with a text saying so;
nothing runs without one.
`;
