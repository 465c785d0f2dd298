import { describe, expect, it } from "vitest";
import type { ToolResult } from "../tool-result.js";
import { toJsonSchema } from "./json-schema.js";
import { ToolResultSchema } from "./tool-result.js";

const ran: ToolResult = {
  tool: "shell_command",
  status: "ok",
  exit_code: 0,
  wall_time_ms: 12,
  timed_out: false,
  canceled: false,
  sandbox: "bwrap",
  denied: false,
  escalated: false,
  truncated: false,
  spill_path: null,
  rejection: null,
  error_code: null,
  session_id: null,
  running: false,
  unused_arguments: [],
};

describe("ToolResultSchema", () => {
  it.each<[string, Partial<ToolResult>]>([
    ["a command that ran", {}],
    ["a running session", { tool: "exec_command", exit_code: null, session_id: 4242, running: true }],
    ["a rejection", { status: "rejected", exit_code: null, sandbox: null, rejection: "forbidden" }],
    ["invalid arguments", { status: "invalid", exit_code: null, error_code: "INVALID_REQUEST" }],
    ["a command that could not start", { status: "failed", exit_code: null, error_code: "SPAWN_FAILED" }],
    ["an argument it did not use", { unused_arguments: ["justification"] }],
  ])("accepts %s", (_name, fields) => {
    const result = { ...ran, ...fields };
    expect(ToolResultSchema.parse(result)).toEqual(result);
  });

  it.each([
    [{ ...ran, status: "done" }, "status", "invalid_value"],
    [{ ...ran, rejection: "because" }, "rejection", "invalid_value"],
    [{ ...ran, exit_code: 1.5 }, "exit_code", "invalid_type"],
    [{ ...ran, wall_time_ms: -1 }, "wall_time_ms", "too_small"],
    [{ ...ran, exitCode: 0 }, "", "unrecognized_keys"],
    [(({ running: _, ...rest }) => rest)(ran), "running", "invalid_type"],
  ])("rejects %j at %j (%s)", (input, path, code) => {
    const issue = ToolResultSchema.safeParse(input).error?.issues[0];
    expect(issue?.path.join(".")).toBe(path);
    expect(issue?.code).toBe(code);
  });

  it("requires every field and describes each", () => {
    const schema = toJsonSchema(ToolResultSchema);
    expect(schema.required).toEqual(Object.keys(ran));
    expect(schema.additionalProperties).toBe(false);
    for (const [field, property] of Object.entries(
      schema.properties as Record<string, { description?: string }>,
    )) {
      expect(property.description, field).toMatch(/\S{2,}/);
    }
  });
});
