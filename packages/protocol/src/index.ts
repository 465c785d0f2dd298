// Anything exported here is public API of @conch/protocol. This entry loads no dependency (zod stays
// behind @conch/protocol/schemas), so every package imports its lists and error base at run time.
export {
  CONCH_ERROR_CODES,
  ConchError,
  type ConchErrorCode,
  conchErrorGuard,
  isConchError,
} from "./errors.js";
export {
  ENV_INHERIT_POLICIES,
  type EnvInheritPolicy,
  type EnvPolicy,
  type ExecRequest,
  type ExecResult,
  type SpawnSpec,
} from "./exec.js";
export {
  EXEC_PROTOCOL_VERSION,
  type ExecCapabilities,
  type ExecOutputChunk,
  type InitializeParams,
  type InitializeResult,
  type ProcessEntry,
  type ProcessExitedNotification,
  type ProcessOutputNotification,
  type ProcessReadParams,
  type ProcessReadResult,
  type ProcessStartParams,
  type ProcessStartResult,
  type ProcessWriteParams,
  type ProcessWriteStatus,
  type SandboxIntent,
} from "./exec-protocol.js";
export {
  APPROVAL_POLICIES,
  type ApprovalPolicy,
  type CodexSandboxPolicy,
  NETWORK_ACCESS_MODES,
  type NetworkAccessMode,
  REVIEW_DECISIONS,
  type ReviewDecision,
  SANDBOX_MODES,
  SANDBOX_PERMISSIONS,
  type SandboxMode,
  type SandboxPermissions,
} from "./policies.js";
export { INTERPRETERS, SHELLS, type ShellFacts, shellNames } from "./programs.js";
export { expectedReceived, receivedValue } from "./received-value.js";
export {
  REJECTION_KINDS,
  type RejectionKind,
  TOOL_CALL_STATUSES,
  type ToolCallStatus,
  type ToolResult,
} from "./tool-result.js";
export type { ArgvShellParams } from "./tools/argv.js";
export type { BashParams } from "./tools/bash.js";
export type { ExecCommandParams, ShellCommandParams, ShellParams, WriteStdinParams } from "./tools/codex.js";
export { TOOL_LIMITS } from "./tools/limits.js";
export { TOOL_PROFILE_NAMES, type ToolProfileName } from "./tools/profiles.js";
export {
  TERMINAL_SIGNALS,
  type TerminalCloseParams,
  type TerminalListParams,
  type TerminalOpenParams,
  type TerminalReadParams,
  type TerminalSignal,
  type TerminalSignalParams,
  type TerminalWriteParams,
} from "./tools/terminal.js";
export { type VisibleTextOptions, visibleText } from "./visible-text.js";
