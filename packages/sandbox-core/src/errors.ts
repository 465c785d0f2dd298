import type { ConchErrorCode } from "@conch/protocol";

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

// Shared with every Conch package through the global symbol registry, so the guard works across copies.
const BRAND = Symbol.for("conch.error");

/** The one error class of @conch/sandbox-core: a bad policy or backend, or no sandbox for this platform. */
export class SandboxError extends Error {
  readonly code: SandboxErrorCode;

  constructor(code: SandboxErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "SandboxError";
    this.code = code;
    Object.defineProperty(this, BRAND, { value: true });
  }
}

/** True for a SandboxError from any copy of this package. */
export function isSandboxError(value: unknown): value is SandboxError {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as Record<symbol, unknown>)[BRAND] === true &&
    (SANDBOX_ERROR_CODES as readonly unknown[]).includes((value as { code?: unknown }).code)
  );
}
