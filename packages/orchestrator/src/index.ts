// Anything exported here is public API of @conch/orchestrator.
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
