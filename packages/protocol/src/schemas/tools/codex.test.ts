import { describe, expect, it } from "vitest";
import { toJsonSchema } from "../json-schema.js";
import { ExecCommandSchema, ShellCommandSchema, ShellSchema, WriteStdinSchema } from "./codex.js";

describe("ShellCommandSchema", () => {
  it("fills Codex's defaults into a minimal call", () => {
    expect(ShellCommandSchema.parse({ command: "ls" })).toEqual({
      command: "ls",
      timeout_ms: 10_000,
      sandbox_permissions: "use_default",
    });
  });

  it("keeps every field it is given", () => {
    const full = {
      command: "git pull",
      workdir: "repo",
      timeout_ms: 5000,
      login: false,
      sandbox_permissions: "require_escalated",
      justification: "Do you want to pull the latest changes?",
      prefix_rule: ["git", "pull"],
    };
    expect(ShellCommandSchema.parse(full)).toEqual(full);
  });

  it.each([
    [{}, "command", "invalid_type"],
    [{ command: ["ls"] }, "command", "invalid_type"],
    [{ command: "" }, "command", "too_small"],
    [{ command: "ls", timeout_ms: 0 }, "timeout_ms", "too_small"],
    [{ command: "ls", timeout_ms: 1.5 }, "timeout_ms", "invalid_type"],
    [{ command: "ls", timeout_ms: 2_147_483_648 }, "timeout_ms", "too_big"],
    [{ command: "ls", login: "yes" }, "login", "invalid_type"],
    [{ command: "ls", sandbox_permissions: "escalate" }, "sandbox_permissions", "invalid_value"],
    [{ command: "ls", prefix_rule: [] }, "prefix_rule", "too_small"],
    [{ command: "ls", prefix_rule: ["git", ""] }, "prefix_rule.1", "too_small"],
    [{ command: "ls", cmd: "ls" }, "", "unrecognized_keys"],
  ])("rejects %j at %j (%s)", (input, path, code) => {
    const issue = ShellCommandSchema.safeParse(input).error?.issues[0];
    expect(issue?.path.join(".")).toBe(path);
    expect(issue?.code).toBe(code);
  });

  it("names the unknown field", () => {
    const issue = ShellCommandSchema.safeParse({ command: "ls", timeout: 5 }).error?.issues[0];
    expect(issue).toMatchObject({ code: "unrecognized_keys", keys: ["timeout"], path: [] });
  });

  it("shows only `command` as required, closes the object and shows the defaults", () => {
    const schema = toJsonSchema(ShellCommandSchema);
    expect(schema.required).toEqual(["command"]);
    expect(schema.additionalProperties).toBe(false);
    expect(Object.keys(schema.properties as object)).toEqual([
      "command",
      "workdir",
      "timeout_ms",
      "login",
      "sandbox_permissions",
      "justification",
      "prefix_rule",
      "wait_for_approval_ms",
    ]);
    expect(schema.properties).toMatchObject({
      timeout_ms: { type: "integer", default: 10_000 },
      sandbox_permissions: { enum: ["use_default", "require_escalated"], default: "use_default" },
      prefix_rule: { type: "array", items: { type: "string" } },
    });
  });
});

describe("ExecCommandSchema", () => {
  it("fills Codex's defaults into a minimal call", () => {
    expect(ExecCommandSchema.parse({ cmd: "bash -i" })).toEqual({
      cmd: "bash -i",
      tty: false,
      yield_time_ms: 10_000,
      max_output_tokens: 10_000,
      sandbox_permissions: "use_default",
    });
  });

  it.each([0, 100, 60_000])("accepts yield_time_ms %d, which the runtime clamps", (ms) => {
    expect(ExecCommandSchema.parse({ cmd: "x", yield_time_ms: ms }).yield_time_ms).toBe(ms);
  });

  it.each([
    [{ cmd: 1 }, "cmd", "invalid_type"],
    [{ command: "ls" }, "cmd", "invalid_type"],
    [{ cmd: "x", tty: "true" }, "tty", "invalid_type"],
    [{ cmd: "x", yield_time_ms: -1 }, "yield_time_ms", "too_small"],
    [{ cmd: "x", yield_time_ms: "500" }, "yield_time_ms", "invalid_type"],
    [{ cmd: "x", max_output_tokens: 0 }, "max_output_tokens", "too_small"],
    [{ cmd: "x", shell: "" }, "shell", "too_small"],
    [{ cmd: "x", justification: "" }, "justification", "too_small"],
    [{ cmd: "x", session_id: 1 }, "", "unrecognized_keys"],
  ])("rejects %j at %j (%s)", (input, path, code) => {
    const issue = ExecCommandSchema.safeParse(input).error?.issues[0];
    expect(issue?.path.join(".")).toBe(path);
    expect(issue?.code).toBe(code);
  });

  it("has Codex's fields, `cmd` required and no extra properties", () => {
    const schema = toJsonSchema(ExecCommandSchema);
    expect(schema.required).toEqual(["cmd"]);
    expect(schema.additionalProperties).toBe(false);
    expect(Object.keys(schema.properties as object).sort()).toEqual([
      "cmd",
      "justification",
      "login",
      "max_output_tokens",
      "prefix_rule",
      "sandbox_permissions",
      "shell",
      "tty",
      "wait_for_approval_ms",
      "workdir",
      "yield_time_ms",
    ]);
    expect(schema.properties).toMatchObject({
      tty: { default: false },
      yield_time_ms: { default: 10_000 },
      max_output_tokens: { default: 10_000 },
    });
  });
});

describe("WriteStdinSchema", () => {
  it("defaults to an empty poll with a 250 ms yield", () => {
    expect(WriteStdinSchema.parse({ session_id: 4242 })).toEqual({
      session_id: 4242,
      chars: "",
      yield_time_ms: 250,
      max_output_tokens: 10_000,
    });
  });

  it("leaves unknown ids to the session store", () => {
    expect(WriteStdinSchema.parse({ session_id: 7, chars: "\u0003" })).toMatchObject({ session_id: 7 });
  });

  it.each([
    [{}, "session_id", "invalid_type"],
    [{ session_id: "4242" }, "session_id", "invalid_type"],
    [{ session_id: 42.5 }, "session_id", "invalid_type"],
    [{ session_id: 4242, chars: 3 }, "chars", "invalid_type"],
    [{ session_id: 4242, yield_time_ms: -5 }, "yield_time_ms", "too_small"],
    [{ session_id: 4242, input: "x" }, "", "unrecognized_keys"],
  ])("rejects %j at %j (%s)", (input, path, code) => {
    const issue = WriteStdinSchema.safeParse(input).error?.issues[0];
    expect(issue?.path.join(".")).toBe(path);
    expect(issue?.code).toBe(code);
  });

  it("requires only `session_id`", () => {
    const schema = toJsonSchema(WriteStdinSchema);
    expect(schema.required).toEqual(["session_id"]);
    expect(schema.additionalProperties).toBe(false);
    expect(Object.keys(schema.properties as object)).toEqual([
      "session_id",
      "chars",
      "yield_time_ms",
      "max_output_tokens",
    ]);
    expect(schema.properties).toMatchObject({ chars: { default: "" }, yield_time_ms: { default: 250 } });
  });
});

describe("ShellSchema (legacy argv shell)", () => {
  it("accepts an argv array", () => {
    expect(ShellSchema.parse({ command: ["bash", "-lc", "ls"] })).toEqual({
      command: ["bash", "-lc", "ls"],
      timeout_ms: 10_000,
      sandbox_permissions: "use_default",
    });
  });

  it.each([
    [{ command: "ls" }, "command", "invalid_type"],
    [{ command: [] }, "command", "too_small"],
    [{ command: ["ls", 1] }, "command.1", "invalid_type"],
    [{ command: ["ls"], login: true }, "", "unrecognized_keys"],
  ])("rejects %j at %j (%s)", (input, path, code) => {
    const issue = ShellSchema.safeParse(input).error?.issues[0];
    expect(issue?.path.join(".")).toBe(path);
    expect(issue?.code).toBe(code);
  });

  it("requires only `command`", () => {
    const schema = toJsonSchema(ShellSchema);
    expect(schema.required).toEqual(["command"]);
    expect(schema.additionalProperties).toBe(false);
    expect(Object.keys(schema.properties as object)).toEqual([
      "command",
      "workdir",
      "timeout_ms",
      "sandbox_permissions",
      "justification",
      "prefix_rule",
      "wait_for_approval_ms",
    ]);
  });
});

describe("require_escalated needs a justification", () => {
  const schemas = [
    ["shell_command", ShellCommandSchema, { command: "git pull" }],
    ["exec_command", ExecCommandSchema, { cmd: "git pull" }],
    ["shell", ShellSchema, { command: ["git", "pull"] }],
  ] as const;

  it.each(schemas)(
    "%s: without one, the issue names `justification` and what it is for",
    (_tool, schema, base) => {
      const escalated = { ...base, sandbox_permissions: "require_escalated" };
      expect(schema.safeParse(escalated).error?.issues).toEqual([
        {
          code: "custom",
          path: ["justification"],
          message:
            'required with sandbox_permissions "require_escalated": one short question, shown to the user, ' +
            "that says why the command must run outside the sandbox",
        },
      ]);
      expect(schema.safeParse({ ...escalated, justification: "Pull the branch?" }).success).toBe(true);
    },
  );

  it.each(schemas)("%s: a justification without escalation is still valid", (_tool, schema, base) => {
    expect(schema.safeParse({ ...base, justification: "Pull the branch?" }).success).toBe(true);
    expect(schema.safeParse({ ...base, sandbox_permissions: "use_default" }).success).toBe(true);
  });
});
