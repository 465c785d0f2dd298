import { describe, expect, it } from "vitest";
import * as api from "./index.js";
import { ExecRequestSchema, ExecResultSchema, isConchError, toJsonSchema } from "./index.js";

describe("@conch/protocol public surface", () => {
  it("exports exactly these names", () => {
    expect(Object.keys(api).sort()).toEqual([
      "ASK_FOR_APPROVAL_POLICIES",
      "ArgvShellSchema",
      "AskForApprovalSchema",
      "BashSchema",
      "CONCH_ERROR_BRAND",
      "CONCH_ERROR_CODES",
      "ENV_INHERIT_POLICIES",
      "EnvPolicySchema",
      "ExecCommandSchema",
      "ExecRequestSchema",
      "ExecResultSchema",
      "NETWORK_ACCESS_MODES",
      "REVIEW_DECISIONS",
      "ReviewDecisionSchema",
      "SANDBOX_PERMISSIONS",
      "SANDBOX_POLICY_TYPES",
      "SandboxPolicySchema",
      "ShellCommandSchema",
      "ShellSchema",
      "TERMINAL_SIGNALS",
      "TOOL_LIMITS",
      "TOOL_PROFILES",
      "TOOL_PROFILE_NAMES",
      "TerminalCloseSchema",
      "TerminalListSchema",
      "TerminalOpenSchema",
      "TerminalReadSchema",
      "TerminalSignalSchema",
      "TerminalWriteSchema",
      "WriteStdinSchema",
      "isConchError",
      "toJsonSchema",
    ]);
  });
});

describe("ExecRequestSchema", () => {
  it("accepts a minimal request", () => {
    expect(ExecRequestSchema.parse({ argv: ["ls"], cwd: "/" })).toEqual({ argv: ["ls"], cwd: "/" });
  });

  it.each([
    [{ argv: [], cwd: "/" }, "argv"],
    [{ argv: ["ls", 1], cwd: "/" }, "argv.1"],
    [{ argv: ["ls"] }, "cwd"],
    [{ argv: ["ls"], cwd: "/", timeoutMs: -1 }, "timeoutMs"],
    [{ argv: ["ls"], cwd: "/", env: { inherit: "some" } }, "env.inherit"],
    [{ argv: ["ls"], cwd: "/", bogus: true }, ""],
  ])("rejects %j at %s", (input, path) => {
    const parsed = ExecRequestSchema.safeParse(input);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path.join(".")).toBe(path);
  });
});

describe("toJsonSchema", () => {
  it("exports the request schema with its required fields and no extra properties", () => {
    const schema = toJsonSchema(ExecRequestSchema);
    expect(schema.type).toBe("object");
    expect(schema.required).toEqual(["argv", "cwd"]);
    expect(schema.additionalProperties).toBe(false);
    expect(Object.keys(schema.properties as object)).toEqual([
      "argv",
      "cwd",
      "env",
      "timeoutMs",
      "killGraceMs",
      "drainTimeoutMs",
      "maxOutputBytes",
    ]);
  });

  it("marks every result field required", () => {
    const schema = toJsonSchema(ExecResultSchema);
    expect(schema.required).toEqual(Object.keys(ExecResultSchema.shape));
  });
});

describe("isConchError", () => {
  it("recognises the shared brand and nothing else", () => {
    const branded = Object.assign(new Error("x"), {
      code: "SPAWN_FAILED",
      [Symbol.for("conch.error")]: true,
    });
    expect(isConchError(branded)).toBe(true);
    expect(isConchError(new Error("x"))).toBe(false);
    expect(isConchError(null)).toBe(false);
    expect(isConchError("SPAWN_FAILED")).toBe(false);
  });
});
