import { describe, expect, it } from "vitest";
import {
  approxBytesForTokens,
  approxTokenCount,
  countNewlines,
  cutLines,
  cutText,
  joinCut,
  type Omission,
} from "./truncate.js";

const marker = (omission: Omission): string =>
  `[lines ${omission.firstLine}-${omission.lastLine}, ${omission.bytes} bytes]`;

/** `n` numbered lines, `line 1\n` on. */
function numbered(n: number): string {
  return Array.from({ length: n }, (_, i) => `line ${i + 1}\n`).join("");
}

describe("approxTokenCount", () => {
  it("is ceil(UTF-8 bytes / 4)", () => {
    expect(approxTokenCount("")).toBe(0);
    expect(approxTokenCount("a")).toBe(1);
    expect(approxTokenCount("abcd")).toBe(1);
    expect(approxTokenCount("abcde")).toBe(2);
    expect(approxTokenCount("😀")).toBe(1);
    expect(approxTokenCount("日本語")).toBe(3);
  });

  it("converts tokens back to bytes", () => {
    expect(approxBytesForTokens(10_000)).toBe(40_000);
  });
});

describe("cutText", () => {
  it("returns text within budget unchanged, still counting its tokens", () => {
    expect(cutText("short output", 100)).toEqual({
      head: "short output",
      tail: "",
      omission: null,
      originalTokens: 3,
    });
    expect(cutText("", 0)).toEqual({ head: "", tail: "", omission: null, originalTokens: 0 });
  });

  it("cuts on line boundaries and numbers the lines it leaves out", () => {
    // 100 lines of 7-9 bytes; 20 tokens: 40 bytes a side.
    const text = numbered(100);
    const cut = cutText(text, 20);
    expect(cut.head).toBe("line 1\nline 2\nline 3\nline 4\nline 5\n");
    // 41 bytes: a line that fits but for one byte is shown whole.
    expect(cut.tail).toBe("line 96\nline 97\nline 98\nline 99\nline 100\n");
    expect(cut.omission).toEqual({
      firstLine: 6,
      lastLine: 95,
      bytes: Buffer.byteLength(text) - cut.head.length - cut.tail.length,
      startByte: cut.head.length,
    });
    expect(cut.originalTokens).toBe(approxTokenCount(text));
    expect(joinCut(cut, marker)).toBe(`${cut.head}[lines 6-95, ${cut.omission?.bytes} bytes]\n${cut.tail}`);
  });

  it("numbers from the offset given: the lines before the text in its file, or a line put in front", () => {
    const cut = cutText(numbered(100), 20, 1000);
    expect([cut.omission?.firstLine, cut.omission?.lastLine]).toEqual([1006, 1095]);
    const prefixed = cutText(`notice\n${numbered(100)}`, 20, -1);
    expect(prefixed.head).toBe("notice\nline 1\nline 2\nline 3\nline 4\n");
    expect([prefixed.omission?.firstLine, prefixed.omission?.lastLine]).toEqual([5, 95]);
  });

  it("cuts inside a line only when it is longer than its side's half of the budget", () => {
    // The first line is longer than the head's 40 bytes: cut inside, on a character boundary.
    const long = `${"é".repeat(50)}\n${numbered(10)}`;
    const cut = cutText(long, 20);
    expect(cut.head).toBe("é".repeat(20));
    expect(cut.omission?.firstLine).toBe(1);
    expect(joinCut(cut, marker).startsWith(`${"é".repeat(20)}\n[lines 1-`)).toBe(true);

    // A long last line without a newline: the tail is its end.
    const last = cutText(`${numbered(10)}${"x".repeat(100)}`, 20);
    expect(last.tail).toBe("x".repeat(40));
    expect(last.omission?.lastLine).toBe(11);

    // A line that crosses the head's limit but is shorter than it is left out whole.
    const crossing = cutText(`${"a".repeat(30)}\n${"b".repeat(30)}\n${"c".repeat(100)}\n`, 20);
    expect(crossing.head).toBe(`${"a".repeat(30)}\n`);
    expect(crossing.omission?.firstLine).toBe(2);
  });

  it("never splits a character at either cut", () => {
    const cut = cutText("😀😀😀😀😀😀😀😀😀😀😀😀", 2);
    expect(cut.head).toBe("😀");
    expect(cut.tail).toBe("😀");
    expect(cut.omission).toEqual({ firstLine: 1, lastLine: 1, bytes: 40, startByte: 4 });
    // Three bytes a side: not even one four-byte character fits either.
    expect(cutText("a😀😀😀b", 1)).toMatchObject({ head: "a", tail: "b" });
  });

  it("leaves only the marker at budget 0", () => {
    const cut = cutText("abc\ndef\n", 0);
    expect(cut).toEqual({
      head: "",
      tail: "",
      omission: { firstLine: 1, lastLine: 2, bytes: 8, startByte: 0 },
      originalTokens: 2,
    });
    expect(joinCut(cut, marker)).toBe("[lines 1-2, 8 bytes]");
  });

  it("rejects a budget that is not a non-negative integer", () => {
    expect(() => cutText("x", -1)).toThrow(
      new RangeError("maxTokens: expected a non-negative integer, received -1"),
    );
    expect(() => cutText("x", 1.5)).toThrow(
      new RangeError("maxTokens: expected a non-negative integer, received 1.5"),
    );
  });
});

describe("cutLines", () => {
  it("cuts a head and tail kept with room for the budget exactly as the whole text", () => {
    for (const text of [numbered(5000), `${"z".repeat(3000)}\n${numbered(300)}${"y".repeat(5000)}`]) {
      const bytes = Buffer.from(text);
      for (const maxTokens of [1, 7, 20, 100, 333]) {
        const room = approxBytesForTokens(maxTokens);
        const source = {
          head: bytes.subarray(0, room + 64),
          tail: bytes.subarray(bytes.length - room),
          totalBytes: bytes.length,
          newlines: countNewlines(bytes, 0, bytes.length),
        };
        expect(cutLines(source, maxTokens), `${maxTokens}`).toEqual(cutText(text, maxTokens));
      }
    }
  });

  it("shows what a smaller source holds, leaving out a line whose length it cannot tell", () => {
    const bytes = Buffer.from(numbered(10_000));
    const source = {
      head: bytes.subarray(0, 100),
      tail: bytes.subarray(bytes.length - 100),
      totalBytes: bytes.length,
      newlines: 10_000,
    };
    const cut = cutLines(source, 1000);
    // 100 bytes hold lines 1 to 13 and the start of line 14, which is left out whole.
    expect(cut.head).toBe(numbered(13));
    expect(cut.tail.startsWith("line 99")).toBe(true);
    expect(cut.tail.endsWith("line 10000\n")).toBe(true);
    expect(cut.omission?.firstLine).toBe(14);
    expect(cut.omission?.lastLine).toBe(10_000 - cut.tail.split("\n").length + 1);
  });
});
