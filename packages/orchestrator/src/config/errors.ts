import type { ConchErrorCode } from "@conch/protocol";

export const CONFIG_ERROR_CODES: readonly ["INVALID_CONFIG"] = [
  "INVALID_CONFIG",
] as const satisfies readonly ConchErrorCode[];

export type ConfigErrorCode = (typeof CONFIG_ERROR_CODES)[number];

// Shared with every Conch package through the global symbol registry, so the guard works across copies.
const BRAND = Symbol.for("conch.error");

/**
 * A config file could not be read, parsed or validated. The message starts with `file:line: ` (or
 * `file: ` when no line applies) and names the key, what was expected and what was received.
 */
export class ConfigError extends Error {
  readonly code: ConfigErrorCode;

  constructor(code: ConfigErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ConfigError";
    this.code = code;
    Object.defineProperty(this, BRAND, { value: true });
  }
}

/** True for a ConfigError from any copy of this package. */
export function isConfigError(value: unknown): value is ConfigError {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as Record<symbol, unknown>)[BRAND] === true &&
    (CONFIG_ERROR_CODES as readonly unknown[]).includes((value as { code?: unknown }).code)
  );
}
