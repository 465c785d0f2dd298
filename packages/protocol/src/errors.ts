// Every error code a Conch package can raise. Each package's error class narrows this list to its own
// codes (checked with `satisfies`), so a code means the same thing on every wire and in every log.
export const CONCH_ERROR_CODES = [
  "INVALID_REQUEST",
  "CWD_NOT_FOUND",
  "SPAWN_FAILED",
  "SHELL_NOT_FOUND",
  "UNSUPPORTED_SHELL",
  "PARSER_UNAVAILABLE",
  "INVALID_ARITY_TABLE",
  "INVALID_RULES",
  "INVALID_SANDBOX_POLICY",
  "INVALID_SANDBOX_BACKEND",
  "SANDBOX_UNAVAILABLE",
  "WRITABLE_ROOT_CHANGED",
  "INVALID_CONFIG",
  "UNKNOWN_SESSION",
  "STDIN_CLOSED",
] as const;

export type ConchErrorCode = (typeof CONCH_ERROR_CODES)[number];

/** The brand every Conch error class carries, shared across copies of a package through `Symbol.for`. */
export const CONCH_ERROR_BRAND: unique symbol = Symbol.for("conch.error");

export interface ConchErrorLike extends Error {
  readonly code: ConchErrorCode;
}

/** True for an error thrown by any Conch package, whichever copy of it was loaded. */
export function isConchError(value: unknown): value is ConchErrorLike {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as Record<symbol, unknown>)[CONCH_ERROR_BRAND] === true
  );
}
