import type { ConchErrorCode } from "@conch/protocol";

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

const BRAND = Symbol.for("conch.error");

export class UnifiedExecError extends Error {
  readonly code: UnifiedExecErrorCode;

  constructor(code: UnifiedExecErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "UnifiedExecError";
    this.code = code;
    Object.defineProperty(this, BRAND, { value: true });
  }
}

/** True for a UnifiedExecError from any copy of this package. */
export function isUnifiedExecError(value: unknown): value is UnifiedExecError {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as Record<symbol, unknown>)[BRAND] === true &&
    (UNIFIED_EXEC_ERROR_CODES as readonly unknown[]).includes((value as { code?: unknown }).code)
  );
}

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
