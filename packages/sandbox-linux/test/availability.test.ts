import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { probeBwrap } from "../src/bwrap/availability.js";

describe("probeBwrap fails closed with the reason and the fix", () => {
  it.runIf(process.platform === "linux" && existsSync("/usr/bin/bwrap"))(
    "finds the system bubblewrap usable here, with --disable-userns from 0.8",
    async () => {
      const { availability, disableUserns } = await probeBwrap("/usr/bin/bwrap");
      expect(availability).toEqual({ available: true });
      expect(disableUserns).toBe(true);
    },
  );

  it("when bwrap is missing", async () => {
    const { availability, disableUserns } = await probeBwrap(null);
    expect(disableUserns).toBe(false);
    expect(availability).toMatchObject({ available: false, reason: "bubblewrap (bwrap) is not installed" });
    expect(availability.available === false && availability.fix).toMatch(
      /^install bubblewrap .*apt-get install bubblewrap/,
    );
  });

  it("when the program is not bubblewrap", async () => {
    const { availability } = await probeBwrap("/bin/echo");
    expect(availability).toMatchObject({ available: false });
    expect(availability.available === false && availability.reason).toMatch(
      /^\/bin\/echo --version did not answer as bubblewrap/,
    );
  });
});
