import { ConchError, type ConchErrorCode, conchErrorGuard } from "@conch/protocol";

export const APPROVAL_ERROR_CODES: readonly ["INVALID_RULES"] = [
  "INVALID_RULES",
] as const satisfies readonly ConchErrorCode[];

export type ApprovalErrorCode = (typeof APPROVAL_ERROR_CODES)[number];

/**
 * The one error class of @conch/approval. `INVALID_RULES`: a rules file could not be read, parsed or
 * validated; the message starts with `file:line: ` (or `file: ` when no line applies).
 */
export class ApprovalError extends ConchError<ApprovalErrorCode> {
  override readonly name: "ApprovalError" = "ApprovalError";
}

/** True for an ApprovalError from any copy of this package. */
export const isApprovalError: (value: unknown) => value is ApprovalError = conchErrorGuard(
  ApprovalError,
  "approval",
  APPROVAL_ERROR_CODES,
);
