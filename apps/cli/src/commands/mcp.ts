// `conch mcp`: conchd on stdio, from the conch binary: the same server (@conch/mcp), for a client that
// has conch installed and would rather start it than conchd.
import { serveOnStdio, serveOptionsFromFlags } from "@conch/mcp";
import { parseArgs } from "../args.js";
import { UsageError } from "../errors.js";
import { MCP_HELP } from "../help.js";
import { commandDirectory } from "./execute.js";

const SPECS = {
  cwd: { type: "string" },
  profile: { type: "string" },
  approval: { type: "string" },
  sandbox: { type: "string" },
  config: { type: "string" },
  help: { type: "boolean" },
} as const;

/** `conch mcp [--cwd DIR] [--profile P] [--approval A] [--sandbox S] [--config FILE]`. */
export async function mcpCommand(args: readonly string[], version: string): Promise<number> {
  const { options, positionals } = parseArgs(args, SPECS, "mcp", false);
  if (options.help) {
    process.stdout.write(MCP_HELP);
    return 0;
  }
  if (positionals.length > 0)
    throw new UsageError("takes only options (it serves MCP on stdin and stdout)", "mcp");
  const fail = (message: string): never => {
    throw new UsageError(message, "mcp");
  };
  return serveOnStdio({
    ...serveOptionsFromFlags(options, () => commandDirectory(undefined, "mcp"), fail),
    version,
  });
}
