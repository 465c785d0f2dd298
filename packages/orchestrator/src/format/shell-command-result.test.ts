import { describe, expect, it } from "vitest";
import { formatShellCommandResult } from "./shell-command-result.js";

describe("formatShellCommandResult", () => {
  it("formats a short result", () => {
    expect(
      formatShellCommandResult({ exitCode: 0, durationMs: 1234, output: "hello\n", maxTokens: 10_000 }),
    ).toBe("Exit code: 0\nWall time: 1.2 seconds\nOutput:\nhello\n");
  });

  it("prints one decimal, whole seconds too, as Codex's {:.1} does", () => {
    const wall = (durationMs: number) =>
      formatShellCommandResult({ exitCode: 1, durationMs, output: "", maxTokens: 10 }).split("\n")[1];
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
      }),
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
      }),
    ).toBe("Exit code: 124\nWall time: 10.0 seconds\nOutput:\ncommand timed out after 10000 milliseconds\n");
  });

  it("adds the total line count when truncation changed it", () => {
    expect(
      formatShellCommandResult({
        exitCode: 0,
        durationMs: 100,
        output: "aaaa\nbbbb\ncccc\ndddd\n",
        maxTokens: 2,
      }),
    ).toBe(
      "Exit code: 0\nWall time: 0.1 seconds\nTotal output lines: 4\nOutput:\naaaa…3 tokens truncated…ddd\n",
    );
  });

  it("omits the total line count when truncation kept it", () => {
    expect(
      formatShellCommandResult({ exitCode: 0, durationMs: 100, output: "abcdefghij", maxTokens: 1 }),
    ).toBe("Exit code: 0\nWall time: 0.1 seconds\nOutput:\nab…2 tokens truncated…ij");
  });

  it("truncates the timeout line with the rest of the content (44 bytes, budget 0)", () => {
    expect(
      formatShellCommandResult({
        exitCode: 124,
        durationMs: 5000,
        output: "x\n",
        maxTokens: 0,
        timedOut: true,
      }),
    ).toBe("Exit code: 124\nWall time: 5.0 seconds\nTotal output lines: 2\nOutput:\n…11 tokens truncated…");
  });
});
