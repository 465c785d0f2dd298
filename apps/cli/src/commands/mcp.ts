// `conch mcp`: conchd on stdio, from the conch binary: the same server (@conch/mcp), for a client that
// has conch installed and would rather start it than conchd.
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { serveOnStdio } from "@conch/mcp";
import { CONFIG_SANDBOX_MODES } from "@conch/orchestrator";
import { APPROVAL_POLICIES, expectedReceived, TOOL_PROFILE_NAMES } from "@conch/protocol";
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

function oneOf<T extends string>(
  option: string,
  choices: readonly T[],
  value: string | undefined,
): T | undefined {
  if (value === undefined) return undefined;
  if ((choices as readonly string[]).includes(value)) return value as T;
  throw new UsageError(expectedReceived(`--${option}`, `one of ${choices.join(", ")}`, value), "mcp");
}

/** `conch mcp [--cwd DIR] [--profile P] [--approval A] [--sandbox S] [--config FILE]`. */
export async function mcpCommand(args: readonly string[], version: string): Promise<number> {
  const { options, positionals } = parseArgs(args, SPECS, "mcp", false);
  if (options.help) {
    process.stdout.write(MCP_HELP);
    return 0;
  }
  if (positionals.length > 0)
    throw new UsageError("takes only options (it serves MCP on stdin and stdout)", "mcp");
  const config = options.config === undefined ? undefined : resolve(options.config);
  if (config !== undefined && statSync(config, { throwIfNoEntry: false })?.isFile() !== true) {
    throw new UsageError(`--config: no such file: ${config}`, "mcp");
  }
  const profile = oneOf("profile", TOOL_PROFILE_NAMES, options.profile);
  const approvalPolicy = oneOf("approval", APPROVAL_POLICIES, options.approval);
  const sandbox = oneOf("sandbox", CONFIG_SANDBOX_MODES, options.sandbox);
  return serveOnStdio({
    cwd: commandDirectory(options.cwd, "mcp"),
    version,
    ...(profile === undefined ? {} : { profile }),
    ...(approvalPolicy === undefined ? {} : { approvalPolicy }),
    ...(sandbox === undefined ? {} : { sandbox }),
    ...(config === undefined ? {} : { configPath: config }),
  });
}
