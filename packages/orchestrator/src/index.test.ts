import { describe, expect, it } from "vitest";
import * as api from "./index.js";

describe("@conch/orchestrator public surface", () => {
  it("exports exactly these names", () => {
    expect(Object.keys(api).sort()).toEqual([
      "APPROX_BYTES_PER_TOKEN",
      "AUDIT_DECIDERS",
      "CHUNK_ID_LENGTH",
      "CONFIG_APPROVAL_POLICIES",
      "CONFIG_ERROR_CODES",
      "CONFIG_KEYS",
      "CONFIG_SANDBOX_MODES",
      "CONFIG_TOOL_PROFILES",
      "ConfigError",
      "DEFAULT_MAX_OUTPUT_TOKENS",
      "DEFAULT_SPILL_MAX_FILE_BYTES",
      "DEFAULT_SPILL_RETENTION_DAYS",
      "DEFAULT_SPILL_RETENTION_MS",
      "DEFAULT_SPILL_SWEEP_INTERVAL_MS",
      "ENV_INHERIT_MODES",
      "SPILL_NOTICE_EXAMPLE_LINES",
      "approxBytesForTokens",
      "approxTokenCount",
      "conchConfigDir",
      "conchStateDir",
      "createAuditLog",
      "createSpillStore",
      "formatShellCommandResult",
      "formatUnifiedExecResult",
      "generateChunkId",
      "isConfigError",
      "loadConfig",
      "spillNotice",
      "truncateMiddle",
    ]);
  });
});
