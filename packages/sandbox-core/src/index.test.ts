import { describe, expect, it } from "vitest";
import * as api from "./index.js";

describe("@conch/sandbox-core public surface", () => {
  it("exports exactly these names", () => {
    expect(Object.keys(api).sort()).toEqual([
      "DEFAULT_DENY_READ",
      "ENVIRONMENT_DENY_READ",
      "PROTECTED_NAMES",
      "SANDBOX_DENIAL_KEYWORDS",
      "SANDBOX_ENV_VAR",
      "SANDBOX_ERROR_CODES",
      "SANDBOX_NETWORK_DISABLED_ENV_VAR",
      "SESSION_DENIAL_WINDOW_MS",
      "SandboxError",
      "checkGitAfterCommand",
      "createSandboxRegistry",
      "createSandboxWorkspace",
      "environmentDenyRead",
      "fromCodexSandboxPolicy",
      "gitHostExposure",
      "isLikelySandboxDenied",
      "isSandboxError",
      "prepareSandbox",
      "resolveSandboxPolicy",
      "sandboxEnv",
    ]);
  });

  it("brands its errors for its own guard only, from any copy of the package", () => {
    const conch = Symbol.for("conch.error");
    const own = Symbol.for("conch.sandbox-core.error");
    expect(api.isSandboxError(new api.SandboxError("CWD_NOT_FOUND", "x"))).toBe(true);
    expect(
      api.isSandboxError(
        Object.assign(new Error("x"), { code: "CWD_NOT_FOUND", [conch]: true, [own]: true }),
      ),
    ).toBe(true);
    // What an ExecError looks like to this guard: the shared brand and a code both packages use.
    expect(api.isSandboxError(Object.assign(new Error("x"), { code: "CWD_NOT_FOUND", [conch]: true }))).toBe(
      false,
    );
    expect(api.isSandboxError(Object.assign(new Error("x"), { code: "SANDBOX_UNAVAILABLE" }))).toBe(false);
    expect(api.SANDBOX_ERROR_CODES).toEqual([
      "INVALID_SANDBOX_POLICY",
      "CWD_NOT_FOUND",
      "INVALID_SANDBOX_BACKEND",
      "SANDBOX_UNAVAILABLE",
      "WRITABLE_ROOT_CHANGED",
    ]);
  });
});
