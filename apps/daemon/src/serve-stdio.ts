import { readFileSync } from "node:fs";
import { visibleText } from "@conch/approval";
import { createRuntime, type ToolOrchestrator } from "@conch/orchestrator";
import { McpServer } from "@modelcontextprotocol/server";
import { StdioServerTransport, serveStdio } from "@modelcontextprotocol/server/stdio";
import type { ServeOptions } from "./args.js";
import { registerTools } from "./mcp-tools.js";

/**
 * What the model reads after "…, and no one can be asked here; the command did not run (HINT)". conchd
 * has no way to ask a person yet, so the hint says what the person running conchd can change instead.
 */
const NO_APPROVER_HINT: string =
  "conchd cannot ask a person yet: in-protocol and out-of-band approvals come later; until then, whoever " +
  "starts conchd decides up front, e.g. --approval never (nobody is asked: commands run within the " +
  "--sandbox policy and what would need a yes is rejected), or another --sandbox";

const STOP_SIGNALS = ["SIGTERM", "SIGINT"] as const;

/** The package's version, read from its manifest (beside dist/ and src/ alike). */
export function daemonVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
    version: string;
  };
  return manifest.version;
}

/** Whether commands under `policy` can reach the network: MCP's `openWorldHint`. */
function networkReachable(policy: ToolOrchestrator["sandboxPolicy"]): boolean {
  switch (policy.mode) {
    case "read-only":
      return false;
    case "workspace-write":
      return policy.networkAccess === true;
    default:
      // No sandbox of Conch's: nothing of Conch's keeps the network away.
      return true;
  }
}

function say(line: string): void {
  process.stderr.write(`conchd: ${line}\n`);
}

/**
 * Serves the profile's tools to one client over stdin/stdout until stdin ends or SIGTERM/SIGINT
 * arrives; then kills every session's process tree, flushes the audit log and resolves with exit
 * code 0. Sessions belong to this one client (this process): they live as long as it does.
 */
export async function serveOnStdio(options: ServeOptions): Promise<number> {
  const runtime = await createRuntime({
    cwd: options.cwd,
    // Nobody to ask yet: what needs a yes is rejected, never taken as one.
    approver: null,
    noApproverHint: NO_APPROVER_HINT,
    ...(options.profile === undefined ? {} : { profile: options.profile }),
    ...(options.approvalPolicy === undefined ? {} : { approvalPolicy: options.approvalPolicy }),
    ...(options.sandbox === undefined ? {} : { sandbox: options.sandbox }),
  });
  // A project's config is the repository's, not the user's: its keys and values are shown escaped.
  for (const warning of runtime.config.warnings) say(`warning: ${visibleText(warning)}`);
  const set = await runtime.toolSet();
  const openWorld = networkReachable(runtime.orchestrator.sandboxPolicy);
  const version = daemonVersion();

  let stop: (why: string) => void = () => {};
  const stopped = new Promise<string>((resolve) => {
    stop = resolve;
  });
  // Installed for good: a second signal while sessions are being killed must not cut that short.
  for (const signal of STOP_SIGNALS) process.on(signal, () => stop(signal));

  const transport = new StdioServerTransport();
  // The factory may be called more than once (serveStdio probes the protocol era with a throwaway
  // instance): every instance shares the one runtime, so sessions never depend on which one answered.
  const connection = serveStdio(
    () => {
      const server = new McpServer({ name: "conchd", version }, { capabilities: { tools: {} } });
      registerTools(server, set, openWorld);
      return server;
    },
    { transport, onerror: (error) => say(`error: ${visibleText(error.message)}`) },
  );
  // serveStdio owns the transport's onclose (set above); stdin's end closes the transport, which is the
  // client going away.
  const closed = transport.onclose;
  transport.onclose = () => {
    closed?.();
    stop("stdin closed");
  };
  say("ready on stdio");

  await stopped;
  await connection.close();
  await runtime.orchestrator.terminateSessions();
  await runtime.close();
  return 0;
}
