import { readFileSync } from "node:fs";
import { visibleText } from "@conch/approval";
import { type ConchRuntime, createRuntime, type ToolOrchestrator } from "@conch/orchestrator";
import { McpServer } from "@modelcontextprotocol/server";
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

/** conchd's own line on stderr (stdout may be the MCP stream). */
export function say(line: string): void {
  process.stderr.write(`conchd: ${line}\n`);
}

/**
 * One conchd, whatever its transport: the runtime (one orchestrator, its sessions, approvals and audit
 * log) and a factory of MCP server instances that all serve it.
 */
export interface Daemon {
  readonly runtime: ConchRuntime;
  /** A new MCP server instance with the profile's tools; every instance shares the one runtime. */
  newServer(): McpServer;
  /** Kills every session's process tree and flushes the audit log. */
  close(): Promise<void>;
}

export async function createDaemon(options: ServeOptions): Promise<Daemon> {
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
  return {
    runtime,
    newServer() {
      const server = new McpServer({ name: "conchd", version }, { capabilities: { tools: {} } });
      registerTools(server, set, openWorld);
      return server;
    },
    async close() {
      await runtime.orchestrator.terminateSessions();
      await runtime.close();
    },
  };
}
