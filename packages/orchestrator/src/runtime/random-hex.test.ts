import { describe, expect, it } from "vitest";
import { randomHex } from "./random-hex.js";

describe("randomHex", () => {
  it("gives that many bytes as lower-case hex, different each time", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const hex = randomHex(8);
      expect(hex).toMatch(/^[0-9a-f]{16}$/);
      seen.add(hex);
    }
    expect(seen.size).toBe(200);
    expect(randomHex(4)).toMatch(/^[0-9a-f]{8}$/);
  });
});
