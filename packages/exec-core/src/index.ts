// Anything exported here is public API of @conch/exec-core.
export type { EnvPolicy, ExecRequest, ExecResult } from "@conch/protocol";
export {
  buildEnv,
  CORE_ENV_VARS,
  DEFAULT_ENV_EXCLUDES,
  ENV_PINS,
  inheritedVariableFilter,
} from "./env/build-env.js";
export { EXEC_ERROR_CODES, ExecError, type ExecErrorCode, isExecError } from "./errors.js";
export { HeadTailBuffer } from "./output/head-tail-buffer.js";
export { RUN_MARKER_VAR } from "./process/run-marker.js";
export {
  type SpawnedProcess,
  type SpawnProcessOptions,
  type SpawnSpec,
  spawnProcess,
} from "./process/spawn-process.js";
export type { ProcessTree } from "./process/tree.js";
export {
  DEFAULT_DRAIN_TIMEOUT_MS,
  DEFAULT_KILL_GRACE_MS,
  DEFAULT_MAX_OUTPUT_BYTES,
} from "./request/normalize.js";
export {
  EXIT_CODE_CANCELED,
  EXIT_CODE_TIMEOUT,
  exitCodeOf,
  type OutputDelta,
  parseReport,
  type RunOptions,
  run,
  type StreamedExecResult,
} from "./run.js";
