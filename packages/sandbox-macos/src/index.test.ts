import { describe, expect, it } from "vitest";
import * as api from "./index.js";

describe("@conch/sandbox-macos public surface", () => {
  it("exports exactly these names", () => {
    expect(Object.keys(api).sort()).toEqual([
      "SANDBOX_EXEC",
      "createSeatbeltBackend",
      "probeSeatbelt",
      "seatbeltArgs",
      "seatbeltProfile",
    ]);
  });
});
