import { describe, expect, expectTypeOf, it } from "vitest";
import type { z } from "zod";
import type {
  ApprovalPolicy,
  ArgvShellParams,
  BashParams,
  CodexSandboxPolicy,
  EnvPolicy,
  ExecCommandParams,
  ExecRequest,
  ExecResult,
  ReviewDecision,
  ShellCommandParams,
  ShellParams,
  TerminalCloseParams,
  TerminalListParams,
  TerminalOpenParams,
  TerminalReadParams,
  TerminalSignalParams,
  TerminalWriteParams,
  ToolResult,
  WriteStdinParams,
} from "../index.js";
import * as api from "./index.js";
import {
  type ApprovalPolicySchema,
  type ArgvShellSchema,
  type BashSchema,
  type CodexSandboxPolicySchema,
  type EnvPolicySchema,
  type ExecCommandSchema,
  ExecRequestSchema,
  ExecResultSchema,
  type ReviewDecisionSchema,
  type ShellCommandSchema,
  type ShellSchema,
  type TerminalCloseSchema,
  type TerminalListSchema,
  type TerminalOpenSchema,
  type TerminalReadSchema,
  type TerminalSignalSchema,
  type TerminalWriteSchema,
  type ToolResultSchema,
  toJsonSchema,
  type WriteStdinSchema,
} from "./index.js";

describe("@conch/protocol/schemas public surface", () => {
  it("exports exactly these names", () => {
    expect(Object.keys(api).sort()).toEqual([
      "ApprovalPolicySchema",
      "ArgvShellSchema",
      "BashSchema",
      "CodexSandboxPolicySchema",
      "EnvPolicySchema",
      "ExecCommandSchema",
      "ExecRequestSchema",
      "ExecResultSchema",
      "ListSessionsSchema",
      "ReviewDecisionSchema",
      "ShellCommandSchema",
      "ShellSchema",
      "TOOL_PROFILES",
      "TerminalCloseSchema",
      "TerminalListSchema",
      "TerminalOpenSchema",
      "TerminalReadSchema",
      "TerminalSignalSchema",
      "TerminalWriteSchema",
      "ToolResultSchema",
      "WriteStdinSchema",
      "toJsonSchema",
    ]);
  });

  // Each schema parses to exactly its interface in the root entry, field for field and optional for
  // optional (the `satisfies` beside each schema checks one direction only); tsc fails on any drift.
  it("parses each shape to exactly its root interface", () => {
    expectTypeOf<z.output<typeof EnvPolicySchema>>().toEqualTypeOf<EnvPolicy>();
    expectTypeOf<z.output<typeof ExecRequestSchema>>().toEqualTypeOf<ExecRequest>();
    expectTypeOf<z.output<typeof ExecResultSchema>>().toEqualTypeOf<ExecResult>();
    expectTypeOf<z.output<typeof ApprovalPolicySchema>>().toEqualTypeOf<ApprovalPolicy>();
    expectTypeOf<z.output<typeof ReviewDecisionSchema>>().toEqualTypeOf<ReviewDecision>();
    expectTypeOf<z.output<typeof CodexSandboxPolicySchema>>().toEqualTypeOf<CodexSandboxPolicy>();
    expectTypeOf<z.output<typeof ToolResultSchema>>().toEqualTypeOf<ToolResult>();
    expectTypeOf<z.output<typeof ShellCommandSchema>>().toEqualTypeOf<ShellCommandParams>();
    expectTypeOf<z.output<typeof ExecCommandSchema>>().toEqualTypeOf<ExecCommandParams>();
    expectTypeOf<z.output<typeof WriteStdinSchema>>().toEqualTypeOf<WriteStdinParams>();
    expectTypeOf<z.output<typeof ShellSchema>>().toEqualTypeOf<ShellParams>();
    expectTypeOf<z.output<typeof BashSchema>>().toEqualTypeOf<BashParams>();
    expectTypeOf<z.output<typeof ArgvShellSchema>>().toEqualTypeOf<ArgvShellParams>();
    expectTypeOf<z.output<typeof TerminalOpenSchema>>().toEqualTypeOf<TerminalOpenParams>();
    expectTypeOf<z.output<typeof TerminalWriteSchema>>().toEqualTypeOf<TerminalWriteParams>();
    expectTypeOf<z.output<typeof TerminalReadSchema>>().toEqualTypeOf<TerminalReadParams>();
    expectTypeOf<z.output<typeof TerminalSignalSchema>>().toEqualTypeOf<TerminalSignalParams>();
    expectTypeOf<z.output<typeof TerminalCloseSchema>>().toEqualTypeOf<TerminalCloseParams>();
    expectTypeOf<z.output<typeof TerminalListSchema>>().toEqualTypeOf<TerminalListParams>();
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
