import { describe, expect, it } from "vitest";
import { CHUNK_ID_LENGTH, generateChunkId } from "./chunk-id.js";

function sequence(values: readonly number[]): () => number {
  let i = 0;
  return () => values[i++] ?? 0;
}

describe("generateChunkId", () => {
  it("maps each random draw to one lowercase hex digit", () => {
    expect(generateChunkId(sequence([0, 0.5, 0.999999, 0.0625, 0.9375, 0.25]))).toBe("08f1f4");
  });

  it("stays a hex digit if the source returns 1", () => {
    expect(generateChunkId(() => 1)).toBe("ffffff");
  });

  it("defaults to six random hex digits", () => {
    expect(CHUNK_ID_LENGTH).toBe(6);
    expect(generateChunkId()).toMatch(/^[0-9a-f]{6}$/);
  });
});
