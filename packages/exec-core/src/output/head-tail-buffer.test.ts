import { describe, expect, it } from "vitest";
import { HeadTailBuffer } from "./head-tail-buffer.js";

const bytes = (text: string): Buffer => Buffer.from(text, "utf8");

describe("HeadTailBuffer", () => {
  it("holds everything while under capacity", () => {
    const buffer = new HeadTailBuffer(10);
    buffer.push(bytes("abc"));
    buffer.push(bytes("defgh"));
    expect(buffer.text()).toBe("abcdefgh");
    expect(buffer.omittedBytes).toBe(0);
    expect(buffer.totalBytes).toBe(8);
  });

  it("keeps the first and last halves and counts the middle exactly, across chunk sizes", () => {
    const input = Array.from({ length: 1000 }, (_, i) => String.fromCharCode(97 + (i % 26))).join("");
    for (const chunk of [1, 3, 7, 64, 999, 1000]) {
      const buffer = new HeadTailBuffer(100);
      for (let i = 0; i < input.length; i += chunk) buffer.push(bytes(input.slice(i, i + chunk)));
      expect(buffer.head().toString()).toBe(input.slice(0, 50));
      expect(buffer.tail().toString()).toBe(input.slice(-50));
      expect(buffer.omittedBytes).toBe(900);
      expect(buffer.text()).toBe(`${input.slice(0, 50)}\n... 900 bytes omitted ...\n${input.slice(-50)}`);
    }
  });

  it("gives an odd capacity's extra byte to the tail", () => {
    const buffer = new HeadTailBuffer(5);
    buffer.push(bytes("0123456789"));
    expect(buffer.text()).toBe("01\n... 5 bytes omitted ...\n789");
  });

  it("never splits a UTF-8 character and counts the bytes it moved into the omitted part", () => {
    const buffer = new HeadTailBuffer(8);
    // "é" is 2 bytes and "€" 3: the head (4 bytes) ends inside "€", the tail (4 bytes) starts inside "é".
    buffer.push(bytes("ab€xyé123"));
    expect(buffer.totalBytes).toBe(12);
    expect(buffer.text()).toBe("ab\n... 7 bytes omitted ...\n123");
  });

  it("allocates as output arrives, not the whole capacity up front", () => {
    const before = process.memoryUsage().arrayBuffers;
    const buffers = Array.from({ length: 8 }, () => new HeadTailBuffer(1024 ** 3));
    for (const buffer of buffers) buffer.push(bytes("short"));
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(1024 ** 2);
    expect(buffers.map((b) => b.text())).toEqual(Array(8).fill("short"));
  });

  it("rejects a capacity below 2", () => {
    expect(() => new HeadTailBuffer(1)).toThrow("capacity: expected an integer >= 2, received 1");
  });
});

describe("HeadTailBuffer.clone", () => {
  it("copies the bytes and counts, then lives on its own", () => {
    const buffer = new HeadTailBuffer(6);
    buffer.push(bytes("abcdefgh"));
    const copy = buffer.clone();
    buffer.push(bytes("XY"));
    copy.push(bytes("12"));
    expect(copy.text()).toBe("abc\n... 4 bytes omitted ...\nh12");
    expect(buffer.text()).toBe("abc\n... 4 bytes omitted ...\nhXY");
  });

  it("textSoFar holds back a character whose last bytes have not arrived, with or without omission", () => {
    const short = new HeadTailBuffer(64);
    short.push(Buffer.from([0x63, 0x61, 0x66, 0xc3]));
    expect(short.textSoFar()).toEqual({ text: "caf", rest: Buffer.from([0xc3]) });
    expect(short.text()).toBe("caf\ufffd");
    const long = new HeadTailBuffer(8);
    long.push(Buffer.from("abcdefghijkl"));
    long.push(Buffer.from([0xe2, 0x82]));
    const { text, rest } = long.textSoFar();
    expect(text).toBe("abcd\n... 6 bytes omitted ...\nkl");
    expect(rest).toEqual(Buffer.from([0xe2, 0x82]));
  });
});
