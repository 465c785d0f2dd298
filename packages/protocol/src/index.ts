// Anything exported here is public API of @conch/protocol.
export {
  CONCH_ERROR_BRAND,
  CONCH_ERROR_CODES,
  type ConchErrorCode,
  type ConchErrorLike,
  isConchError,
} from "./errors.js";
export {
  ENV_INHERIT_POLICIES,
  type EnvInheritPolicy,
  type EnvPolicy,
  EnvPolicySchema,
  type ExecRequest,
  ExecRequestSchema,
  type ExecResult,
  ExecResultSchema,
} from "./exec.js";
export { type JsonSchema, toJsonSchema } from "./json-schema.js";
export { type ArgvShellParams, ArgvShellSchema } from "./tools/argv.js";
export { type BashParams, BashSchema } from "./tools/bash.js";
export {
  type ExecCommandParams,
  ExecCommandSchema,
  type ShellCommandParams,
  ShellCommandSchema,
  type ShellParams,
  ShellSchema,
  type WriteStdinParams,
  WriteStdinSchema,
} from "./tools/codex.js";
export { SANDBOX_PERMISSIONS, type SandboxPermissions, TOOL_LIMITS } from "./tools/common.js";
export {
  ASK_FOR_APPROVAL_POLICIES,
  type AskForApproval,
  AskForApprovalSchema,
  NETWORK_ACCESS_MODES,
  type NetworkAccessMode,
  REVIEW_DECISIONS,
  type ReviewDecision,
  ReviewDecisionSchema,
  SANDBOX_POLICY_TYPES,
  type SandboxPolicy,
  SandboxPolicySchema,
  type SandboxPolicyType,
} from "./tools/policy.js";
export {
  TOOL_PROFILE_NAMES,
  TOOL_PROFILES,
  type ToolName,
  type ToolProfileName,
  type ToolProfiles,
} from "./tools/profiles.js";
export {
  TERMINAL_SIGNALS,
  type TerminalCloseParams,
  TerminalCloseSchema,
  type TerminalListParams,
  TerminalListSchema,
  type TerminalOpenParams,
  TerminalOpenSchema,
  type TerminalReadParams,
  TerminalReadSchema,
  type TerminalSignal,
  type TerminalSignalParams,
  TerminalSignalSchema,
  type TerminalWriteParams,
  TerminalWriteSchema,
} from "./tools/terminal.js";
