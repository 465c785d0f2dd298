import { describe, expect, it } from "vitest";
import { isOrchestratorError, ORCHESTRATOR_ERROR_CODES, OrchestratorError } from "./errors.js";

describe("OrchestratorError", () => {
  it("carries its code, name, cause and the shared conch brand", () => {
    const cause = new Error("x");
    const error = new OrchestratorError("INVALID_CONFIG", "f:1: k: bad", { cause });
    expect([error.name, error.code, error.message, error.cause]).toEqual([
      "OrchestratorError",
      "INVALID_CONFIG",
      "f:1: k: bad",
      cause,
    ]);
    expect((error as unknown as Record<symbol, unknown>)[Symbol.for("conch.error")]).toBe(true);
    expect(ORCHESTRATOR_ERROR_CODES).toEqual(["INVALID_CONFIG", "INVALID_REQUEST"]);
  });

  it("recognises a branded copy and rejects look-alikes", () => {
    const copy = Object.assign(new Error("m"), { code: "INVALID_CONFIG", [Symbol.for("conch.error")]: true });
    expect(isOrchestratorError(copy)).toBe(true);
    expect(isOrchestratorError(Object.assign(new Error("m"), { code: "INVALID_CONFIG" }))).toBe(false);
    expect(isOrchestratorError({ code: "SPAWN_FAILED", [Symbol.for("conch.error")]: true })).toBe(false);
    expect(isOrchestratorError(null)).toBe(false);
  });
});
