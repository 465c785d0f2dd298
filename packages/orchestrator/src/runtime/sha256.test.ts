import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "./sha256.js";

describe("sha256Hex", () => {
  it("is node:crypto's SHA-256, for every length around the block sizes and any text", () => {
    const alphabet = ["a", "Z", "0", "\0", "/", "é", "€", "😀", "\n"];
    let seed = 1;
    for (let length = 0; length < 300; length++) {
      let text = "";
      for (let i = 0; i < length; i++) {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        text += alphabet[seed % alphabet.length];
      }
      expect(sha256Hex(text), `length ${length}`).toBe(createHash("sha256").update(text).digest("hex"));
    }
    expect(sha256Hex("a", "b\0", "c")).toBe(createHash("sha256").update("ab\0c").digest("hex"));
    const big = "x".repeat(100_000);
    expect(sha256Hex(big)).toBe(createHash("sha256").update(big).digest("hex"));
    // The standard's own examples.
    expect(sha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });
});
