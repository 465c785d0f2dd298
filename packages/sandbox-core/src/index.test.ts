import { describe, expect, it } from "vitest";
import * as api from "./index.js";

describe("@conch/sandbox-core public surface", () => {
  it("exports exactly these names", () => {
    expect(Object.keys(api).sort()).toEqual([
      "DEFAULT_DENY_READ",
      "PROTECTED_NAMES",
      "SANDBOX_DENIAL_KEYWORDS",
      "SANDBOX_ENV_VAR",
      "SANDBOX_ERROR_CODES",
      "SANDBOX_MODES",
      "SANDBOX_NETWORK_DISABLED_ENV_VAR",
      "SESSION_DENIAL_WINDOW_MS",
      "SandboxError",
      "createSandboxRegistry",
      "createSandboxWorkspace",
      "isLikelySandboxDenied",
      "isSandboxError",
      "registerBackend",
      "resolveSandboxPolicy",
      "sandboxEnv",
      "selectBackend",
    ]);
  });

  it("brands its errors so the guard works across copies", () => {
    const error = new api.SandboxError("SANDBOX_UNAVAILABLE", "x");
    expect(api.isSandboxError(error)).toBe(true);
    expect(api.isSandboxError(Object.assign(new Error("x"), { code: "SANDBOX_UNAVAILABLE" }))).toBe(false);
    expect((error as unknown as Record<symbol, unknown>)[Symbol.for("conch.error")]).toBe(true);
    expect(api.SANDBOX_ERROR_CODES).toEqual([
      "INVALID_SANDBOX_POLICY",
      "CWD_NOT_FOUND",
      "INVALID_SANDBOX_BACKEND",
      "SANDBOX_UNAVAILABLE",
      "WRITABLE_ROOT_CHANGED",
    ]);
  });
});
