import { describe, expect, it } from "vitest";
import * as api from "./index.js";

describe("@conch/orchestrator public surface", () => {
  it("exports exactly these names", () => {
    expect(Object.keys(api).sort()).toEqual([
      "CONFIG_SANDBOX_MODES",
      "ORCHESTRATOR_ERROR_CODES",
      "OrchestratorError",
      "ToolOrchestrator",
      "answerPendingApproval",
      "conchSandboxWorkspace",
      "conchStateDir",
      "consoleLinks",
      "createAuditLog",
      "createRuntime",
      "createSpillStore",
      "createToolSet",
      "invalidResult",
      "isOrchestratorError",
      "listPendingApprovals",
      "listRecordings",
      "loadConfig",
      "platformSandboxRegistry",
      "recentAuditEntries",
      "recordingsDir",
      "sandboxChoiceLines",
      "serveApprovalChannel",
      "trustProject",
    ]);
  });
});
