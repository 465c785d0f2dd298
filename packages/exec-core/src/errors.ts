import type { ConchErrorCode } from "@conch/protocol";

export const EXEC_ERROR_CODES: readonly ["INVALID_REQUEST", "CWD_NOT_FOUND", "SPAWN_FAILED"] = [
  "INVALID_REQUEST",
  "CWD_NOT_FOUND",
  "SPAWN_FAILED",
] as const satisfies readonly ConchErrorCode[];

export type ExecErrorCode = (typeof EXEC_ERROR_CODES)[number];

// Shared with every Conch package through the global symbol registry, so the guard works across copies.
const BRAND = Symbol.for("conch.error");

/** The one error class of @conch/exec-core: the request was bad, or the process could not start. */
export class ExecError extends Error {
  readonly code: ExecErrorCode;

  constructor(code: ExecErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ExecError";
    this.code = code;
    Object.defineProperty(this, BRAND, { value: true });
  }
}

/** True for an ExecError from any copy of this package. */
export function isExecError(value: unknown): value is ExecError {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as Record<symbol, unknown>)[BRAND] === true &&
    (EXEC_ERROR_CODES as readonly unknown[]).includes((value as { code?: unknown }).code)
  );
}
