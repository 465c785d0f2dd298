import { ConchError, type ConchErrorCode, conchErrorGuard, expectedReceived } from "@conch/protocol";
import { SHELL_TYPES } from "./shell-type.js";

// isolatedDeclarations cannot infer through `satisfies`, hence the tuple spelled twice; tsc checks both.
export const SHELL_DETECT_ERROR_CODES: readonly ["INVALID_REQUEST", "SHELL_NOT_FOUND", "UNSUPPORTED_SHELL"] =
  ["INVALID_REQUEST", "SHELL_NOT_FOUND", "UNSUPPORTED_SHELL"] as const satisfies readonly ConchErrorCode[];

export type ShellDetectErrorCode = (typeof SHELL_DETECT_ERROR_CODES)[number];

/** The one error class of @conch/shell-detect: no usable shell, or one Conch cannot drive. */
export class ShellDetectError extends ConchError<ShellDetectErrorCode> {
  override readonly name: "ShellDetectError" = "ShellDetectError";
}

/** True for a ShellDetectError from any copy of this package. */
export const isShellDetectError: (value: unknown) => value is ShellDetectError = conchErrorGuard(
  ShellDetectError,
  "shell-detect",
  SHELL_DETECT_ERROR_CODES,
);

export function unsupportedShellError(value: string): ShellDetectError {
  return new ShellDetectError(
    "UNSUPPORTED_SHELL",
    `unsupported shell ${JSON.stringify(value)} (expected one of ${SHELL_TYPES.join(", ")})`,
  );
}

/** A bad argument or option, named with what was expected and what was received. */
export function invalidRequestError(field: string, expected: string, value: unknown): ShellDetectError {
  return new ShellDetectError(
    "INVALID_REQUEST",
    `invalid request: ${expectedReceived(field, expected, value)}`,
  );
}
