import { ConchError, type ConchErrorCode, conchErrorGuard } from "@conch/protocol";

export const ARITY_RULES_ERROR_CODES: readonly ["PARSER_UNAVAILABLE", "INVALID_ARITY_TABLE"] = [
  "PARSER_UNAVAILABLE",
  "INVALID_ARITY_TABLE",
] as const satisfies readonly ConchErrorCode[];

export type ArityRulesErrorCode = (typeof ARITY_RULES_ERROR_CODES)[number];

/** The one error class of @conch/arity-rules: the bash parser could not load, or an arity table is bad. */
export class ArityRulesError extends ConchError<ArityRulesErrorCode> {
  override readonly name: "ArityRulesError" = "ArityRulesError";
}

/** True for an ArityRulesError from any copy of this package. */
export const isArityRulesError: (value: unknown) => value is ArityRulesError = conchErrorGuard(
  ArityRulesError,
  "arity-rules",
  ARITY_RULES_ERROR_CODES,
);
