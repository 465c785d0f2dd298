import { describe, expect, it } from "vitest";
import * as api from "./index.js";

describe("@conch/unified-exec public surface", () => {
  it("exports exactly these names", () => {
    expect(Object.keys(api).sort()).toEqual([
      "DEFAULT_MAX_SESSIONS",
      "DEFAULT_PROTECTED_RECENT",
      "DEFAULT_RETAINED_BYTES",
      "ScreenRenderer",
      "SessionStore",
      "UNIFIED_EXEC_ERROR_CODES",
      "UnifiedExecError",
      "clampEmptyPoll",
      "clampYield",
      "isUnifiedExecError",
    ]);
  });

  it("brands its errors so the guard works across copies", () => {
    const error = new api.UnifiedExecError("UNKNOWN_SESSION", "Unknown process id 1");
    expect(api.isUnifiedExecError(error)).toBe(true);
    expect(api.isUnifiedExecError(Object.assign(new Error("x"), { code: "UNKNOWN_SESSION" }))).toBe(false);
    expect((error as unknown as Record<symbol, unknown>)[Symbol.for("conch.error")]).toBe(true);
  });

  it("clamps yields as Codex does", () => {
    expect([0, 250, 10_000, 60_000].map(api.clampYield)).toEqual([250, 250, 10_000, 30_000]);
    expect([250, 5_000, 400_000].map(api.clampEmptyPoll)).toEqual([5_000, 5_000, 300_000]);
  });
});
