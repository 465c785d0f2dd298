import { describe, expect, it } from "vitest";
import { TOOL_PROFILE_NAMES } from "../../tools/profiles.js";
import { toJsonSchema } from "../json-schema.js";
import { ArgvShellSchema } from "./argv.js";
import { ShellSchema } from "./codex.js";
import { TOOL_PROFILES } from "./profiles.js";

describe("TOOL_PROFILES", () => {
  it("has exactly these profiles and tools", () => {
    expect(Object.keys(TOOL_PROFILES)).toEqual([...TOOL_PROFILE_NAMES]);
    expect(
      Object.fromEntries(
        Object.entries(TOOL_PROFILES).map(([profile, tools]) => [profile, Object.keys(tools)]),
      ),
    ).toEqual({
      codex: ["shell_command", "exec_command", "write_stdin", "shell", "list_sessions"],
      bash: ["bash"],
      terminal: [
        "terminal_open",
        "terminal_write",
        "terminal_read",
        "terminal_signal",
        "terminal_close",
        "terminal_list",
      ],
      argv: ["shell"],
    });
  });

  it("gives `shell` a different schema in the codex and argv profiles", () => {
    expect(TOOL_PROFILES.codex.shell).toBe(ShellSchema);
    expect(TOOL_PROFILES.argv.shell).toBe(ArgvShellSchema);
  });

  it("describes every field of every tool and closes every object", () => {
    for (const tools of Object.values(TOOL_PROFILES)) {
      for (const schema of Object.values(tools)) {
        const json = toJsonSchema(schema);
        expect(json.type).toBe("object");
        expect(json.additionalProperties).toBe(false);
        for (const [field, property] of Object.entries(
          json.properties as Record<string, { description?: string }>,
        )) {
          expect(property.description, field).toMatch(/\S{2,}/);
        }
      }
    }
  });
});
