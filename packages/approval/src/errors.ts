import type { ConchErrorCode } from "@conch/protocol";

export const APPROVAL_ERROR_CODES: readonly ["INVALID_RULES"] = [
  "INVALID_RULES",
] as const satisfies readonly ConchErrorCode[];

export type ApprovalErrorCode = (typeof APPROVAL_ERROR_CODES)[number];

// Shared with every Conch package through the global symbol registry, so the guard works across copies.
const BRAND = Symbol.for("conch.error");

/**
 * The one error class of @conch/approval. `INVALID_RULES`: a rules file could not be read, parsed or
 * validated; the message starts with `file:line: ` (or `file: ` when no line applies).
 */
export class ApprovalError extends Error {
  readonly code: ApprovalErrorCode;

  constructor(code: ApprovalErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ApprovalError";
    this.code = code;
    Object.defineProperty(this, BRAND, { value: true });
  }
}

/** True for an ApprovalError from any copy of this package. */
export function isApprovalError(value: unknown): value is ApprovalError {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as Record<symbol, unknown>)[BRAND] === true &&
    (APPROVAL_ERROR_CODES as readonly unknown[]).includes((value as { code?: unknown }).code)
  );
}
