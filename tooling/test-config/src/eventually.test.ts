import { describe, expect, it } from "vitest";
import { eventually } from "./eventually.js";

describe("eventually", () => {
  it("returns once the check holds", async () => {
    let calls = 0;
    await eventually("the third call", () => ++calls === 3, { everyMs: 1 });
    expect(calls).toBe(3);
  });

  it("fails naming what did not happen", async () => {
    await expect(eventually("the impossible", () => false, { timeoutMs: 30, everyMs: 5 })).rejects.toThrow(
      "eventually: the impossible did not happen within 30 ms",
    );
  });
});
