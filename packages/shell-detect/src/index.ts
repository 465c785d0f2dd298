// Anything exported here is public API of @conch/shell-detect.
export { type DetectShellOptions, detectShell } from "./detect-shell.js";
export {
  isShellDetectError,
  SHELL_DETECT_ERROR_CODES,
  ShellDetectError,
  type ShellDetectErrorCode,
} from "./errors.js";
export { type DeriveExecArgsOptions, deriveExecArgs } from "./exec-args.js";
export type { ShellLookupOptions } from "./host.js";
export { resolveShell } from "./resolve-shell.js";
export { SHELL_TYPES, type Shell, type ShellType, shellTypeOf } from "./shell-type.js";
export {
  type CaptureShellSnapshotOptions,
  type CaptureShellSnapshotResult,
  captureShellSnapshot,
} from "./snapshot/capture.js";
export { isSnapshotCurrent, type SnapshotCurrencyOptions } from "./snapshot/is-snapshot-current.js";
export type { RunShellOptions, ShellRun, ShellRunner } from "./snapshot/run-shell.js";
export type { ShellSnapshot, SnapshotSource } from "./snapshot/shell-snapshot.js";
export { snapshotExecArgs } from "./snapshot/snapshot-exec-args.js";
