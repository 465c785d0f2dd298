import { describe, expect, it } from "vitest";
import * as api from "./index.js";

describe("@conch/orchestrator public surface", () => {
  it("exports exactly these names", () => {
    expect(Object.keys(api).sort()).toEqual([
      "APPROX_BYTES_PER_TOKEN",
      "AUDIT_DECIDERS",
      "CHUNK_ID_LENGTH",
      "CONFIG_KEYS",
      "CONFIG_SANDBOX_MODES",
      "DEFAULT_MAX_OUTPUT_TOKENS",
      "DEFAULT_SPILL_MAX_FILE_BYTES",
      "DEFAULT_SPILL_RETENTION_DAYS",
      "DEFAULT_SPILL_RETENTION_MS",
      "DEFAULT_SPILL_SWEEP_INTERVAL_MS",
      "ORCHESTRATOR_ERROR_CODES",
      "OrchestratorError",
      "REJECTED_BY_USER",
      "RETRY_WITHOUT_SANDBOX_REASON",
      "SPILL_NOTICE_EXAMPLE_LINES",
      "ToolOrchestrator",
      "approxBytesForTokens",
      "approxTokenCount",
      "conchConfigDir",
      "conchSandboxWorkspace",
      "conchStateDir",
      "createAuditLog",
      "createRuntime",
      "createSpillStore",
      "createToolSet",
      "formatShellCommandResult",
      "formatUnifiedExecResult",
      "generateChunkId",
      "invalidResult",
      "isOrchestratorError",
      "loadConfig",
      "loadRulesDirs",
      "spillNotice",
      "truncateMiddle",
      "trustProject",
    ]);
  });
});
