// Anything exported here is public API of @conch/sandbox-core.
export {
  type PreparedSandbox,
  type PrepareSandboxOptions,
  prepareSandbox,
  type SpawnHookOptions,
} from "./backend/prepare-sandbox.js";
export { createSandboxRegistry, type SandboxRegistry } from "./backend/registry.js";
export {
  type DenialCheckOptions,
  isLikelySandboxDenied,
  SANDBOX_DENIAL_KEYWORDS,
  SESSION_DENIAL_WINDOW_MS,
} from "./denial/is-likely-sandbox-denied.js";
export { SANDBOX_ENV_VAR, SANDBOX_NETWORK_DISABLED_ENV_VAR, sandboxEnv } from "./env/sandbox-env.js";
export { isSandboxError, SANDBOX_ERROR_CODES, SandboxError, type SandboxErrorCode } from "./errors.js";
export { fromCodexSandboxPolicy } from "./policy/codex-policy.js";
export { ENVIRONMENT_DENY_READ, environmentDenyRead } from "./policy/environment-deny.js";
export { checkGitAfterCommand, type GitRepair } from "./policy/git-after-command.js";
export {
  type GitHostExposure,
  type GitHostExposureOptions,
  gitHostExposure,
} from "./policy/git-host-exposure.js";
export { PROTECTED_NAMES } from "./policy/protected-paths.js";
export { DEFAULT_DENY_READ } from "./policy/read-deny.js";
export {
  createSandboxWorkspace,
  resolveSandboxPolicy,
  type SandboxWorkspace,
  type SandboxWorkspaceOptions,
} from "./policy/resolve-policy.js";
export type {
  Availability,
  GitWatch,
  HiddenPath,
  HostExit,
  HostOutputChunk,
  HostProcess,
  HostRead,
  HostStartRequest,
  LocalSandboxBackend,
  ProcessHost,
  RemoteSandboxBackend,
  SandboxBackend,
  SandboxPolicy,
  SandboxRules,
  SpawnSpec,
  TmpRule,
  WritableRoot,
} from "./types.js";
