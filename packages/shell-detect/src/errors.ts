import type { ConchErrorCode, ConchErrorLike } from "@conch/protocol";
import { SHELL_TYPES } from "./shell-type.js";

// isolatedDeclarations cannot infer through `satisfies`, hence the tuple spelled twice; tsc checks both.
export const SHELL_DETECT_ERROR_CODES: readonly ["INVALID_REQUEST", "SHELL_NOT_FOUND", "UNSUPPORTED_SHELL"] =
  ["INVALID_REQUEST", "SHELL_NOT_FOUND", "UNSUPPORTED_SHELL"] as const satisfies readonly ConchErrorCode[];

export type ShellDetectErrorCode = (typeof SHELL_DETECT_ERROR_CODES)[number];

// Protocol's CONCH_ERROR_BRAND, recreated: importing it would load zod at run time for one symbol.
const CONCH_ERROR_BRAND: unique symbol = Symbol.for("conch.error");
// This class's own brand: codes such as INVALID_REQUEST are shared with other packages' errors, so the
// common brand and a code alone cannot tell a ShellDetectError from an ExecError.
const SHELL_DETECT_ERROR_BRAND: unique symbol = Symbol.for("conch.shell-detect.error");

export class ShellDetectError extends Error implements ConchErrorLike {
  static {
    // On the prototype because isolatedDeclarations cannot emit a computed class member; it also keeps
    // the brand out of inspect and JSON output.
    Object.defineProperty(ShellDetectError.prototype, CONCH_ERROR_BRAND, { value: true });
    Object.defineProperty(ShellDetectError.prototype, SHELL_DETECT_ERROR_BRAND, { value: true });
  }

  override readonly name: "ShellDetectError" = "ShellDetectError";
  readonly code: ShellDetectErrorCode;

  constructor(code: ShellDetectErrorCode, message: string, options?: { readonly cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** True for a ShellDetectError from any copy of this package. */
export function isShellDetectError(value: unknown): value is ShellDetectError {
  if (typeof value !== "object" || value === null) {
    return false;
  }
  const candidate = value as { readonly [SHELL_DETECT_ERROR_BRAND]?: unknown; readonly code?: unknown };
  return (
    candidate[SHELL_DETECT_ERROR_BRAND] === true &&
    (SHELL_DETECT_ERROR_CODES as readonly unknown[]).includes(candidate.code)
  );
}

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
    `invalid request: ${field}: expected ${expected}, received ${describeValue(value)}`,
  );
}

function describeValue(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "function") return "a function";
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (typeof value === "object") return "an object";
  return `${typeof value} ${String(value)}`;
}
