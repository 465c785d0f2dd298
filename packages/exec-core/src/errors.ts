import { ConchError, type ConchErrorCode, conchErrorGuard } from "@conch/protocol";

export const EXEC_ERROR_CODES: readonly ["INVALID_REQUEST", "CWD_NOT_FOUND", "SPAWN_FAILED"] = [
  "INVALID_REQUEST",
  "CWD_NOT_FOUND",
  "SPAWN_FAILED",
] as const satisfies readonly ConchErrorCode[];

export type ExecErrorCode = (typeof EXEC_ERROR_CODES)[number];

/** The one error class of @conch/exec-core: the request was bad, or the process could not start. */
export class ExecError extends ConchError<ExecErrorCode> {
  override readonly name: "ExecError" = "ExecError";
}

/** True for an ExecError from any copy of this package. */
export const isExecError: (value: unknown) => value is ExecError = conchErrorGuard(
  ExecError,
  "exec-core",
  EXEC_ERROR_CODES,
);
