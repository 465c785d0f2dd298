import {
  type ApprovalPolicy,
  type EnvInheritPolicy,
  SANDBOX_MODES,
  type SandboxMode,
  type ToolProfileName,
} from "@conch/protocol";
import type { SandboxBackendChoice } from "@conch/sandbox-linux";

// The values a config file can hold are protocol's lists, which run from strictest to loosest: a project
// config may move a setting only toward the front (Codex's order for approval policies, from most human
// oversight to least).

/**
 * A sandbox mode a config may name: those of Codex's `sandbox_mode`. `external-sandbox` says Conch runs
 * inside a sandbox it does not manage, which a program embedding the orchestrator knows, not a config.
 */
export type ConfigSandboxMode = Exclude<SandboxMode, "external-sandbox">;

/** The sandbox modes a config may name, strictest first. */
export const CONFIG_SANDBOX_MODES: readonly ConfigSandboxMode[] = SANDBOX_MODES.filter(
  (mode): mode is ConfigSandboxMode => mode !== "external-sandbox",
);

/**
 * What commands may reach (`network`), strictest first: `off`, no route out (proxy-aware tools are
 * refused at once, with the reason); `allowlist`, the hosts `network_allow` lists, through Conch's
 * proxy; `on`, the host's network (as `network_access = true`).
 */
export const NETWORK_MODES: readonly ["off", "allowlist", "on"] = ["off", "allowlist", "on"];
export type NetworkMode = (typeof NETWORK_MODES)[number];

/**
 * Where commands run (`remote`, user config only): on this machine (unset), through a conch-agent at
 * `remote_url` or spoken to over `remote_command`'s stdio (`agent`), or in a container of this host's
 * podman or docker, the agent inside (`podman`, `docker`), or in a pod claimed from a Kubernetes cluster's
 * agent-sandbox warm pool (`kubernetes`).
 */
export const REMOTE_ENGINES: readonly ["agent", "podman", "docker", "kubernetes"] = [
  "agent",
  "podman",
  "docker",
  "kubernetes",
];
export type RemoteEngine = (typeof REMOTE_ENGINES)[number];

/** What one config file sets, keys in camelCase, paths absolute. */
export interface ConfigFileValues {
  approvalPolicy?: ApprovalPolicy;
  sandbox?: ConfigSandboxMode;
  sandboxBackend?: SandboxBackendChoice;
  writableRoots?: string[];
  networkAccess?: boolean;
  network?: NetworkMode;
  networkAllow?: string[];
  networkDeny?: string[];
  networkAllowAddresses?: string[];
  networkResolve?: Record<string, string>;
  envInherit?: EnvInheritPolicy;
  envExclude?: string[];
  envAllow?: string[];
  denyRead?: string[];
  allowRead?: string[];
  toolProfile?: ToolProfileName;
  maxOutputTokens?: number;
  oneShotOutputTokens?: number;
  spillRetentionDays?: number;
  rulesDirs?: string[];
  durableOneShot?: boolean;
  shellSnapshot?: boolean;
  shellSnapshotTtlS?: number;
  homeWorkspace?: boolean;
  trustProjectRules?: boolean;
  auditLog?: string;
  approvalTimeoutS?: number;
  sessionIdleTtlS?: number;
  sessionExitGraceS?: number;
  record?: boolean;
  recordMaxMb?: number;
  settleMs?: number;
  limits?: ConfigLimits;
  remote?: RemoteEngine;
  remoteUrl?: string;
  remoteCommand?: string[];
  remoteAgentId?: string;
  remoteImage?: string;
  remoteRootfs?: string;
  remoteAgentCommand?: string[];
  remoteMounts?: string[];
  remoteBindingKey?: string;
  remotePodIsSandbox?: boolean;
  remoteKubeconfig?: string;
  remoteContext?: string;
  remoteNamespace?: string;
  remoteWarmPool?: string;
  remoteClaimTtlS?: number;
}

/** What one command may consume (`limits = { memory_mb, processes, cpu_percent, tmp_mb, file_mb }`). */
export interface ConfigLimits {
  readonly memoryMb?: number;
  readonly processes?: number;
  readonly cpuPercent?: number;
  readonly tmpMb?: number;
  readonly fileMb?: number;
}

/** The keys of `limits`, snake_case as written, with their camelCase names. */
export const LIMIT_KEYS: readonly (readonly [string, keyof ConfigLimits])[] = [
  ["memory_mb", "memoryMb"],
  ["processes", "processes"],
  ["cpu_percent", "cpuPercent"],
  ["tmp_mb", "tmpMb"],
  ["file_mb", "fileMb"],
];

/** The snake_case TOML key of each value, in the order they are documented. */
export const CONFIG_KEYS: readonly string[] = [
  "approval_policy",
  "sandbox",
  "sandbox_backend",
  "writable_roots",
  "network_access",
  "network",
  "network_allow",
  "network_deny",
  "network_allow_addresses",
  "network_resolve",
  "env_inherit",
  "env_exclude",
  "env_allow",
  "deny_read",
  "allow_read",
  "tool_profile",
  "max_output_tokens",
  "one_shot_output_tokens",
  "spill_retention_days",
  "rules_dirs",
  "durable_one_shot",
  "shell_snapshot",
  "shell_snapshot_ttl_s",
  "home_workspace",
  "trust_project_rules",
  "audit_log",
  "approval_timeout_s",
  "session_idle_ttl_s",
  "session_exit_grace_s",
  "record",
  "record_max_mb",
  "settle_ms",
  "limits",
  "remote",
  "remote_url",
  "remote_command",
  "remote_agent_id",
  "remote_image",
  "remote_rootfs",
  "remote_agent_command",
  "remote_mounts",
  "remote_binding_key",
  "remote_pod_is_sandbox",
  "remote_kubeconfig",
  "remote_context",
  "remote_namespace",
  "remote_warm_pool",
  "remote_claim_ttl_s",
];
