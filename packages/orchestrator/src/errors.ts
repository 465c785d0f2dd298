import { ConchError, type ConchErrorCode, conchErrorGuard } from "@conch/protocol";

export const ORCHESTRATOR_ERROR_CODES: readonly ["INVALID_CONFIG", "INVALID_REQUEST"] = [
  "INVALID_CONFIG",
  "INVALID_REQUEST",
] as const satisfies readonly ConchErrorCode[];

export type OrchestratorErrorCode = (typeof ORCHESTRATOR_ERROR_CODES)[number];

/**
 * `INVALID_CONFIG`: a config file could not be read, parsed or validated; the message starts with
 * `file:line: ` (or `file: ` when no line applies) and names the key, what was expected and what was
 * received. `INVALID_REQUEST`: an option given to the orchestrator (a tool profile, a setting) is wrong.
 */
export class OrchestratorError extends ConchError<OrchestratorErrorCode> {
  override readonly name: "OrchestratorError" = "OrchestratorError";
}

/** True for an OrchestratorError from any copy of this package. */
export const isOrchestratorError: (value: unknown) => value is OrchestratorError = conchErrorGuard(
  OrchestratorError,
  "orchestrator",
  ORCHESTRATOR_ERROR_CODES,
);
