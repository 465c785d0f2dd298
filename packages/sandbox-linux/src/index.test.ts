import { describe, expect, it } from "vitest";
import * as api from "./index.js";

describe("@conch/sandbox-linux public surface", () => {
  it("exports exactly these names", () => {
    expect(Object.keys(api).sort()).toEqual([
      "SECCOMP_ARCHES",
      "buildSeccompFilter",
      "createLinuxBackend",
      "seccompArchOf",
    ]);
  });
});
