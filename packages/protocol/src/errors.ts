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
  "INVALID_NETWORK_POLICY",
  "SANDBOX_UNAVAILABLE",
  "WRITABLE_ROOT_CHANGED",
  "INVALID_CONFIG",
  "UNKNOWN_SESSION",
  "STDIN_CLOSED",
  "INVALID_REMOTE",
  "AGENT_UNREACHABLE",
  "AGENT_LOST",
] as const;

export type ConchErrorCode = (typeof CONCH_ERROR_CODES)[number];

// Brands are keys of the global symbol registry, so an error made by one copy of a package (two versions
// side by side, a bundled CLI beside a library) is still recognised by another copy's guard. They sit on
// the prototypes: out of JSON, out of inspect, set once per class.
const CONCH_ERROR_BRAND = Symbol.for("conch.error");

type Guard<E> = (value: unknown) => value is E;

function hasBrand(value: unknown, brand: symbol): value is { readonly code?: unknown } {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[brand] === true;
}

/**
 * The base of each Conch package's one error class: a `code` from the package's closed list, the
 * message, and a `cause`. Only subclasses are thrown; each is branded by `conchErrorGuard`.
 */
export abstract class ConchError<Code extends ConchErrorCode = ConchErrorCode> extends Error {
  static {
    Object.defineProperty(ConchError.prototype, CONCH_ERROR_BRAND, { value: true });
  }

  readonly code: Code;

  constructor(code: Code, message: string, options?: { readonly cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** True for an error thrown by any Conch package, whichever copy of it was loaded. */
export function isConchError(value: unknown): value is ConchError {
  return hasBrand(value, CONCH_ERROR_BRAND) && (CONCH_ERROR_CODES as readonly unknown[]).includes(value.code);
}

/**
 * Brands `errorClass` as the error class of `@conch/<pkg>` (`Symbol.for("conch.<pkg>.error")`) and
 * returns its guard: true for an instance from any copy of that package whose code is in `codes`, false
 * for every other class, even one sharing a code (an ExecError and a UnifiedExecError can both be
 * `SPAWN_FAILED`). Called once per package, beside the class.
 */
export function conchErrorGuard<E extends ConchError>(
  errorClass: abstract new (...args: never[]) => E,
  pkg: string,
  codes: readonly E["code"][],
): Guard<E> {
  const brand = Symbol.for(`conch.${pkg}.error`);
  Object.defineProperty(errorClass.prototype, brand, { value: true });
  return (value: unknown): value is E =>
    hasBrand(value, brand) && (codes as readonly unknown[]).includes(value.code);
}
