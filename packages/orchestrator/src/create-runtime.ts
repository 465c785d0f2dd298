import { createHash } from "node:crypto";
import { join } from "node:path";
import type { Approver } from "@conch/approval";
import { ENV_PINS, type EnvPolicy, inheritedVariableFilter } from "@conch/exec-core";
import { compileNetworkDomains, loadExecPolicy } from "@conch/exec-policy";
import { NetProxy, NetworkPolicy } from "@conch/net-proxy";
import type { ApprovalPolicy, ToolProfileName } from "@conch/protocol";
import {
  createSandboxRegistry,
  type PreparedSandbox,
  type SandboxPolicy,
  type SandboxRegistry,
} from "@conch/sandbox-core";
import { type AuditLog, createAuditLog } from "./audit/audit-log.js";
import type { ConfigSandboxMode } from "./config/config-values.js";
import { type ConchConfig, loadConfig } from "./config/load-config.js";
import { sessionSandbox } from "./orchestrator/session-sandbox.js";
import { ToolOrchestrator } from "./orchestrator/tool-orchestrator.js";
import type { Execute } from "./orchestrator/types.js";
import { agentBackend, remoteStateDir } from "./remote-backend.js";
import { ShellSnapshots } from "./runtime/shell-snapshots.js";
import { conchStateDir } from "./runtime/state-dir.js";
import { platformSandboxRegistry } from "./sandbox-registry.js";
import { HostReaper, killLeftovers } from "./sessions/host-reaper.js";
import { RemoteLedger } from "./sessions/remote-ledger.js";
import { recordingsDir, recordSessions } from "./sessions/session-recorder.js";
import { createSpillStore } from "./spill/spill-store.js";
import { createToolSet, type ToolSet } from "./tools/tool-set.js";
import { conchEnvPolicy, conchSandboxWorkspace, snapshotDir } from "./workspace-state.js";

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Which variables a profile's exports may carry into commands: what the env policy passes from a
 * parent, never a name Conch sets itself (its pins, TMPDIR, CONCH_*), which the snapshot would override.
 */
function snapshotKeep(policy: EnvPolicy): (name: string, value: string) => boolean {
  const passes = inheritedVariableFilter(policy);
  return (name, value) =>
    !Object.hasOwn(ENV_PINS, name) && name !== "TMPDIR" && !name.startsWith("CONCH") && passes(name, value);
}

export interface CreateRuntimeOptions {
  /** The working directory: where commands run by default and where the project config is looked for. */
  readonly cwd: string;
  /** Where `HOME`, `XDG_CONFIG_HOME` and `XDG_STATE_HOME` are read; the real environment by default. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * The config of `cwd`, already read with `loadConfig` (its rules files included, as read and trusted
   * then); read now by default.
   */
  readonly config?: ConchConfig;
  /** Overrides of the config, e.g. from command-line flags. */
  readonly approvalPolicy?: ApprovalPolicy;
  readonly sandbox?: ConfigSandboxMode;
  readonly profile?: ToolProfileName;
  readonly approver?: Approver | null;
  /** See `ToolOrchestratorOptions.noApproverHint`. */
  readonly noApproverHint?: string;
  readonly execute?: Execute;
  /**
   * Told when the audit log cannot be written (the first failed append of an outage): commands still
   * run, so a caller should say so where a person sees it.
   */
  readonly onAuditError?: (error: Error, path: string) => void;
  /**
   * Whether sandboxed commands without the host's network share one network namespace (a server one
   * starts answers the others) and reach the proxy there; default true. A process that runs one command
   * (`conch run`) passes false: that command gets a namespace of its own, and no holder is started;
   * except under `network = "allowlist"`, where the only way to the allowed hosts is the proxy, which
   * lives in a shared namespace (the holder's start is the price of the network the person asked for).
   */
  readonly sharedNetwork?: boolean;
}

/** The config read, and an orchestrator built from it. */
export interface ConchRuntime {
  readonly config: ConchConfig;
  readonly orchestrator: ToolOrchestrator;
  /** The profile to expose: the override, else the config's `tool_profile`. */
  readonly profile: ToolProfileName;
  /** The rules files loaded, in order. */
  readonly rulesFiles: readonly string[];
  /** This runtime's sandbox backends (bwrap on Linux; none elsewhere yet, so sandboxing fails closed). */
  readonly sandboxRegistry: SandboxRegistry;
  /**
   * The session's sandbox, prepared on first use with `prepareSandbox` (policy, cwd, registry and the
   * workspace's private /tmp, hidden and protected paths) and kept. Rejects with `SANDBOX_UNAVAILABLE`
   * when it cannot run here; a later call tries again.
   */
  sandbox(): Promise<PreparedSandbox>;
  readonly audit: AuditLog;
  /** Where PTY sessions are recorded (asciicast files), or null when recording is off (`record = false`). */
  readonly recordings: string | null;
  /**
   * The tools of `profile`, with the config's output budget and durable one-shot setting, and a limit on
   * how long one call may take when given (see ToolSetOptions.callLimitMs).
   */
  toolSet(options?: { readonly callLimitMs?: number }): Promise<ToolSet>;
  /** Waits until every audit line is written. */
  close(): Promise<void>;
}

/**
 * Reads the user and project config and the rules they name, and builds the orchestrator they describe:
 * approval policy, sandbox (writable roots, network), env policy, spill retention, audit log, and the
 * rules file `approved_always` appends to (`default.rules` in the first rules dir).
 */
export async function createRuntime(options: CreateRuntimeOptions): Promise<ConchRuntime> {
  const env = options.env ?? process.env;
  const config = options.config ?? (await loadConfig({ cwd: options.cwd, env }));
  // Parsed from the texts the config read (and, for a project, trusted): the files are not read again.
  const policy = loadExecPolicy(config.rules);
  const ruled = compileNetworkDomains(policy);
  const mode = options.sandbox ?? config.sandbox;
  const sandbox: SandboxPolicy =
    mode === "workspace-write"
      ? { mode, writableRoots: [...config.writableRoots], networkAccess: config.networkAccess }
      : { mode };
  // Without the host's network, commands reach Conch's proxy: the allowlist, or nothing (network off),
  // refused at once with the reason rather than after a DNS timeout.
  const closed =
    mode === "read-only"
      ? "the sandbox (read-only) has no network"
      : config.network === "allowlist"
        ? undefined
        : 'the network is off (network = "off" in the config)';
  const networkProxy =
    mode === "danger-full-access" || (mode === "workspace-write" && config.networkAccess)
      ? null
      : new NetProxy({
          policy: NetworkPolicy.from({
            // The `network_rule`s of the rules files count as config entries of their own.
            allow: [...config.networkAllow, ...ruled.allowed],
            deny: [...config.networkDeny, ...ruled.denied],
            allowAddresses: config.networkAllowAddresses,
            resolve: config.networkResolve,
          }),
          ...(closed === undefined ? {} : { closed }),
        });
  const auditPath = config.auditLog === null ? {} : { path: config.auditLog };
  const onAuditError = options.onAuditError;
  const audit = createAuditLog({
    env,
    ...auditPath,
    ...(onAuditError === undefined ? {} : { onError: (error: Error) => onAuditError(error, audit.path) }),
  });
  const [storeDir] = config.rulesDirs;
  const envPolicy = conchEnvPolicy(config);
  const workspace = conchSandboxWorkspace(config, env, options.cwd, mode);
  // One registry per runtime, made here: nothing process-wide that another runtime could change.
  // A successful probe of bwrap is kept in the state directory, so that a one-shot CLI need not probe
  // before every command (see LinuxBackendOptions.probeCache).
  // Config `remote`: every command runs on the agent, and none on this machine.
  const remoteBackend =
    config.remote === null
      ? null
      : agentBackend(config.remote, conchStateDir({ env }), {
          cwd: options.cwd,
          network: sandbox.mode === "workspace-write" && sandbox.networkAccess === true,
        });
  const remote = remoteBackend?.backend ?? null;
  const remoteLedger =
    config.remote === null
      ? null
      : new RemoteLedger(
          join(
            remoteStateDir(conchStateDir({ env })),
            // One ledger per agent and workspace: another workspace's conchd lists none of these.
            `${encodeURIComponent(config.remote.agentId)}-${createHash("sha256").update(options.cwd).digest("hex").slice(0, 16)}.sessions.json`,
          ),
        );
  const sandboxRegistry =
    remote !== null
      ? createSandboxRegistry([remote])
      : platformSandboxRegistry({
          probeCache: join(conchStateDir({ env }), "sandbox-probe.json"),
          backend: config.sandboxBackend,
          limits: config.limits,
          sharedNetwork: options.sharedNetwork !== false || (networkProxy !== null && closed === undefined),
        });
  // Prepared once, for the orchestrator and `runtime.sandbox` alike: the workspace is resolved once.
  const prepared = sessionSandbox(sandbox, options.cwd, sandboxRegistry, workspace.options);
  const spill = createSpillStore({
    env,
    dir: workspace.spillDir,
    retentionMs: config.spillRetentionDays * DAY_MS,
  });
  // A snapshot is a file of this machine: commands on a remote agent run login shells there instead.
  const shellSnapshots =
    config.shellSnapshot && config.remote === null
      ? new ShellSnapshots({
          dir: snapshotDir(conchStateDir({ env }), envPolicy),
          // The host's /tmp, which every sandbox replaces with its own: the raw capture is out of sight.
          workDir: "/tmp",
          env,
          keep: snapshotKeep(envPolicy),
          ttlMs: config.shellSnapshotTtlS * 1000,
        })
      : null;
  const profile = options.profile ?? config.toolProfile;
  // What a Conch process that died left running outside the sandbox is killed before anything starts;
  // this process's own sessions outside the sandbox die with it.
  const keepers = join(conchStateDir({ env }), "keepers");
  killLeftovers(keepers);
  const hostReaper = HostReaper.create(keepers, env.PATH);
  const orchestrator = new ToolOrchestrator({
    hostReaper,
    cwd: options.cwd,
    approvalPolicy: options.approvalPolicy ?? config.approvalPolicy,
    sandbox,
    sessionSandbox: prepared,
    rules: policy,
    approver: options.approver ?? null,
    ...(options.noApproverHint === undefined ? {} : { noApproverHint: options.noApproverHint }),
    spill,
    audit,
    env: envPolicy,
    shellSnapshots,
    rulesStorePath: storeDir === undefined ? null : join(storeDir, "default.rules"),
    sessionExitGraceMs: config.sessionExitGraceS * 1000,
    settleMs: config.settleMs,
    networkProxy,
    remoteOnly: remote !== null,
    remoteLedger,
    ...(options.execute === undefined ? {} : { execute: options.execute }),
  });
  const recordings = config.record ? recordingsDir(env) : null;
  if (recordings !== null) {
    recordSessions(orchestrator.sessions, { dir: recordings, maxBytes: config.recordMaxMb * 1024 * 1024 });
  }
  return {
    config,
    orchestrator,
    profile,
    rulesFiles: config.rules.map((file) => file.path),
    sandboxRegistry,
    sandbox: prepared,
    audit,
    recordings,
    toolSet: (options = {}) =>
      createToolSet({
        profile,
        orchestrator,
        maxOutputTokens: config.maxOutputTokens,
        oneShotOutputTokens: config.oneShotOutputTokens,
        durableOneShot: config.durableOneShot,
        ...(options.callLimitMs === undefined ? {} : { callLimitMs: options.callLimitMs }),
      }),
    close: async () => {
      await remoteBackend?.release();
      await audit.flush();
    },
  };
}
