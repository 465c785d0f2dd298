import { describe, expect, it } from "vitest";
import { CONFIG_ERROR_CODES, ConfigError, isConfigError } from "./errors.js";

describe("ConfigError", () => {
  it("carries its code, name, cause and the shared conch brand", () => {
    const cause = new Error("x");
    const error = new ConfigError("INVALID_CONFIG", "f:1: k: bad", { cause });
    expect([error.name, error.code, error.message, error.cause]).toEqual([
      "ConfigError",
      "INVALID_CONFIG",
      "f:1: k: bad",
      cause,
    ]);
    expect((error as unknown as Record<symbol, unknown>)[Symbol.for("conch.error")]).toBe(true);
    expect(CONFIG_ERROR_CODES).toEqual(["INVALID_CONFIG"]);
  });

  it("recognises a branded copy and rejects look-alikes", () => {
    const copy = Object.assign(new Error("m"), { code: "INVALID_CONFIG", [Symbol.for("conch.error")]: true });
    expect(isConfigError(copy)).toBe(true);
    expect(isConfigError(Object.assign(new Error("m"), { code: "INVALID_CONFIG" }))).toBe(false);
    expect(isConfigError({ code: "SPAWN_FAILED", [Symbol.for("conch.error")]: true })).toBe(false);
    expect(isConfigError(null)).toBe(false);
  });
});
