import { describe, expect, it } from "vitest";
import * as api from "./index.js";

describe("@conch/shell-detect public surface", () => {
  it("exports exactly these names", () => {
    expect(Object.keys(api).sort()).toEqual([
      "SHELL_DETECT_ERROR_CODES",
      "SHELL_TYPES",
      "ShellDetectError",
      "captureShellSnapshot",
      "deriveExecArgs",
      "detectShell",
      "isShellDetectError",
      "isSnapshotCurrent",
      "resolveShell",
      "shellTypeOf",
      "snapshotExecArgs",
    ]);
  });
});
