import { describe, expect, it } from "vitest";
import { toJsonSchema } from "../json-schema.js";
import { BashSchema } from "./bash.js";

describe("BashSchema", () => {
  it("defaults the timeout to 120000 ms", () => {
    expect(BashSchema.parse({ command: "ls", description: "List files in the current directory" })).toEqual({
      command: "ls",
      description: "List files in the current directory",
      timeout_ms: 120_000,
    });
  });

  it.each([
    [{ description: "List files" }, "command", "invalid_type"],
    [{ command: "ls" }, "description", "invalid_type"],
    [{ command: "ls", description: "" }, "description", "too_small"],
    [{ command: "ls", description: "x", timeout_ms: "60s" }, "timeout_ms", "invalid_type"],
    [{ command: "ls", description: "x", workdir: 3 }, "workdir", "invalid_type"],
    [{ command: "ls", description: "x", sandbox_permissions: "use_default" }, "", "unrecognized_keys"],
  ])("rejects %j at %j (%s)", (input, path, code) => {
    const issue = BashSchema.safeParse(input).error?.issues[0];
    expect(issue?.path.join(".")).toBe(path);
    expect(issue?.code).toBe(code);
  });

  it("requires `command` and `description`", () => {
    const schema = toJsonSchema(BashSchema);
    expect(schema.required).toEqual(["command", "description"]);
    expect(schema.additionalProperties).toBe(false);
    expect(Object.keys(schema.properties as object)).toEqual([
      "command",
      "description",
      "workdir",
      "timeout_ms",
      "login",
    ]);
    expect(schema.properties).toMatchObject({ timeout_ms: { default: 120_000 } });
  });
});
