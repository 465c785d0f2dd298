import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { toJsonSchema } from "../json-schema.js";
import {
  TerminalCloseSchema,
  TerminalListSchema,
  TerminalOpenSchema,
  TerminalReadSchema,
  TerminalSignalSchema,
  TerminalWriteSchema,
} from "./terminal.js";

const cases: [string, z.ZodObject, unknown, unknown, string[], string[]][] = [
  [
    "terminal_open",
    TerminalOpenSchema,
    { command: "python3" },
    { command: "python3", tty: true },
    ["command"],
    ["command", "cwd", "tty"],
  ],
  [
    "terminal_write",
    TerminalWriteSchema,
    { id: 4242, input: "1+1\n" },
    { id: 4242, input: "1+1\n" },
    ["id", "input"],
    ["id", "input"],
  ],
  ["terminal_read", TerminalReadSchema, { id: 4242 }, { id: 4242, wait_ms: 250 }, ["id"], ["id", "wait_ms"]],
  [
    "terminal_signal",
    TerminalSignalSchema,
    { id: 4242, signal: "INT" },
    { id: 4242, signal: "INT" },
    ["id", "signal"],
    ["id", "signal"],
  ],
  ["terminal_close", TerminalCloseSchema, { id: 4242 }, { id: 4242 }, ["id"], ["id"]],
  ["terminal_list", TerminalListSchema, {}, {}, [], []],
];

describe.each(cases)("%s", (_name, schema, minimal, parsed, required, properties) => {
  it("accepts a minimal call", () => {
    expect(schema.parse(minimal)).toEqual(parsed);
  });

  it("rejects an unknown field", () => {
    const issue = schema.safeParse({ ...(minimal as object), extra: 1 }).error?.issues[0];
    expect(issue).toMatchObject({ code: "unrecognized_keys", keys: ["extra"], path: [] });
  });

  it("has the expected JSON Schema", () => {
    const json = toJsonSchema(schema);
    expect(json.additionalProperties).toBe(false);
    // zod omits an empty `required` list.
    expect(json.required ?? []).toEqual(required);
    expect(Object.keys(json.properties as object)).toEqual(properties);
  });
});

describe("terminal argument checks", () => {
  it.each([
    [{ command: "" }, "command", "too_small", TerminalOpenSchema],
    [{ command: "vim", tty: 1 }, "tty", "invalid_type", TerminalOpenSchema],
    [{ id: "4242", input: "x" }, "id", "invalid_type", TerminalWriteSchema],
    [{ id: 4242, input: "" }, "input", "too_small", TerminalWriteSchema],
    [{ id: 4242, wait_ms: -1 }, "wait_ms", "too_small", TerminalReadSchema],
    [{ id: 4242, signal: "SIGINT" }, "signal", "invalid_value", TerminalSignalSchema],
    [{ id: 4242 }, "signal", "invalid_value", TerminalSignalSchema],
    [{ id: 1.5 }, "id", "invalid_type", TerminalCloseSchema],
  ] as const)("rejects %j at %j (%s)", (input, path, code, schema) => {
    const issue = schema.safeParse(input).error?.issues[0];
    expect(issue?.path.join(".")).toBe(path);
    expect(issue?.code).toBe(code);
  });

  it("accepts every signal name", () => {
    for (const signal of ["INT", "TERM", "KILL", "HUP"]) {
      expect(TerminalSignalSchema.parse({ id: 1000, signal })).toEqual({ id: 1000, signal });
    }
  });
});
