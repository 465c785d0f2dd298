import { describe, expect, it } from "vitest";
import { withHostGitGuard } from "./host-git-guard.js";

describe("withHostGitGuard", () => {
  it("gives git no hooks, no fsmonitor and no ext:: transport through the environment", () => {
    expect(withHostGitGuard(undefined, {})).toEqual({
      set: {
        GIT_CONFIG_COUNT: "3",
        GIT_CONFIG_KEY_0: "core.hooksPath",
        GIT_CONFIG_VALUE_0: "/dev/null",
        GIT_CONFIG_KEY_1: "core.fsmonitor",
        GIT_CONFIG_VALUE_1: "false",
        GIT_CONFIG_KEY_2: "protocol.ext.allow",
        GIT_CONFIG_VALUE_2: "never",
        GIT_CONFIG_PARAMETERS: "'core.hooksPath=/dev/null' 'core.fsmonitor=false' 'protocol.ext.allow=never'",
      },
    });
  });

  it("comes after the pairs the person's environment or the policy already gives, and keeps the policy", () => {
    expect(
      withHostGitGuard(
        { inherit: "core", set: { A: "1" } },
        { GIT_CONFIG_COUNT: "2", GIT_CONFIG_PARAMETERS: "'a.b=c'" },
      ),
    ).toEqual({
      inherit: "core",
      set: {
        A: "1",
        GIT_CONFIG_COUNT: "5",
        GIT_CONFIG_KEY_2: "core.hooksPath",
        GIT_CONFIG_VALUE_2: "/dev/null",
        GIT_CONFIG_KEY_3: "core.fsmonitor",
        GIT_CONFIG_VALUE_3: "false",
        GIT_CONFIG_KEY_4: "protocol.ext.allow",
        GIT_CONFIG_VALUE_4: "never",
        GIT_CONFIG_PARAMETERS:
          "'a.b=c' 'core.hooksPath=/dev/null' 'core.fsmonitor=false' 'protocol.ext.allow=never'",
      },
    });
    expect(
      withHostGitGuard({ set: { GIT_CONFIG_COUNT: "1" } }, { GIT_CONFIG_COUNT: "7" }).set?.GIT_CONFIG_COUNT,
    ).toBe("4");
    expect(withHostGitGuard(undefined, { GIT_CONFIG_COUNT: "x" }).set?.GIT_CONFIG_KEY_0).toBe(
      "core.hooksPath",
    );
  });
});
