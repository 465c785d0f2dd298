import { Buffer } from "node:buffer";
import { describe, expect, it } from "vitest";
import { TailBuffer } from "./tail-buffer.js";

describe("TailBuffer", () => {
  it("holds the last bytes, whatever mix of small copied and large kept chunks came, read at any time", () => {
    let seed = 3;
    const random = (): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (const capacity of [1, 100, 4096, 40_000, 100_000]) {
      const tail = new TailBuffer(capacity);
      let all = Buffer.alloc(0);
      for (let i = 0; i < 300; i++) {
        const size = random() < 0.5 ? Math.floor(random() * 200) : Math.floor(random() * 70_000);
        const chunk = Buffer.alloc(size);
        for (let b = 0; b < size; b += 97) chunk[b] = Math.floor(random() * 256);
        // Now and then a slice of a larger buffer, which is copied rather than kept.
        const pushed =
          random() < 0.2 ? Buffer.concat([chunk, Buffer.alloc(size * 3)]).subarray(0, size) : chunk;
        tail.push(pushed);
        all = Buffer.concat([all, chunk]).subarray(-Math.max(capacity, 1));
        if (random() < 0.1) {
          expect(tail.length, `capacity ${capacity}, push ${i}`).toBe(Math.min(all.length, capacity));
          expect(tail.tail().equals(all.subarray(-capacity)), `capacity ${capacity}, push ${i}`).toBe(true);
          const part = Math.floor(random() * capacity);
          const target = Buffer.alloc(part);
          expect(tail.copyTo(target, part)).toBe(Math.min(part, all.length));
        }
      }
      expect(tail.tail().equals(all.subarray(-capacity))).toBe(true);
    }
  });

  it("keeps every byte at the edges: a tail that large chunks fill exactly, or miss by one", () => {
    for (const capacity of [4095, 4096, 4097, 8191, 8192, 8193, 12_287, 12_288, 12_289]) {
      const tail = new TailBuffer(capacity);
      const chunks = [0, 1, 2, 3].map((n) => Buffer.alloc(4096, 65 + n));
      for (const chunk of chunks) tail.push(chunk);
      expect(tail.tail().equals(Buffer.concat(chunks).subarray(-capacity)), `capacity ${capacity}`).toBe(
        true,
      );
    }
  });
});
