import { describe, expect, it } from "vitest";
import { formatShellCommandResult } from "./shell-command-result.js";

describe("formatShellCommandResult", () => {
  it("formats a short result", () => {
    expect(
      formatShellCommandResult({ exitCode: 0, durationMs: 1234, output: "hello\n", maxTokens: 10_000 }),
    ).toEqual({ text: "Exit code: 0\nWall time: 1.2 seconds\nOutput:\nhello\n", truncated: false });
  });

  it("prints one decimal, whole seconds too, as Codex's {:.1} does", () => {
    const wall = (durationMs: number) =>
      formatShellCommandResult({ exitCode: 1, durationMs, output: "", maxTokens: 10 }).text.split("\n")[1];
    expect(wall(0)).toBe("Wall time: 0.0 seconds");
    expect(wall(49)).toBe("Wall time: 0.0 seconds");
    expect(wall(2000)).toBe("Wall time: 2.0 seconds");
    expect(wall(12_345)).toBe("Wall time: 12.3 seconds");
    expect(wall(12_360)).toBe("Wall time: 12.4 seconds");
  });

  it("prefixes timed-out output with the elapsed milliseconds", () => {
    expect(
      formatShellCommandResult({
        exitCode: 124,
        durationMs: 10_003.7,
        output: "partial\n",
        maxTokens: 10_000,
        timedOut: true,
      }).text,
    ).toBe(
      "Exit code: 124\nWall time: 10.0 seconds\nOutput:\ncommand timed out after 10003 milliseconds\npartial\n",
    );
  });

  it("prefixes an empty timed-out output too", () => {
    expect(
      formatShellCommandResult({
        exitCode: 124,
        durationMs: 10_000,
        output: "",
        maxTokens: 10_000,
        timedOut: true,
      }).text,
    ).toBe("Exit code: 124\nWall time: 10.0 seconds\nOutput:\ncommand timed out after 10000 milliseconds\n");
  });

  it("cuts whole lines, names them with the whole output's line count, and points to the file", () => {
    const result = formatShellCommandResult({
      exitCode: 0,
      durationMs: 100,
      output: "aaaa\nbbbb\ncccc\ndddd\n",
      maxTokens: 2,
      spill: { kind: "file", path: "/s/out.txt", gap: null },
    });
    expect(result).toEqual({
      text:
        "Exit code: 0\nWall time: 0.1 seconds\nTotal output lines: 4\nOutput:\naaaa\n" +
        "[… lines 2–3 omitted (10 bytes); full output: /s/out.txt — read a range with: sed -n '2,3p' /s/out.txt]\n" +
        "dddd\n",
      truncated: true,
    });
  });

  it("cuts a single line longer than the budget inside itself, and says when nothing was saved", () => {
    expect(
      formatShellCommandResult({ exitCode: 0, durationMs: 100, output: "abcdefghij", maxTokens: 1 }).text,
    ).toBe(
      "Exit code: 0\nWall time: 0.1 seconds\nTotal output lines: 1\nOutput:\n" +
        "ab\n[… line 1 omitted (6 bytes); the full output was not saved]\nij",
    );
  });

  it("numbers lines as the saved output does: the timeout notice is none of its lines", () => {
    const output = Array.from({ length: 50 }, (_, i) => `line ${i + 1}\n`).join("");
    const result = formatShellCommandResult({
      exitCode: 124,
      durationMs: 5000,
      output,
      maxTokens: 30,
      timedOut: true,
      spill: { kind: "file", path: "/s/out.txt", gap: null },
    });
    expect(result.text).toBe(
      "Exit code: 124\nWall time: 5.0 seconds\nTotal output lines: 51\nOutput:\n" +
        "command timed out after 5000 milliseconds\nline 1\nline 2\n" +
        "[… lines 3–43 omitted (321 bytes); full output: /s/out.txt — read a range with: sed -n '3,43p' /s/out.txt]\n" +
        "line 44\nline 45\nline 46\nline 47\nline 48\nline 49\nline 50\n",
    );
  });
});
