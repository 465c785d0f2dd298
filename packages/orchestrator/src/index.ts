// Anything exported here is public API of @conch/orchestrator.
export {
  type ApprovalChannel,
  answerPendingApproval,
  type ChannelServices,
  consoleLinks,
  type ListedApproval,
  listPendingApprovals,
  serveApprovalChannel,
} from "./approval-channel/approval-channel.js";
export { type AuditEntry, type AuditLog, createAuditLog, recentAuditEntries } from "./audit/audit-log.js";
export { CONFIG_SANDBOX_MODES, type ConfigSandboxMode } from "./config/config-values.js";
export { type ConchConfig, loadConfig, trustProject } from "./config/load-config.js";
export { type ConchRuntime, type CreateRuntimeOptions, createRuntime } from "./create-runtime.js";
export {
  isOrchestratorError,
  ORCHESTRATOR_ERROR_CODES,
  OrchestratorError,
  type OrchestratorErrorCode,
} from "./errors.js";
export { invalidResult } from "./model-text/model-result.js";
export type { SessionActor } from "./orchestrator/audit-events.js";
export { ToolOrchestrator } from "./orchestrator/tool-orchestrator.js";
export type {
  CommandOutcome,
  RunContext,
  SessionOutcome,
  ToolOrchestratorOptions,
} from "./orchestrator/types.js";
export { conchStateDir } from "./runtime/state-dir.js";
export {
  type PlatformSandboxOptions,
  platformSandboxRegistry,
  sandboxChoiceLines,
} from "./sandbox-registry.js";
export type { SessionMonitor, SessionView, WatchEvent } from "./sessions/session-monitor.js";
export { listRecordings, type RecordingInfo, recordingsDir } from "./sessions/session-recorder.js";
export { createSpillStore } from "./spill/spill-store.js";
export { createToolSet, type ToolSet, type ToolSetOptions } from "./tools/tool-set.js";
export type { ToolCallResult, ToolDefinition } from "./tools/types.js";
export { conchSandboxWorkspace } from "./workspace-state.js";
