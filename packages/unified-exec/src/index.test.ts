import { describe, expect, it } from "vitest";
import * as api from "./index.js";

describe("@conch/unified-exec public surface", () => {
  it("exports exactly these names", () => {
    expect(Object.keys(api).sort()).toEqual([
      "DEFAULT_MAX_SESSIONS",
      "DEFAULT_PROTECTED_RECENT",
      "DEFAULT_RETAINED_BYTES",
      "DEFAULT_SETTLE_MS",
      "ScreenRenderer",
      "SessionStore",
      "UNIFIED_EXEC_ERROR_CODES",
      "UnifiedExecError",
      "clampEmptyPoll",
      "clampYield",
      "interactiveShell",
      "isUnifiedExecError",
    ]);
  });

  it("brands its errors for its own guard only, from any copy of the package", () => {
    const conch = Symbol.for("conch.error");
    const own = Symbol.for("conch.unified-exec.error");
    expect(api.isUnifiedExecError(new api.UnifiedExecError("UNKNOWN_SESSION", "x"))).toBe(true);
    expect(
      api.isUnifiedExecError(
        Object.assign(new Error("x"), { code: "UNKNOWN_SESSION", [conch]: true, [own]: true }),
      ),
    ).toBe(true);
    // Another package's error with the same code carries the shared brand, not this one's.
    expect(
      api.isUnifiedExecError(Object.assign(new Error("x"), { code: "UNKNOWN_SESSION", [conch]: true })),
    ).toBe(false);
    expect(api.isUnifiedExecError(Object.assign(new Error("x"), { code: "UNKNOWN_SESSION" }))).toBe(false);
  });

  it("clamps yields as Codex does", () => {
    expect([0, 250, 10_000, 60_000].map(api.clampYield)).toEqual([250, 250, 10_000, 30_000]);
    expect([250, 5_000, 400_000].map(api.clampEmptyPoll)).toEqual([5_000, 5_000, 300_000]);
  });
});
