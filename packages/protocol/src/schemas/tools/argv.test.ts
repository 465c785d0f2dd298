import { describe, expect, it } from "vitest";
import { toJsonSchema } from "../json-schema.js";
import { ArgvShellSchema } from "./argv.js";

describe("ArgvShellSchema", () => {
  it("accepts an argv and defaults the timeout to 10 s", () => {
    expect(ArgvShellSchema.parse({ argv: ["git", "status"] })).toEqual({
      argv: ["git", "status"],
      timeout_seconds: 10,
    });
  });

  it("accepts a fractional timeout", () => {
    expect(ArgvShellSchema.parse({ argv: ["true"], timeout_seconds: 0.5 }).timeout_seconds).toBe(0.5);
  });

  it.each([
    [{ argv: "git status" }, "argv", "invalid_type"],
    [{ argv: [] }, "argv", "too_small"],
    [{ argv: ["git", null] }, "argv.1", "invalid_type"],
    [{ argv: ["true"], cwd: "" }, "cwd", "too_small"],
    [{ argv: ["true"], timeout_seconds: 0 }, "timeout_seconds", "too_small"],
    [{ argv: ["true"], command: ["true"] }, "", "unrecognized_keys"],
  ])("rejects %j at %j (%s)", (input, path, code) => {
    const issue = ArgvShellSchema.safeParse(input).error?.issues[0];
    expect(issue?.path.join(".")).toBe(path);
    expect(issue?.code).toBe(code);
  });

  it("requires only `argv`", () => {
    const schema = toJsonSchema(ArgvShellSchema);
    expect(schema.required).toEqual(["argv"]);
    expect(schema.additionalProperties).toBe(false);
    expect(Object.keys(schema.properties as object)).toEqual(["argv", "cwd", "timeout_seconds"]);
    expect(schema.properties).toMatchObject({ argv: { type: "array", minItems: 1 } });
  });
});
