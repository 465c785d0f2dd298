import { ConchError, type ConchErrorCode, conchErrorGuard } from "@conch/protocol";

export const EXEC_POLICY_ERROR_CODES: readonly ["INVALID_RULES"] = [
  "INVALID_RULES",
] as const satisfies readonly ConchErrorCode[];

export type ExecPolicyErrorCode = (typeof EXEC_POLICY_ERROR_CODES)[number];

/**
 * The one error class of @conch/exec-policy. `INVALID_RULES`: a rules file could not be read, parsed or
 * validated; the message starts with `file:line: ` (or `file: ` when no line applies).
 */
export class ExecPolicyError extends ConchError<ExecPolicyErrorCode> {
  override readonly name: "ExecPolicyError" = "ExecPolicyError";
}

/** True for an ExecPolicyError from any copy of this package. */
export const isExecPolicyError: (value: unknown) => value is ExecPolicyError = conchErrorGuard(
  ExecPolicyError,
  "exec-policy",
  EXEC_POLICY_ERROR_CODES,
);
