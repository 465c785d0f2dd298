import { join, resolve } from "node:path";
import { isNetProxyError, NetworkPolicy, parseHostPattern } from "@conch/net-proxy";
import {
  APPROVAL_POLICIES,
  ENV_INHERIT_POLICIES,
  expectedReceived,
  TOOL_PROFILE_NAMES,
} from "@conch/protocol";
import { SANDBOX_BACKEND_CHOICES } from "@conch/sandbox-linux";
import { parse, TomlError } from "smol-toml";
import { OrchestratorError } from "../errors.js";
import {
  CONFIG_KEYS,
  CONFIG_SANDBOX_MODES,
  type ConfigFileValues,
  LIMIT_KEYS,
  NETWORK_MODES,
  REMOTE_ENGINES,
} from "./config-values.js";
import { keyLine } from "./key-lines.js";

/** One config file, read and validated. */
export interface ConfigFile {
  readonly path: string;
  readonly text: string;
  /** The top-level keys the file sets, snake_case as written. */
  readonly keys: ReadonlySet<string>;
  readonly values: ConfigFileValues;
}

/** How a file's relative paths resolve: against `base`; `~` and `~/...` against `home`. */
export interface ConfigPathBase {
  readonly base: string;
  readonly home: string;
}

function resolveConfigPath(path: string, paths: ConfigPathBase): string {
  if (path === "~") return paths.home;
  if (path.startsWith("~/")) return join(paths.home, path.slice(2));
  return resolve(paths.base, path);
}

/**
 * Parses and validates the text of a config file: a syntax error, an unknown key or a value of the wrong
 * type throws `INVALID_CONFIG` with `file:line: key: expected ..., received ...`.
 */
export function parseConfigFile(path: string, text: string, paths: ConfigPathBase): ConfigFile {
  let document: Record<string, unknown>;
  try {
    document = parse(text);
  } catch (error) {
    if (!(error instanceof TomlError)) throw error;
    const reason = error.message.split("\n")[0]?.replace(/^Invalid TOML document: /, "") ?? "";
    throw new OrchestratorError("INVALID_CONFIG", `${path}:${error.line}: invalid TOML: ${reason}`, {
      cause: error,
    });
  }

  const fail = (key: string, expected: string, received: unknown, label: string = key): never => {
    throw new OrchestratorError(
      "INVALID_CONFIG",
      `${path}:${keyLine(text, key)}: ${expectedReceived(label, expected, received)}`,
    );
  };
  const oneOf = <T extends string>(key: string, choices: readonly T[], value: unknown): T => {
    if (typeof value === "string" && (choices as readonly string[]).includes(value)) return value as T;
    return fail(key, `one of ${choices.map((choice) => JSON.stringify(choice)).join(", ")}`, value);
  };
  const boolean = (key: string, value: unknown): boolean =>
    typeof value === "boolean" ? value : fail(key, "a boolean", value);
  const positiveInteger = (key: string, value: unknown): number =>
    typeof value === "number" && Number.isSafeInteger(value) && value > 0
      ? value
      : fail(key, "a positive integer", value);
  const nonNegativeInteger = (key: string, value: unknown): number =>
    typeof value === "number" && Number.isSafeInteger(value) && value >= 0
      ? value
      : fail(key, "an integer >= 0", value);
  const strings = (key: string, value: unknown, what: string): string[] => {
    if (!Array.isArray(value)) return fail(key, `an array of ${what}s`, value);
    for (const [index, item] of value.entries()) {
      if (typeof item !== "string" || item === "") fail(key, `a non-empty ${what}`, item, `${key}[${index}]`);
    }
    return [...new Set(value as string[])];
  };
  // A network entry checked by the proxy's own reading, its message naming the entry.
  const checked = (key: string, check: () => unknown): void => {
    try {
      check();
    } catch (error) {
      if (!isNetProxyError(error)) throw error;
      throw new OrchestratorError("INVALID_CONFIG", `${path}:${keyLine(text, key)}: ${error.message}`, {
        cause: error,
      });
    }
  };
  const pathList = (key: string, value: unknown): string[] => [
    ...new Set(strings(key, value, "path").map((item) => resolveConfigPath(item, paths))),
  ];

  const values: ConfigFileValues = {};
  for (const [key, value] of Object.entries(document)) {
    switch (key) {
      case "approval_policy":
        values.approvalPolicy = oneOf(key, APPROVAL_POLICIES, value);
        break;
      case "sandbox":
        values.sandbox = oneOf(key, CONFIG_SANDBOX_MODES, value);
        break;
      case "writable_roots":
        values.writableRoots = pathList(key, value);
        break;
      case "network_access":
        values.networkAccess = boolean(key, value);
        break;
      case "network":
        values.network = oneOf(key, NETWORK_MODES, value);
        break;
      case "network_allow":
      case "network_deny": {
        const patterns = strings(key, value, "host pattern");
        for (const [index, pattern] of patterns.entries()) {
          checked(key, () => parseHostPattern(pattern, `${key}[${index}]`));
        }
        if (key === "network_allow") values.networkAllow = patterns;
        else values.networkDeny = patterns;
        break;
      }
      case "network_allow_addresses": {
        const addresses = strings(key, value, "IP address");
        checked(key, () => NetworkPolicy.from({ allowAddresses: addresses }));
        values.networkAllowAddresses = addresses;
        break;
      }
      case "network_resolve": {
        if (typeof value !== "object" || value === null || Array.isArray(value)) {
          fail(key, 'a table of host = "address"', value);
        }
        const table = value as Record<string, unknown>;
        checked(key, () => NetworkPolicy.from({ resolve: table }));
        values.networkResolve = table as Record<string, string>;
        break;
      }
      case "env_inherit":
        values.envInherit = oneOf(key, ENV_INHERIT_POLICIES, value);
        break;
      case "env_exclude":
        values.envExclude = strings(key, value, "glob");
        break;
      case "env_allow":
        values.envAllow = strings(key, value, "variable name");
        break;
      case "deny_read":
        values.denyRead = pathList(key, value);
        break;
      case "allow_read":
        values.allowRead = pathList(key, value);
        break;
      case "limits": {
        if (typeof value !== "object" || value === null || Array.isArray(value)) {
          fail(key, "a table of memory_mb, processes, cpu_percent, tmp_mb and file_mb", value);
        }
        const limits: Record<string, number> = {};
        for (const [name, limit] of Object.entries(value as Record<string, unknown>)) {
          const known = LIMIT_KEYS.find(([snake]) => snake === name);
          if (known === undefined) {
            fail(
              key,
              `one of the keys ${LIMIT_KEYS.map(([snake]) => snake).join(", ")}`,
              name,
              `limits.${name}`,
            );
          }
          if (typeof limit !== "number" || !Number.isSafeInteger(limit) || limit <= 0) {
            fail(key, "a positive integer", limit, `limits.${name}`);
          }
          limits[(known as (typeof LIMIT_KEYS)[number])[1]] = limit as number;
        }
        values.limits = limits;
        break;
      }
      case "sandbox_backend":
        values.sandboxBackend = oneOf(key, SANDBOX_BACKEND_CHOICES, value);
        break;
      case "remote":
        values.remote = oneOf(key, REMOTE_ENGINES, value);
        break;
      case "remote_url":
        if (typeof value !== "string" || !/^(ws:\/\/[^/]+:\d+\/?|unix:\/.+)$/.test(value)) {
          fail(key, "ws://HOST:PORT or unix:/ABSOLUTE/PATH", value);
        }
        values.remoteUrl = value as string;
        break;
      case "remote_command":
      case "remote_agent_command":
        // An argv, as written: repeated arguments stay.
        strings(key, value, "argument");
        if ((value as string[]).length === 0) fail(key, "a command (a non-empty array of strings)", value);
        if (key === "remote_command") values.remoteCommand = [...(value as string[])];
        else values.remoteAgentCommand = [...(value as string[])];
        break;
      case "remote_mounts":
        values.remoteMounts = pathList(key, value);
        break;
      case "remote_agent_id":
      case "remote_image":
        if (typeof value !== "string" || value === "") fail(key, "a non-empty string", value);
        if (key === "remote_agent_id") values.remoteAgentId = value as string;
        else values.remoteImage = value as string;
        break;
      case "remote_rootfs":
      case "remote_binding_key":
      case "remote_kubeconfig":
        if (typeof value !== "string" || value === "") fail(key, "a non-empty path", value);
        if (key === "remote_rootfs") values.remoteRootfs = resolveConfigPath(value as string, paths);
        else if (key === "remote_binding_key")
          values.remoteBindingKey = resolveConfigPath(value as string, paths);
        else values.remoteKubeconfig = resolveConfigPath(value as string, paths);
        break;
      case "remote_pod_is_sandbox":
        values.remotePodIsSandbox = boolean(key, value);
        break;
      case "remote_context":
        if (typeof value !== "string" || value === "") fail(key, "a kubeconfig context's name", value);
        values.remoteContext = value as string;
        break;
      case "remote_namespace":
      case "remote_warm_pool":
        // Kubernetes names (RFC 1123): lower case letters, digits, '-' (and '.' in a pool's name).
        if (
          typeof value !== "string" ||
          !(
            key === "remote_namespace"
              ? /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/
              : /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/
          ).test(value)
        ) {
          fail(
            key,
            key === "remote_namespace"
              ? "a namespace's name (lower case letters, digits, '-'; at most 63)"
              : "a SandboxWarmPool's name (lower case letters, digits, '-', '.')",
            value,
          );
        }
        if (key === "remote_namespace") values.remoteNamespace = value as string;
        else values.remoteWarmPool = value as string;
        break;
      case "remote_claim_ttl_s":
        values.remoteClaimTtlS = positiveInteger(key, value);
        break;
      case "tool_profile":
        values.toolProfile = oneOf(key, TOOL_PROFILE_NAMES, value);
        break;
      case "max_output_tokens":
        values.maxOutputTokens = positiveInteger(key, value);
        break;
      case "one_shot_output_tokens":
        values.oneShotOutputTokens = positiveInteger(key, value);
        break;
      case "spill_retention_days":
        values.spillRetentionDays = positiveInteger(key, value);
        break;
      case "rules_dirs":
        values.rulesDirs = pathList(key, value);
        break;
      case "durable_one_shot":
        values.durableOneShot = boolean(key, value);
        break;
      case "shell_snapshot":
        values.shellSnapshot = boolean(key, value);
        break;
      case "shell_snapshot_ttl_s":
        values.shellSnapshotTtlS = positiveInteger(key, value);
        break;
      case "approval_timeout_s":
        values.approvalTimeoutS = positiveInteger(key, value);
        break;
      case "session_idle_ttl_s":
        values.sessionIdleTtlS = positiveInteger(key, value);
        break;
      case "session_exit_grace_s":
        values.sessionExitGraceS = positiveInteger(key, value);
        break;
      case "record":
        values.record = boolean(key, value);
        break;
      case "record_max_mb":
        values.recordMaxMb = positiveInteger(key, value);
        break;
      case "settle_ms":
        values.settleMs = nonNegativeInteger(key, value);
        break;
      case "home_workspace":
        values.homeWorkspace = boolean(key, value);
        break;
      case "trust_project_rules":
        values.trustProjectRules = boolean(key, value);
        break;
      case "audit_log":
        if (typeof value !== "string" || value === "") fail(key, "a non-empty path", value);
        values.auditLog = resolveConfigPath(value as string, paths);
        break;
      default:
        throw new OrchestratorError(
          "INVALID_CONFIG",
          `${path}:${keyLine(text, key)}: ${key}: expected one of the keys ${CONFIG_KEYS.join(", ")}, received an unknown key`,
        );
    }
  }
  return { path, text, keys: new Set(Object.keys(document)), values };
}
