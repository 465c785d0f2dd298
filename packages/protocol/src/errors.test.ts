import { describe, expect, it } from "vitest";
import { CONCH_ERROR_CODES, ConchError, conchErrorGuard, isConchError } from "./errors.js";

// Two packages' error classes as each package declares its own, sharing a code as exec-core's and
// unified-exec's do.
class AlphaError extends ConchError<"SPAWN_FAILED" | "CWD_NOT_FOUND"> {
  override readonly name: "AlphaError" = "AlphaError";
}
const isAlphaError = conchErrorGuard(AlphaError, "test-alpha", ["SPAWN_FAILED", "CWD_NOT_FOUND"]);

class BetaError extends ConchError<"SPAWN_FAILED" | "UNKNOWN_SESSION"> {
  override readonly name: "BetaError" = "BetaError";
}
const isBetaError = conchErrorGuard(BetaError, "test-beta", ["SPAWN_FAILED", "UNKNOWN_SESSION"]);

describe("ConchError", () => {
  it("carries name, code, message and cause, and is an Error", () => {
    const cause = new Error("ENOENT");
    const error = new AlphaError("SPAWN_FAILED", "spawn ls: ENOENT", { cause });
    expect(error).toBeInstanceOf(Error);
    expect([error.name, error.code, error.message, error.cause]).toEqual([
      "AlphaError",
      "SPAWN_FAILED",
      "spawn ls: ENOENT",
      cause,
    ]);
    expect(String(error)).toBe("AlphaError: spawn ls: ENOENT");
  });

  it("keeps its brands on the prototype, out of JSON and inspect", () => {
    const error = new AlphaError("CWD_NOT_FOUND", "x");
    expect(Object.getOwnPropertySymbols(error)).toEqual([]);
    expect(JSON.parse(JSON.stringify(error))).toEqual({ name: "AlphaError", code: "CWD_NOT_FOUND" });
    expect(Object.getOwnPropertySymbols(AlphaError.prototype)).toEqual([
      Symbol.for("conch.test-alpha.error"),
    ]);
    expect(Object.getOwnPropertySymbols(ConchError.prototype)).toEqual([Symbol.for("conch.error")]);
  });
});

describe("each class's guard", () => {
  it("accepts its own class, from this or another copy of its package", () => {
    expect(isAlphaError(new AlphaError("SPAWN_FAILED", "x"))).toBe(true);
    const copy = Object.assign(new Error("x"), {
      code: "SPAWN_FAILED",
      [Symbol.for("conch.error")]: true,
      [Symbol.for("conch.test-alpha.error")]: true,
    });
    expect(isAlphaError(copy)).toBe(true);
    expect(isConchError(copy)).toBe(true);
  });

  it("rejects the other class, even with a code both use", () => {
    expect(isAlphaError(new BetaError("SPAWN_FAILED", "x"))).toBe(false);
    expect(isBetaError(new AlphaError("SPAWN_FAILED", "x"))).toBe(false);
    expect(isBetaError(new BetaError("SPAWN_FAILED", "x"))).toBe(true);
  });

  it("rejects its brand with a code outside its list, unbranded errors and non-errors", () => {
    const stranger = Object.assign(new Error("x"), {
      code: "UNKNOWN_SESSION",
      [Symbol.for("conch.test-alpha.error")]: true,
    });
    expect(isAlphaError(stranger)).toBe(false);
    expect(isAlphaError(Object.assign(new Error("x"), { code: "SPAWN_FAILED" }))).toBe(false);
    expect(isAlphaError(null)).toBe(false);
    expect(isAlphaError("SPAWN_FAILED")).toBe(false);
  });
});

describe("isConchError", () => {
  it("accepts every Conch class and nothing else", () => {
    expect(isConchError(new AlphaError("SPAWN_FAILED", "x"))).toBe(true);
    expect(isConchError(new BetaError("UNKNOWN_SESSION", "x"))).toBe(true);
    expect(isConchError(Object.assign(new Error("x"), { code: "SPAWN_FAILED" }))).toBe(false);
    expect(
      isConchError(Object.assign(new Error("x"), { code: "ENOENT", [Symbol.for("conch.error")]: true })),
    ).toBe(false);
    expect(isConchError(null)).toBe(false);
    expect(isConchError("SPAWN_FAILED")).toBe(false);
  });

  it("knows every code a package may use", () => {
    expect(CONCH_ERROR_CODES).toHaveLength(new Set(CONCH_ERROR_CODES).size);
    expect(CONCH_ERROR_CODES.every((code) => /^[A-Z]+(?:_[A-Z]+)*$/.test(code))).toBe(true);
  });
});
