// Anything exported here is public API of @conch/unified-exec.
export {
  isUnifiedExecError,
  UNIFIED_EXEC_ERROR_CODES,
  UnifiedExecError,
  type UnifiedExecErrorCode,
} from "./errors.js";
export { ScreenRenderer, type ScreenRendererOptions } from "./render/screen-renderer.js";
export {
  DEFAULT_RETAINED_BYTES,
  type RemoteEvents,
  type RemoteProcess,
  type RemoteStart,
  type SessionSpec,
} from "./session/session.js";
export { interactiveShell } from "./session/shell-prompt.js";
export {
  type CallOptions,
  clampEmptyPoll,
  clampYield,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_PROTECTED_RECENT,
  DEFAULT_SETTLE_MS,
  type SessionEvent,
  type SessionInfo,
  type SessionResponse,
  SessionStore,
  type SessionStoreOptions,
  type StartOptions,
} from "./store/session-store.js";
