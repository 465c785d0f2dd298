// Anything exported here is public API of @conch/orchestrator.
export {
  AUDIT_DECIDERS,
  type AuditCommand,
  type AuditDecider,
  type AuditDecisionEvent,
  type AuditEvent,
  type AuditExecutionEvent,
  type AuditLog,
  type AuditLogOptions,
  createAuditLog,
} from "./audit/audit-log.js";
export {
  CONFIG_KEYS,
  CONFIG_SANDBOX_MODES,
  type ConfigFileValues,
  type ConfigSandboxMode,
} from "./config/config-values.js";
export {
  type ConchConfig,
  conchConfigDir,
  type LoadConfigOptions,
  loadConfig,
  type TrustedProject,
  trustProject,
} from "./config/load-config.js";
export {
  type ConfigSettings,
  DEFAULT_MAX_OUTPUT_TOKENS,
  DEFAULT_SPILL_RETENTION_DAYS,
} from "./config/merge-config.js";
export {
  isOrchestratorError,
  ORCHESTRATOR_ERROR_CODES,
  OrchestratorError,
  type OrchestratorErrorCode,
} from "./errors.js";
export { CHUNK_ID_LENGTH, generateChunkId } from "./format/chunk-id.js";
export { formatShellCommandResult, type ShellCommandResultInput } from "./format/shell-command-result.js";
export {
  APPROX_BYTES_PER_TOKEN,
  approxBytesForTokens,
  approxTokenCount,
  type TruncationResult,
  truncateMiddle,
} from "./format/truncate.js";
export { formatUnifiedExecResult, type UnifiedExecResultInput } from "./format/unified-exec-result.js";
export {
  REJECTED_BY_USER,
  RETRY_WITHOUT_SANDBOX_REASON,
  ToolOrchestrator,
} from "./orchestrator/tool-orchestrator.js";
export type {
  CommandOutcome,
  CommandRequest,
  Execute,
  FailedOutcome,
  RanOutcome,
  RejectedOutcome,
  RunContext,
  SessionOutcome,
  SessionRequest,
  SessionRunContext,
  StartedSessionOutcome,
  ToolOrchestratorOptions,
} from "./orchestrator/types.js";
export type { CollectedOutput } from "./output/collected-output.js";
export type { CollectorResult } from "./output/output-collector.js";
export { loadRulesDirs } from "./rules/load-rules-dirs.js";
export { type ConchRuntime, type CreateRuntimeOptions, createRuntime } from "./runtime/create-runtime.js";
export { type ConchSandboxWorkspace, conchSandboxWorkspace } from "./runtime/workspace-state.js";
export { SPILL_NOTICE_EXAMPLE_LINES, spillNotice } from "./spill/spill-notice.js";
export {
  createSpillStore,
  DEFAULT_SPILL_MAX_FILE_BYTES,
  DEFAULT_SPILL_RETENTION_MS,
  DEFAULT_SPILL_SWEEP_INTERVAL_MS,
  type SpillFile,
  type SpillResult,
  type SpillStore,
  type SpillStoreOptions,
  type SpillWriteOptions,
} from "./spill/spill-store.js";
export { conchStateDir, type StateDirOptions } from "./spill/state-dir.js";
export { invalidResult } from "./tools/model-result.js";
export { createToolSet, type ToolSet, type ToolSetOptions } from "./tools/tool-set.js";
export type { ToolCallResult, ToolContext, ToolDefinition } from "./tools/types.js";
