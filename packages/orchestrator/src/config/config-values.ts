import type { AskForApproval, EnvInheritPolicy, ToolProfileName } from "@conch/protocol";

// The values a config file can hold. Each mode list runs from strictest to loosest, and that order is what
// a project config may move along: only toward the front.

/**
 * Codex's `AskForApproval` wire names (protocol's ASK_FOR_APPROVAL_POLICIES, approval's APPROVAL_POLICIES),
 * strictest first: `untrusted` asks before anything not known safe; `on-failure` and `on-request` run
 * everything in the sandbox and ask only to leave it; `never` asks nobody, so nothing a human would have
 * judged ever reaches one. That is Codex's own order, from most human oversight to least.
 */
export const CONFIG_APPROVAL_POLICIES: readonly ["untrusted", "on-failure", "on-request", "never"] = [
  "untrusted",
  "on-failure",
  "on-request",
  "never",
] as const satisfies readonly AskForApproval[];
export type ConfigApprovalPolicy = AskForApproval;

/** Codex's `SandboxPolicy` types a config may name, strictest first (`external-sandbox` is not one). */
export const CONFIG_SANDBOX_MODES: readonly ["read-only", "workspace-write", "danger-full-access"] = [
  "read-only",
  "workspace-write",
  "danger-full-access",
] as const;
export type ConfigSandboxMode = (typeof CONFIG_SANDBOX_MODES)[number];

/** How much of the parent environment a command inherits, strictest first. */
export const ENV_INHERIT_MODES: readonly ["none", "core", "all"] = [
  "none",
  "core",
  "all",
] as const satisfies readonly EnvInheritPolicy[];
export type EnvInheritMode = EnvInheritPolicy;

/** The tool surfaces the orchestrator can expose; a project may pick any. */
export const CONFIG_TOOL_PROFILES: readonly ["codex", "bash", "terminal", "argv"] = [
  "codex",
  "bash",
  "terminal",
  "argv",
] as const satisfies readonly ToolProfileName[];
export type ToolProfile = ToolProfileName;

/** What one config file sets, keys in camelCase, paths absolute. */
export interface ConfigFileValues {
  approvalPolicy?: ConfigApprovalPolicy;
  sandbox?: ConfigSandboxMode;
  writableRoots?: string[];
  networkAccess?: boolean;
  envInherit?: EnvInheritMode;
  envExclude?: string[];
  envAllow?: string[];
  denyRead?: string[];
  allowRead?: string[];
  toolProfile?: ToolProfile;
  maxOutputTokens?: number;
  spillRetentionDays?: number;
  rulesDirs?: string[];
  durableOneShot?: boolean;
  shellSnapshot?: boolean;
  shellSnapshotTtlS?: number;
  homeWorkspace?: boolean;
  trustProjectRules?: boolean;
  auditLog?: string;
}

/** The snake_case TOML key of each value, in the order they are documented. */
export const CONFIG_KEYS: readonly string[] = [
  "approval_policy",
  "sandbox",
  "writable_roots",
  "network_access",
  "env_inherit",
  "env_exclude",
  "env_allow",
  "deny_read",
  "allow_read",
  "tool_profile",
  "max_output_tokens",
  "spill_retention_days",
  "rules_dirs",
  "durable_one_shot",
  "shell_snapshot",
  "shell_snapshot_ttl_s",
  "home_workspace",
  "trust_project_rules",
  "audit_log",
];
