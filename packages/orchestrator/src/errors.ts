import type { ConchErrorCode } from "@conch/protocol";

export const ORCHESTRATOR_ERROR_CODES: readonly ["INVALID_CONFIG", "INVALID_REQUEST"] = [
  "INVALID_CONFIG",
  "INVALID_REQUEST",
] as const satisfies readonly ConchErrorCode[];

export type OrchestratorErrorCode = (typeof ORCHESTRATOR_ERROR_CODES)[number];

// Shared with every Conch package through the global symbol registry, so the guard works across copies.
const BRAND = Symbol.for("conch.error");

/**
 * `INVALID_CONFIG`: a config file could not be read, parsed or validated; the message starts with
 * `file:line: ` (or `file: ` when no line applies) and names the key, what was expected and what was
 * received. `INVALID_REQUEST`: an option given to the orchestrator (a tool profile, a setting) is wrong.
 */
export class OrchestratorError extends Error {
  readonly code: OrchestratorErrorCode;

  constructor(code: OrchestratorErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "OrchestratorError";
    this.code = code;
    Object.defineProperty(this, BRAND, { value: true });
  }
}

/** True for a OrchestratorError from any copy of this package. */
export function isOrchestratorError(value: unknown): value is OrchestratorError {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as Record<symbol, unknown>)[BRAND] === true &&
    (ORCHESTRATOR_ERROR_CODES as readonly unknown[]).includes((value as { code?: unknown }).code)
  );
}
