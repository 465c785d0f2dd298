import { realpath } from "node:fs/promises";
import { totalmem } from "node:os";
import { basename, dirname, isAbsolute, join, relative, sep } from "node:path";
import {
  APPROVAL_POLICIES,
  type ApprovalPolicy,
  ENV_INHERIT_POLICIES,
  type EnvInheritPolicy,
  receivedValue,
  type ToolProfileName,
} from "@conch/protocol";
import type { SandboxBackendChoice } from "@conch/sandbox-linux";
import { OrchestratorError } from "../errors.js";
import type { ConfigFile } from "./config-file.js";
import {
  CONFIG_SANDBOX_MODES,
  type ConfigLimits,
  type ConfigSandboxMode,
  LIMIT_KEYS,
  NETWORK_MODES,
  type NetworkMode,
  type RemoteEngine,
} from "./config-values.js";
import { keyLine } from "./key-lines.js";

/** `remote` and its keys, as the user's config set them. */
export interface RemoteSettings {
  readonly engine: RemoteEngine;
  /** `remote_url`: where the agent listens (`agent`). */
  readonly url: string | null;
  /** `remote_command`: a command whose stdio speaks the protocol (`agent`, instead of a URL). */
  readonly command: readonly string[] | null;
  /** `remote_agent_id`: the agent's id (default `conch`). */
  readonly agentId: string;
  /** `remote_image`, `remote_rootfs`: what the container is made from (`podman`, `docker`). */
  readonly image: string | null;
  readonly rootfs: string | null;
  /** `remote_agent_command`: how the agent starts in the container (default `["conch-agent"]`). */
  readonly agentCommand: readonly string[];
  /** `remote_mounts`: host directories bound read-only at the same path in the container. */
  readonly mounts: readonly string[];
  /** `remote_binding_key`: conchd's Ed25519 private key (PKCS#8 PEM); null: made in the state directory. */
  readonly bindingKey: string | null;
  /**
   * `remote_pod_is_sandbox`: where the agent can run neither bwrap nor Landlock, commands run with the pod
   * or container as their only sandbox (said in every result); false: nothing runs there.
   */
  readonly podIsSandbox: boolean;
  /** `kubernetes`: `remote_kubeconfig`, `remote_context`, `remote_namespace` (null: the defaults). */
  readonly kubeconfig: string | null;
  readonly context: string | null;
  readonly namespace: string | null;
  /** `remote_warm_pool`: the SandboxWarmPool claims are made on (default `conch`). */
  readonly warmPool: string;
  /** `remote_claim_ttl_s`: how long a claim outlives conchd's last extension (default 900). */
  readonly claimTtlS: number;
}

/** Every setting, defaults filled in, paths absolute. */
export interface ConfigSettings {
  readonly approvalPolicy: ApprovalPolicy;
  readonly sandbox: ConfigSandboxMode;
  /**
   * Which Linux sandbox (`sandbox_backend`, user config only): auto (bwrap, and Landlock where bwrap
   * cannot make its namespaces), bwrap, or landlock.
   */
  readonly sandboxBackend: SandboxBackendChoice;
  /**
   * Where commands run (`remote` and its `remote_*` keys, user config only): null on this machine, else
   * the engine and how to reach or make its agent.
   */
  readonly remote: RemoteSettings | null;
  readonly writableRoots: readonly string[];
  readonly networkAccess: boolean;
  /** What commands may reach (`network`); `network_access = true` alone means `on`. */
  readonly network: NetworkMode;
  /** `network_allow`, `network_deny`: host patterns (`@conch/net-proxy`'s grammar). */
  readonly networkAllow: readonly string[];
  readonly networkDeny: readonly string[];
  /** Non-public addresses an allowed name may resolve to (user config only). */
  readonly networkAllowAddresses: readonly string[];
  /** Names resolved by the config instead of DNS (user config only). */
  readonly networkResolve: Readonly<Record<string, string>>;
  readonly envInherit: EnvInheritPolicy;
  readonly envExclude: readonly string[];
  /** Variables passed even when an exclude pattern (or the URL-with-password check) would drop them. */
  readonly envAllow: readonly string[];
  /** Read patterns the sandbox hides besides its defaults (absolute, `*`/`?` within a component). */
  readonly denyRead: readonly string[];
  /** Exceptions to the hidden reads. */
  readonly allowRead: readonly string[];
  readonly toolProfile: ToolProfileName;
  readonly maxOutputTokens: number;
  /** A one-shot command's text budget (`one_shot_output_tokens`), at most `maxOutputTokens`. */
  readonly oneShotOutputTokens: number;
  readonly spillRetentionDays: number;
  readonly rulesDirs: readonly string[];
  readonly durableOneShot: boolean;
  /** Capture the login environment once and run commands non-login with it (shell-detect snapshots). */
  readonly shellSnapshot: boolean;
  /** A snapshot older than this many seconds is captured again. */
  readonly shellSnapshotTtlS: number;
  /** Accept the home directory (or one holding it) as a writable root (see `allowHomeRoot`). */
  readonly homeWorkspace: boolean;
  /** The audit log file; null for `<state dir>/audit.jsonl`. */
  readonly auditLog: string | null;
  /** How long a daemon waits for a person's answer to an approval it asked through the client. */
  readonly approvalTimeoutS: number;
  /** A daemon kills a live session nobody has polled or written to for this long. */
  readonly sessionIdleTtlS: number;
  /** How long a call on a session that exited, was pruned or closed says so (then: unknown id). */
  readonly sessionExitGraceS: number;
  /** Record every PTY session as an asciicast file in the state dir. */
  readonly record: boolean;
  /** A recording stops at this many MiB. */
  readonly recordMaxMb: number;
  /** A session call returns once output was quiet this long (a shell at its prompt sooner); 0: never early. */
  readonly settleMs: number;
  /**
   * What one command may consume (`limits`): defaults no ordinary build reaches (memory: three quarters
   * of this machine's, 8192 processes, 16 GiB files), the user's over them, a project's only lower.
   */
  readonly limits: ConfigLimits;
}

const DEFAULT_MAX_OUTPUT_TOKENS = 10_000;
// A one-shot's text: the head and tail of a long output, about 8 KB; the rest is in its spill file.
const DEFAULT_ONE_SHOT_OUTPUT_TOKENS = 2000;
const DEFAULT_SPILL_RETENTION_DAYS = 7;
const DEFAULT_SHELL_SNAPSHOT_TTL_S = 3600;
const DEFAULT_APPROVAL_TIMEOUT_S = 300;
const DEFAULT_SESSION_IDLE_TTL_S = 3600;
const DEFAULT_SESSION_EXIT_GRACE_S = 600;
const DEFAULT_RECORD_MAX_MB = 16;
const DEFAULT_SETTLE_MS = 100;
const DEFAULT_PROCESSES = 8192;
const DEFAULT_FILE_MB = 16 * 1024;

/**
 * A project's limits over the user's: each only lower, never removed. `tmp_mb` only where the user set
 * one: it turns the workspace's /tmp into memory (a tmpfs, as root), which a project must not choose.
 */
function lowerLimits(user: ConfigLimits, project: ConfigLimits | undefined): ConfigLimits {
  const merged: Record<string, number> = { ...user } as Record<string, number>;
  for (const [, key] of LIMIT_KEYS) {
    const value = project?.[key];
    if (value === undefined) continue;
    const current = user[key];
    if (key === "tmpMb" && current === undefined) continue;
    merged[key] = current === undefined ? value : Math.min(current, value);
  }
  return merged;
}

/** The settings with nothing configured; `rulesDirs` defaults to `<config dir>/rules`. */
export function defaultSettings(configDir: string): ConfigSettings {
  return {
    approvalPolicy: "on-request",
    sandbox: "workspace-write",
    sandboxBackend: "auto",
    remote: null,
    writableRoots: [],
    networkAccess: false,
    network: "off",
    networkAllow: [],
    networkDeny: [],
    networkAllowAddresses: [],
    networkResolve: {},
    envInherit: "all",
    envExclude: [],
    envAllow: [],
    denyRead: [],
    allowRead: [],
    toolProfile: "codex",
    maxOutputTokens: DEFAULT_MAX_OUTPUT_TOKENS,
    oneShotOutputTokens: DEFAULT_ONE_SHOT_OUTPUT_TOKENS,
    spillRetentionDays: DEFAULT_SPILL_RETENTION_DAYS,
    rulesDirs: [join(configDir, "rules")],
    durableOneShot: false,
    shellSnapshot: true,
    shellSnapshotTtlS: DEFAULT_SHELL_SNAPSHOT_TTL_S,
    homeWorkspace: false,
    auditLog: null,
    approvalTimeoutS: DEFAULT_APPROVAL_TIMEOUT_S,
    sessionIdleTtlS: DEFAULT_SESSION_IDLE_TTL_S,
    sessionExitGraceS: DEFAULT_SESSION_EXIT_GRACE_S,
    record: true,
    recordMaxMb: DEFAULT_RECORD_MAX_MB,
    settleMs: DEFAULT_SETTLE_MS,
    limits: {
      memoryMb: Math.max(256, Math.floor((totalmem() * 0.75) / (1024 * 1024))),
      processes: DEFAULT_PROCESSES,
      fileMb: DEFAULT_FILE_MB,
    },
  };
}

/** The user file over the defaults: the user may set anything. */
export function applyUserConfig(defaults: ConfigSettings, user: ConfigFile | null): ConfigSettings {
  const {
    trustProjectRules: _replaced,
    remote: engine,
    remoteUrl,
    remoteCommand,
    remoteAgentId,
    remoteImage,
    remoteRootfs,
    remoteAgentCommand,
    remoteMounts,
    remoteBindingKey,
    remotePodIsSandbox,
    remoteKubeconfig,
    remoteContext,
    remoteNamespace,
    remoteWarmPool,
    remoteClaimTtlS,
    ...values
  } = user?.values ?? {};
  const settings = { ...defaults, ...values, limits: { ...defaults.limits, ...values.limits } };
  // `network_access = true` is `network = "on"` unless `network` says otherwise.
  const network = values.network ?? (values.networkAccess === true ? "on" : defaults.network);
  const where = user?.path ?? "the user config";
  const remoteKeys = {
    remoteUrl,
    remoteCommand,
    remoteAgentId,
    remoteImage,
    remoteRootfs,
    remoteAgentCommand,
    remoteMounts,
    remoteBindingKey,
    remotePodIsSandbox,
    remoteKubeconfig,
    remoteContext,
    remoteNamespace,
    remoteWarmPool,
    remoteClaimTtlS,
  };
  let remote: RemoteSettings | null = null;
  if (engine === undefined) {
    const stray = Object.entries(remoteKeys).find(([, value]) => value !== undefined);
    if (stray !== undefined) {
      throw new OrchestratorError(
        "INVALID_CONFIG",
        `${where}: ${snake(stray[0])} is set without remote: expected remote = "agent", "podman", "docker" or "kubernetes" beside it`,
      );
    }
  } else {
    if (engine === "agent" && (remoteUrl === undefined) === (remoteCommand === undefined)) {
      throw new OrchestratorError(
        "INVALID_CONFIG",
        `${where}: remote = "agent": expected exactly one of remote_url (ws://HOST:PORT or unix:/PATH) and remote_command (a command whose stdio speaks conch-exec/1)`,
      );
    }
    if (engine === "docker" && remoteRootfs !== undefined) {
      throw new OrchestratorError(
        "INVALID_CONFIG",
        `${where}: remote = "docker": remote_rootfs is podman's alone (docker runs images): expected remote_image`,
      );
    }
    // Each engine's own keys, and no other's: a key that would do nothing is said, not ignored.
    const own: Record<string, readonly string[]> = {
      agent: ["remoteUrl", "remoteCommand"],
      podman: ["remoteImage", "remoteRootfs", "remoteAgentCommand", "remoteMounts"],
      docker: ["remoteImage", "remoteAgentCommand", "remoteMounts"],
      kubernetes: [
        "remoteKubeconfig",
        "remoteContext",
        "remoteNamespace",
        "remoteWarmPool",
        "remoteClaimTtlS",
      ],
    };
    const shared = ["remoteAgentId", "remoteBindingKey", "remotePodIsSandbox"];
    const foreign = Object.entries(remoteKeys).find(
      ([key, value]) => value !== undefined && !shared.includes(key) && !own[engine]?.includes(key),
    );
    if (foreign !== undefined && !(engine === "docker" && foreign[0] === "remoteRootfs")) {
      const owner = Object.entries(own)
        .filter(([, keys]) => keys.includes(foreign[0]))
        .map(([name]) => `"${name}"`)
        .join(" or ");
      throw new OrchestratorError(
        "INVALID_CONFIG",
        `${where}: remote = "${engine}": ${snake(foreign[0])} is for remote = ${owner}, and would do nothing here`,
      );
    }
    if (
      engine !== "agent" &&
      engine !== "kubernetes" &&
      (remoteImage === undefined) === (remoteRootfs === undefined)
    ) {
      throw new OrchestratorError(
        "INVALID_CONFIG",
        `${where}: remote = "${engine}": expected exactly one of remote_image (an image this host has) and remote_rootfs (a directory holding a root file system)`,
      );
    }
    remote = {
      engine,
      url: remoteUrl ?? null,
      command: remoteCommand ?? null,
      agentId: remoteAgentId ?? "conch",
      image: remoteImage ?? null,
      rootfs: remoteRootfs ?? null,
      agentCommand: remoteAgentCommand ?? ["conch-agent"],
      mounts: remoteMounts ?? [],
      bindingKey: remoteBindingKey ?? null,
      podIsSandbox: remotePodIsSandbox ?? false,
      kubeconfig: remoteKubeconfig ?? null,
      context: remoteContext ?? null,
      namespace: remoteNamespace ?? null,
      warmPool: remoteWarmPool ?? "conch",
      claimTtlS: remoteClaimTtlS ?? 900,
    };
  }
  return { ...settings, network, networkAccess: network === "on", remote };
}

function snake(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/** `path` with every symlink of its longest existing prefix resolved, so containment cannot be faked. */
async function realpathLoose(path: string): Promise<string> {
  const rest: string[] = [];
  let current = path;
  for (;;) {
    try {
      return join(await realpath(current), ...rest.reverse());
    } catch {
      const parent = dirname(current);
      if (parent === current) return path;
      rest.push(basename(current));
      current = parent;
    }
  }
}

function isInside(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/**
 * The project file over the user settings, where it only tightens: a stricter approval policy, sandbox
 * or env inheritance, network off, fewer output tokens, a shorter spill retention, more env exclusions,
 * writable roots inside the project. Project rules dirs count only when `rulesRefusal` is null (the
 * project was trusted as it is now). Anything looser is dropped with a warning
 * `file:line: key = value ignored: why`, in file order.
 */
export async function applyProjectConfig(
  user: ConfigSettings,
  /** Who set a key's value in force: `the user config's`, `the default`, or an outer project file's. */
  originOf: (key: string) => string,
  project: ConfigFile,
  projectDir: string,
  rulesRefusal: string | null,
): Promise<{ settings: ConfigSettings; warnings: string[] }> {
  const values = project.values;
  const ignored: { line: number; text: string }[] = [];
  const ignore = (key: string, value: unknown, why: string): void => {
    const line = keyLine(project.text, key);
    ignored.push({ line, text: `${project.path}:${line}: ${key} = ${receivedValue(value)} ignored: ${why}` });
  };
  const looser = (key: string, userValue: unknown): string => {
    return `looser than ${originOf(key)} ${receivedValue(userValue)}`;
  };
  const tighter = <T extends string>(
    key: string,
    order: readonly T[],
    current: T,
    wanted: T | undefined,
  ): T => {
    if (wanted === undefined) return current;
    if (order.indexOf(wanted) <= order.indexOf(current)) return wanted;
    ignore(key, wanted, looser(key, current));
    return current;
  };
  const lower = (key: string, current: number, wanted: number | undefined): number => {
    if (wanted === undefined || wanted <= current) return wanted ?? current;
    ignore(key, wanted, looser(key, current));
    return current;
  };

  let networkAccess = user.networkAccess;
  if (values.networkAccess === false) networkAccess = false;
  else if (values.networkAccess === true && !user.networkAccess) {
    ignore("network_access", true, looser("network_access", false));
  }
  // A project narrows the network: a stricter mode, more hosts denied; never more hosts or addresses.
  let network = tighter("network", NETWORK_MODES, user.network, values.network);
  if (!networkAccess && network === "on") network = user.network === "on" ? "off" : user.network;
  if (values.networkAllow !== undefined && values.networkAllow.length > 0) {
    ignore("network_allow", values.networkAllow, "only the user config can allow hosts");
  }
  for (const [key, given] of [
    ["network_allow_addresses", values.networkAllowAddresses],
    ["network_resolve", values.networkResolve],
  ] as const) {
    if (given !== undefined) ignore(key, given, "only the user config can name addresses");
  }

  const writableRoots = [...user.writableRoots];
  const realProjectDir = await realpathLoose(projectDir);
  for (const root of values.writableRoots ?? []) {
    const realRoot = await realpathLoose(root);
    if (!isInside(realRoot, realProjectDir)) {
      ignore("writable_roots", root, `outside the project directory ${projectDir}`);
    } else if (!writableRoots.includes(realRoot)) {
      writableRoots.push(realRoot);
    }
  }

  let rulesDirs = user.rulesDirs;
  if (values.rulesDirs !== undefined) {
    if (rulesRefusal === null) rulesDirs = [...new Set([...user.rulesDirs, ...values.rulesDirs])];
    else ignore("rules_dirs", values.rulesDirs, rulesRefusal);
  }
  for (const [key, list] of [
    ["env_allow", values.envAllow],
    ["allow_read", values.allowRead],
  ] as const) {
    if (list !== undefined && list.length > 0)
      ignore(key, list, "only the user config can loosen what is hidden");
  }
  if (values.homeWorkspace === true && !user.homeWorkspace) {
    ignore("home_workspace", true, looser("home_workspace", false));
  }
  if (values.auditLog !== undefined && values.auditLog !== user.auditLog) {
    ignore("audit_log", values.auditLog, "only the user config can move the audit log");
  }
  if (values.trustProjectRules !== undefined) {
    ignore("trust_project_rules", values.trustProjectRules, "only `conch trust` can trust project rules");
  }
  // Recordings are the person's record of what ran: a repository decides neither whether nor how much.
  // The sandbox's kind is the person's: a repository cannot trade bwrap for Landlock's weaker promises.
  if (values.sandboxBackend !== undefined) {
    ignore("sandbox_backend", values.sandboxBackend, "only the user config chooses the sandbox backend");
  }
  // Where commands run, and what reaches them there, is the person's: a repository chooses none of it.
  for (const [key, value] of [
    ["remote", values.remote],
    ["remote_url", values.remoteUrl],
    ["remote_command", values.remoteCommand],
    ["remote_agent_id", values.remoteAgentId],
    ["remote_image", values.remoteImage],
    ["remote_rootfs", values.remoteRootfs],
    ["remote_agent_command", values.remoteAgentCommand],
    ["remote_mounts", values.remoteMounts],
    ["remote_binding_key", values.remoteBindingKey],
    ["remote_pod_is_sandbox", values.remotePodIsSandbox],
    ["remote_kubeconfig", values.remoteKubeconfig],
    ["remote_context", values.remoteContext],
    ["remote_namespace", values.remoteNamespace],
    ["remote_warm_pool", values.remoteWarmPool],
    ["remote_claim_ttl_s", values.remoteClaimTtlS],
  ] as const) {
    if (value !== undefined) ignore(key, value, "only the user config chooses where commands run");
  }
  if (values.record !== undefined) {
    ignore("record", values.record, "only the user config can turn session recording on or off");
  }
  if (values.recordMaxMb !== undefined) {
    ignore("record_max_mb", values.recordMaxMb, "only the user config can size session recordings");
  }
  // How long the person's agent waits for an answer is the person's choice, not a repository's.
  if (values.settleMs !== undefined) {
    ignore(
      "settle_ms",
      values.settleMs,
      "only the user config sets how long calls wait for output to settle",
    );
  }

  const settings: ConfigSettings = {
    approvalPolicy: tighter("approval_policy", APPROVAL_POLICIES, user.approvalPolicy, values.approvalPolicy),
    sandbox: tighter("sandbox", CONFIG_SANDBOX_MODES, user.sandbox, values.sandbox),
    sandboxBackend: user.sandboxBackend,
    remote: user.remote,
    writableRoots,
    networkAccess: networkAccess && network === "on",
    network,
    networkAllow: user.networkAllow,
    networkDeny: [...new Set([...user.networkDeny, ...(values.networkDeny ?? [])])],
    networkAllowAddresses: user.networkAllowAddresses,
    networkResolve: user.networkResolve,
    envInherit: tighter("env_inherit", ENV_INHERIT_POLICIES, user.envInherit, values.envInherit),
    envExclude: [...new Set([...user.envExclude, ...(values.envExclude ?? [])])],
    envAllow: user.envAllow,
    denyRead: [...new Set([...user.denyRead, ...(values.denyRead ?? [])])],
    allowRead: user.allowRead,
    toolProfile: values.toolProfile ?? user.toolProfile,
    maxOutputTokens: lower("max_output_tokens", user.maxOutputTokens, values.maxOutputTokens),
    oneShotOutputTokens: lower(
      "one_shot_output_tokens",
      user.oneShotOutputTokens,
      values.oneShotOutputTokens,
    ),
    spillRetentionDays: lower("spill_retention_days", user.spillRetentionDays, values.spillRetentionDays),
    rulesDirs,
    durableOneShot: values.durableOneShot ?? user.durableOneShot,
    // A project may turn snapshots off (its commands then run login shells) or refresh them sooner.
    shellSnapshot: values.shellSnapshot === false ? false : user.shellSnapshot,
    shellSnapshotTtlS: Math.min(user.shellSnapshotTtlS, values.shellSnapshotTtlS ?? user.shellSnapshotTtlS),
    homeWorkspace: values.homeWorkspace === false ? false : user.homeWorkspace,
    auditLog: user.auditLog,
    // Shorter only: less time for an unanswered question, less life for a forgotten session.
    approvalTimeoutS: Math.min(user.approvalTimeoutS, values.approvalTimeoutS ?? user.approvalTimeoutS),
    sessionIdleTtlS: Math.min(user.sessionIdleTtlS, values.sessionIdleTtlS ?? user.sessionIdleTtlS),
    // Shorter only, too: how long ended sessions are remembered is the person's to lengthen.
    sessionExitGraceS: Math.min(user.sessionExitGraceS, values.sessionExitGraceS ?? user.sessionExitGraceS),
    record: user.record,
    recordMaxMb: user.recordMaxMb,
    settleMs: user.settleMs,
    limits: lowerLimits(user.limits, values.limits),
  };
  // Stable sort: in file order, several writable roots in the order written.
  const warnings = ignored.sort((a, b) => a.line - b.line).map((warning) => warning.text);
  return { settings, warnings };
}
