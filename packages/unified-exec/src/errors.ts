import { ConchError, type ConchErrorCode, conchErrorGuard } from "@conch/protocol";

/**
 * `UNKNOWN_SESSION`: no live session has that id (it exited and was collected, was pruned, or never
 * existed). `STDIN_CLOSED`: input for a session without a terminal, which only takes Ctrl-C.
 * `INVALID_REQUEST`: a bad option. `SPAWN_FAILED`: the process could not be started.
 */
export const UNIFIED_EXEC_ERROR_CODES: readonly [
  "UNKNOWN_SESSION",
  "STDIN_CLOSED",
  "INVALID_REQUEST",
  "SPAWN_FAILED",
] = [
  "UNKNOWN_SESSION",
  "STDIN_CLOSED",
  "INVALID_REQUEST",
  "SPAWN_FAILED",
] as const satisfies readonly ConchErrorCode[];

export type UnifiedExecErrorCode = (typeof UNIFIED_EXEC_ERROR_CODES)[number];

/** The one error class of @conch/unified-exec: no such session, refused input, a bad option, no spawn. */
export class UnifiedExecError extends ConchError<UnifiedExecErrorCode> {
  override readonly name: "UnifiedExecError" = "UnifiedExecError";
}

/** True for a UnifiedExecError from any copy of this package. */
export const isUnifiedExecError: (value: unknown) => value is UnifiedExecError = conchErrorGuard(
  UnifiedExecError,
  "unified-exec",
  UNIFIED_EXEC_ERROR_CODES,
);

/** Codex's words for an id that names no session. */
export function unknownSession(id: number): UnifiedExecError {
  return new UnifiedExecError("UNKNOWN_SESSION", `Unknown process id ${id}`);
}

/** Codex's words for input to a session without a terminal. */
export function stdinClosed(): UnifiedExecError {
  return new UnifiedExecError(
    "STDIN_CLOSED",
    "stdin is closed for this session; rerun exec_command with tty=true to keep stdin open",
  );
}
