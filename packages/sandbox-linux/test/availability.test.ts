import { describe, expect, it } from "vitest";
import { probeBwrap } from "../src/bwrap/availability.js";

describe("probeBwrap fails closed with the reason and the fix", () => {
  it("when bwrap is missing", async () => {
    const availability = await probeBwrap(null);
    expect(availability).toMatchObject({ available: false, reason: "bubblewrap (bwrap) is not installed" });
    expect(availability.available === false && availability.fix).toMatch(
      /^install bubblewrap .*apt-get install bubblewrap/,
    );
  });

  it("when the program is not bubblewrap", async () => {
    const availability = await probeBwrap("/bin/echo");
    expect(availability).toMatchObject({ available: false });
    expect(availability.available === false && availability.reason).toMatch(
      /^\/bin\/echo --version did not answer as bubblewrap/,
    );
  });
});
