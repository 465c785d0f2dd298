import { ConchError, type ConchErrorCode, conchErrorGuard } from "@conch/protocol";

export const SANDBOX_ERROR_CODES: readonly [
  "INVALID_SANDBOX_POLICY",
  "CWD_NOT_FOUND",
  "INVALID_SANDBOX_BACKEND",
  "SANDBOX_UNAVAILABLE",
  "WRITABLE_ROOT_CHANGED",
] = [
  "INVALID_SANDBOX_POLICY",
  "CWD_NOT_FOUND",
  "INVALID_SANDBOX_BACKEND",
  "SANDBOX_UNAVAILABLE",
  "WRITABLE_ROOT_CHANGED",
] as const satisfies readonly ConchErrorCode[];

export type SandboxErrorCode = (typeof SANDBOX_ERROR_CODES)[number];

/** The one error class of @conch/sandbox-core: a bad policy or backend, or no sandbox for this platform. */
export class SandboxError extends ConchError<SandboxErrorCode> {
  override readonly name: "SandboxError" = "SandboxError";
}

/** True for a SandboxError from any copy of this package. */
export const isSandboxError: (value: unknown) => value is SandboxError = conchErrorGuard(
  SandboxError,
  "sandbox-core",
  SANDBOX_ERROR_CODES,
);
