import type { ConchErrorCode } from "@conch/protocol";

export const ARITY_RULES_ERROR_CODES: readonly ["PARSER_UNAVAILABLE", "INVALID_ARITY_TABLE"] = [
  "PARSER_UNAVAILABLE",
  "INVALID_ARITY_TABLE",
] as const satisfies readonly ConchErrorCode[];

export type ArityRulesErrorCode = (typeof ARITY_RULES_ERROR_CODES)[number];

// Shared with every Conch package through the global symbol registry, so the guard works across copies.
const BRAND = Symbol.for("conch.error");

/** The one error class of @conch/arity-rules: the bash parser could not load, or an arity table is bad. */
export class ArityRulesError extends Error {
  readonly code: ArityRulesErrorCode;

  constructor(code: ArityRulesErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ArityRulesError";
    this.code = code;
    Object.defineProperty(this, BRAND, { value: true });
  }
}

/** True for an ArityRulesError from any copy of this package. */
export function isArityRulesError(value: unknown): value is ArityRulesError {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as Record<symbol, unknown>)[BRAND] === true &&
    (ARITY_RULES_ERROR_CODES as readonly unknown[]).includes((value as { code?: unknown }).code)
  );
}
