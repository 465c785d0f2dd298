// `conch mcp`: conchd on stdio, from the conch binary: the same server (@conch/mcp), for a client that
// has conch installed and would rather start it than conchd.
import { createDaemon, serveOnStdio, serveOptionsFromFlags } from "@conch/mcp";
import { visibleText } from "@conch/protocol";
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
  const daemon = await createDaemon(
    { ...serveOptionsFromFlags(options, () => commandDirectory(undefined, "mcp"), fail), version },
    { log: say },
  );
  const stopped = untilStopped();
  const serving = serveOnStdio(daemon, {
    input: process.stdin,
    output: process.stdout,
    onerror: (error) => say(`error: ${visibleText(error.message)}`),
  });
  say("ready on stdio");
  await Promise.race([stopped, serving.ended]);
  await serving.close();
  await daemon.close();
  return 0;
}

// The same server as conchd's: its lines say conchd, as a client's log of either shows them.
function say(line: string): void {
  process.stderr.write(`conchd: ${line}\n`);
}

// How often `conch mcp` checks that the process that started it (its client) is still there.
const PARENT_CHECK_MS = 1000;

/**
 * Resolves at SIGTERM or SIGINT (handlers stay installed: a second signal must not cut the shutdown
 * short), or once the parent is gone (a client that died without closing stdin must not leave the
 * sessions running), as conchd does (apps/daemon/src/lifecycle.ts; apps do not import each other).
 */
function untilStopped(): Promise<string> {
  return new Promise((resolve) => {
    for (const signal of ["SIGTERM", "SIGINT"] as const) process.on(signal, () => resolve(signal));
    const parent = process.ppid;
    if (parent <= 1) return;
    const timer = setInterval(() => {
      if (process.ppid !== parent) {
        clearInterval(timer);
        resolve("parent gone");
      }
    }, PARENT_CHECK_MS);
    timer.unref();
  });
}
