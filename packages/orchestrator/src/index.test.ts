import { describe, expect, it } from "vitest";
import * as api from "./index.js";

describe("@conch/orchestrator public surface", () => {
  it("exports exactly these names", () => {
    expect(Object.keys(api).sort()).toEqual([
      "APPROX_BYTES_PER_TOKEN",
      "AUDIT_DECIDERS",
      "CHUNK_ID_LENGTH",
      "DEFAULT_SPILL_MAX_FILE_BYTES",
      "DEFAULT_SPILL_RETENTION_MS",
      "DEFAULT_SPILL_SWEEP_INTERVAL_MS",
      "SPILL_NOTICE_EXAMPLE_LINES",
      "approxBytesForTokens",
      "approxTokenCount",
      "conchStateDir",
      "createAuditLog",
      "createSpillStore",
      "formatShellCommandResult",
      "formatUnifiedExecResult",
      "generateChunkId",
      "spillNotice",
      "truncateMiddle",
    ]);
  });
});
