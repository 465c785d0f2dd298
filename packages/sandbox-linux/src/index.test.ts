import { describe, expect, it } from "vitest";
import * as api from "./index.js";

describe("@conch/sandbox-linux public surface", () => {
  it("exports exactly these names", () => {
    expect(Object.keys(api).sort()).toEqual([
      "SANDBOX_BACKEND_CHOICES",
      "SECCOMP_ARCHES",
      "boundWorkspaceTmp",
      "buildSeccompFilter",
      "createLandlockBackend",
      "createLinuxBackend",
      "createLinuxBackends",
      "describeLandlock",
      "describeLimits",
      "seccompArchOf",
    ]);
  });
});
