import { readdirSync, readFileSync } from "node:fs";
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

  it("imports @conch/protocol for types only, so zod never loads at run time", () => {
    const srcDir = new URL(".", import.meta.url);
    const imports = readdirSync(srcDir, { recursive: true, encoding: "utf8" })
      .filter((file) => file.endsWith(".ts") && !file.endsWith(".test.ts"))
      .flatMap((file) => [
        ...readFileSync(new URL(file, srcDir), "utf8").matchAll(
          /^(import|export)\b[^;]*?"@conch\/protocol";/gm,
        ),
      ])
      .map(([statement]) => statement.split(/\s+/).slice(0, 2).join(" "));
    expect(imports).toEqual(["import type"]);
  });
});
