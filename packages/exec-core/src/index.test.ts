import { describe, expect, it } from "vitest";
import * as api from "./index.js";

describe("@conch/exec-core public surface", () => {
  it("exports exactly these names", () => {
    expect(Object.keys(api).sort()).toEqual([
      "CORE_ENV_VARS",
      "DEFAULT_DRAIN_TIMEOUT_MS",
      "DEFAULT_ENV_EXCLUDES",
      "DEFAULT_KILL_GRACE_MS",
      "DEFAULT_MAX_OUTPUT_BYTES",
      "ENV_PINS",
      "EXEC_ERROR_CODES",
      "EXIT_CODE_CANCELED",
      "EXIT_CODE_TIMEOUT",
      "ExecError",
      "HeadTailBuffer",
      "RUN_MARKER_VAR",
      "buildEnv",
      "exitCodeOf",
      "inheritedVariableFilter",
      "isExecError",
      "parseReport",
      "run",
      "spawnProcess",
    ]);
  });

  it("brands its errors for its own guard only, from any copy of the package", () => {
    const conch = Symbol.for("conch.error");
    const own = Symbol.for("conch.exec-core.error");
    expect(api.isExecError(new api.ExecError("SPAWN_FAILED", "x"))).toBe(true);
    expect(
      api.isExecError(Object.assign(new Error("x"), { code: "SPAWN_FAILED", [conch]: true, [own]: true })),
    ).toBe(true);
    // Another package's error with the same code carries the shared brand, not this one's.
    expect(api.isExecError(Object.assign(new Error("x"), { code: "SPAWN_FAILED", [conch]: true }))).toBe(
      false,
    );
    expect(api.isExecError(Object.assign(new Error("x"), { code: "SPAWN_FAILED" }))).toBe(false);
  });
});
