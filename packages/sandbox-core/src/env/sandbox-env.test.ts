import { describe, expect, it } from "vitest";
import type { SandboxRules } from "../types.js";
import { sandboxEnv } from "./sandbox-env.js";

const rules = (network: boolean): SandboxRules => ({
  mode: "workspace-write",
  readableRoots: ["/"],
  writableRoots: [],
  tmp: { kind: "empty", targets: ["/tmp"] },
  hidden: [],
  network,
});

describe("sandboxEnv", () => {
  it("names the backend and marks a disabled network", () => {
    expect(sandboxEnv("bwrap", rules(false))).toEqual({
      CONCH_SANDBOX: "bwrap",
      CONCH_SANDBOX_NETWORK_DISABLED: "1",
    });
    expect(sandboxEnv("seatbelt", rules(true))).toEqual({ CONCH_SANDBOX: "seatbelt" });
  });
});
