import { describe, expect, it } from "vitest";
import { formatUnifiedExecResult } from "./unified-exec-result.js";

describe("formatUnifiedExecResult", () => {
  it("formats an exited process", () => {
    expect(
      formatUnifiedExecResult({
        chunkId: "a1b2c3",
        durationMs: 1234.56,
        exitCode: 0,
        originalTokenCount: 1,
        output: "hi\n",
      }),
    ).toBe(
      "Chunk ID: a1b2c3\nWall time: 1.2346 seconds\nProcess exited with code 0\nOriginal token count: 1\nOutput:\nhi\n",
    );
  });

  it("formats a running session, leaving out an empty chunk id and a missing token count", () => {
    expect(formatUnifiedExecResult({ chunkId: "", durationMs: 250, sessionId: 4242, output: "" })).toBe(
      "Wall time: 0.2500 seconds\nProcess running with session ID 4242\nOutput:\n",
    );
  });

  it("keeps negative exit codes and already-truncated output verbatim", () => {
    expect(
      formatUnifiedExecResult({
        chunkId: "ffffff",
        durationMs: 0,
        exitCode: -1,
        originalTokenCount: 25_000,
        output: "ab…24990 tokens truncated…yz",
      }),
    ).toBe(
      "Chunk ID: ffffff\nWall time: 0.0000 seconds\nProcess exited with code -1\nOriginal token count: 25000\nOutput:\nab…24990 tokens truncated…yz",
    );
  });

  it("rounds exact ties half to even like Rust's {:.4}", () => {
    const wall = (durationMs: number) =>
      formatUnifiedExecResult({ chunkId: "", durationMs, exitCode: 0, output: "" }).split("\n")[0];
    expect(wall(31.25)).toBe("Wall time: 0.0312 seconds");
    expect(wall(93.75)).toBe("Wall time: 0.0938 seconds");
    expect(wall(10_000)).toBe("Wall time: 10.0000 seconds");
  });
});
