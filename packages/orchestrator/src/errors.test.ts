import { describe, expect, it } from "vitest";
import { isOrchestratorError, ORCHESTRATOR_ERROR_CODES, OrchestratorError } from "./errors.js";

describe("OrchestratorError", () => {
  it("carries its code, name, message and cause", () => {
    const cause = new Error("x");
    const error = new OrchestratorError("INVALID_CONFIG", "f:1: k: bad", { cause });
    expect([error.name, error.code, error.message, error.cause]).toEqual([
      "OrchestratorError",
      "INVALID_CONFIG",
      "f:1: k: bad",
      cause,
    ]);
    expect(ORCHESTRATOR_ERROR_CODES).toEqual(["INVALID_CONFIG", "INVALID_REQUEST"]);
  });

  it("recognises a branded copy and rejects look-alikes", () => {
    const conch = Symbol.for("conch.error");
    const own = Symbol.for("conch.orchestrator.error");
    const copy = Object.assign(new Error("m"), { code: "INVALID_CONFIG", [conch]: true, [own]: true });
    expect(isOrchestratorError(copy)).toBe(true);
    // An ExecError's INVALID_REQUEST is not this package's.
    expect(
      isOrchestratorError(Object.assign(new Error("m"), { code: "INVALID_REQUEST", [conch]: true })),
    ).toBe(false);
    expect(isOrchestratorError(Object.assign(new Error("m"), { code: "INVALID_CONFIG" }))).toBe(false);
    expect(isOrchestratorError({ code: "SPAWN_FAILED", [conch]: true, [own]: true })).toBe(false);
    expect(isOrchestratorError(null)).toBe(false);
  });
});
