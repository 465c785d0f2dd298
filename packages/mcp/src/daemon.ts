import { PendingApprovals } from "@conch/approval";
import {
  type ApprovalChannel,
  type ChannelServices,
  type ConchRuntime,
  createRuntime,
  loadConfig,
  serveApprovalChannel,
  type ToolOrchestrator,
} from "@conch/orchestrator";
import { visibleText } from "@conch/protocol";
import { McpServer } from "@modelcontextprotocol/server";
import { createCallApprovals } from "./approvals.js";
import { CALL_LIMIT_MS, registerTools } from "./mcp-tools.js";
import type { ServeOptions } from "./options.js";

/**
 * What the model reads should a call ever reach the orchestrator without its own approver (every call
 * has one: the client's form, else an out-of-band approval).
 */
const NO_APPROVER_HINT: string = "conchd had no way to ask a person about this call";

/** How often idle sessions are looked for: a quarter of the TTL, at least 250 ms and at most a minute. */
function idleSweepMs(ttlS: number): number {
  return Math.min(60_000, Math.max(250, (ttlS * 1000) / 4));
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

/**
 * One conchd, whatever its transport: the runtime (one orchestrator, its sessions, approvals and audit
 * log) and a factory of MCP server instances that all serve it.
 */
export interface Daemon {
  readonly runtime: ConchRuntime;
  /** The approvals waiting for a person out of band, and the socket `conch approve` reaches them on. */
  readonly pending: PendingApprovals;
  readonly channel: ApprovalChannel;
  /** A new MCP server instance with the profile's tools; every instance shares the one runtime. */
  newServer(): McpServer;
  /** Kills every session's process tree and flushes the audit log. */
  close(): Promise<void>;
}

/** What the process serving a daemon gives it. */
export interface DaemonHost {
  /**
   * Where the daemon's own lines go (config warnings, a failed idle sweep): the app prints them, on
   * stderr, since stdout may be the MCP stream.
   */
  readonly log: (line: string) => void;
  /** What else the approval channel answers (a fresh console login link, when a console is served). */
  readonly services?: ChannelServices;
}

/** Builds the daemon: its runtime, pending approvals and approval channel. */
export async function createDaemon(options: ServeOptions, host: DaemonHost): Promise<Daemon> {
  const { log, services = {} } = host;
  const runtime = await createRuntime({
    cwd: options.cwd,
    ...(options.configPath === undefined
      ? {}
      : { config: await loadConfig({ cwd: options.cwd, userConfigPath: options.configPath }) }),
    // Every call brings its own approver (forCall below); without one, what needs a yes is rejected.
    approver: null,
    noApproverHint: NO_APPROVER_HINT,
    ...(options.profile === undefined ? {} : { profile: options.profile }),
    ...(options.approvalPolicy === undefined ? {} : { approvalPolicy: options.approvalPolicy }),
    ...(options.sandbox === undefined ? {} : { sandbox: options.sandbox }),
  });
  // A project's config is the repository's, not the user's: its keys and values are shown escaped.
  for (const warning of runtime.config.warnings) log(`warning: ${visibleText(warning)}`);
  // Config `remote`: the sessions a conchd before this one had on the agent are listed again.
  if (runtime.config.remote !== null) {
    try {
      for (const line of await runtime.orchestrator.resumeRemoteSessions())
        log(`remote: ${visibleText(line)}`);
    } catch (error) {
      log(
        `remote: sessions not found again: ${visibleText(error instanceof Error ? error.message : String(error))}`,
      );
    }
  }
  const set = await runtime.toolSet({ callLimitMs: CALL_LIMIT_MS });
  const openWorld = networkReachable(runtime.orchestrator.sandboxPolicy);
  const version = options.version;
  const pending = new PendingApprovals({
    policy: runtime.orchestrator.approvalPolicy,
    // A person's answer is a decision when it is given, whether or not the model ever retries.
    onAnswer: (question, verdict) => {
      const decision =
        verdict.decision === "deny"
          ? "denied"
          : verdict.scope === "always"
            ? "approved_always"
            : verdict.scope === "session"
              ? "approved_for_session"
              : "approved";
      runtime.audit.record({
        type: "decision",
        tool: "approval",
        client: question.client,
        argv: question.argv,
        cwd: question.cwd,
        approvalPolicy: runtime.orchestrator.approvalPolicy,
        requirement: "answered",
        decision,
        decidedBy: "out-of-band",
        sandbox: question.sandboxMode,
        ...(question.network === null
          ? {}
          : { network: `${question.network.host}:${question.network.port}` }),
      });
    },
  });
  const approvals = createCallApprovals({
    pending,
    policy: runtime.orchestrator.approvalPolicy,
    timeoutS: runtime.config.approvalTimeoutS,
  });
  let channel: ApprovalChannel;
  try {
    channel = await serveApprovalChannel(pending, { services });
  } catch (error) {
    await runtime.close();
    throw error;
  }
  // A session nobody polls or writes to for session_idle_ttl_s is killed (and the audit log says so).
  const ttlS = runtime.config.sessionIdleTtlS;
  const sweep = setInterval(() => {
    runtime.orchestrator.closeIdleSessions(ttlS).catch((error: unknown) => {
      log(
        `error: closing idle sessions: ${visibleText(error instanceof Error ? error.message : String(error))}`,
      );
    });
  }, idleSweepMs(ttlS));
  sweep.unref();
  return {
    runtime,
    pending,
    channel,
    newServer() {
      const server = new McpServer(
        { name: "conchd", version },
        { capabilities: { tools: {} }, ...approvals.serverOptions },
      );
      registerTools(server, set, openWorld, approvals);
      return server;
    },
    async close() {
      clearInterval(sweep);
      await channel.close();
      // A remote session's process is let go, not ended: conchd started again finds it (a restart).
      await runtime.orchestrator.terminateSessions({ keepRemote: true });
      await runtime.close();
    },
  };
}
