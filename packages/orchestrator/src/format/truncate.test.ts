import { describe, expect, it } from "vitest";
import { approxBytesForTokens, approxTokenCount, truncateMiddle } from "./truncate.js";

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

describe("truncateMiddle", () => {
  it("returns text within budget unchanged, still counting its tokens", () => {
    expect(truncateMiddle("short output", 100)).toEqual({
      text: "short output",
      truncated: false,
      originalTokens: 3,
      removedTokens: 0,
    });
    expect(truncateMiddle("abcd", 1)).toEqual({
      text: "abcd",
      truncated: false,
      originalTokens: 1,
      removedTokens: 0,
    });
  });

  it("cuts one byte over the budget", () => {
    expect(truncateMiddle("abcde", 1)).toEqual({
      text: "ab…1 tokens truncated…de",
      truncated: true,
      originalTokens: 2,
      removedTokens: 1,
    });
  });

  it("leaves only the marker at budget 0 (Codex test)", () => {
    expect(truncateMiddle("abcdef", 0)).toEqual({
      text: "…2 tokens truncated…",
      truncated: true,
      originalTokens: 2,
      removedTokens: 2,
    });
  });

  it("leaves the empty string alone, even at budget 0", () => {
    expect(truncateMiddle("", 0)).toEqual({
      text: "",
      truncated: false,
      originalTokens: 0,
      removedTokens: 0,
    });
  });

  it("keeps head and tail on UTF-8 boundaries (Codex test)", () => {
    const text = "😀😀😀😀😀😀😀😀😀😀\nsecond line with text\n";
    expect(truncateMiddle(text, 8)).toEqual({
      text: "😀😀😀😀…8 tokens truncated… line with text\n",
      truncated: true,
      originalTokens: 16,
      removedTokens: 8,
    });
  });

  it("never splits an emoji that straddles either cut", () => {
    expect(truncateMiddle("a😀b", 1)).toEqual({
      text: "a…1 tokens truncated…b",
      truncated: true,
      originalTokens: 2,
      removedTokens: 1,
    });
  });

  it("never splits three-byte characters", () => {
    expect(truncateMiddle("日本語テキスト", 2)).toEqual({
      text: "日…4 tokens truncated…ト",
      truncated: true,
      originalTokens: 6,
      removedTokens: 4,
    });
  });

  it("counts removed tokens from the byte overflow, as Codex does", () => {
    const result = truncateMiddle("x".repeat(100_000), 10);
    expect(result.text).toBe(`${"x".repeat(20)}…24990 tokens truncated…${"x".repeat(20)}`);
    expect(result.originalTokens).toBe(25_000);
    expect(result.removedTokens).toBe(24_990);
  });

  it("rejects a budget that is not a non-negative integer", () => {
    expect(() => truncateMiddle("x", -1)).toThrow(
      new RangeError("maxTokens must be a non-negative integer, received -1"),
    );
    expect(() => truncateMiddle("x", 1.5)).toThrow(
      new RangeError("maxTokens must be a non-negative integer, received 1.5"),
    );
  });
});
