import { describe, expect, it } from "vitest";
import * as api from "./index.js";

describe("@conch/orchestrator public surface", () => {
  it("exports exactly these names", () => {
    expect(Object.keys(api).sort()).toEqual([
      "APPROX_BYTES_PER_TOKEN",
      "CHUNK_ID_LENGTH",
      "approxBytesForTokens",
      "approxTokenCount",
      "formatShellCommandResult",
      "formatUnifiedExecResult",
      "generateChunkId",
      "truncateMiddle",
    ]);
  });
});
