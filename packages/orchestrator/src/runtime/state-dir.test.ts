import { describe, expect, it } from "vitest";
import { conchStateDir } from "./state-dir.js";

describe("conchStateDir", () => {
  it("uses an absolute XDG_STATE_HOME", () => {
    expect(conchStateDir({ env: { XDG_STATE_HOME: "/x/state", HOME: "/home/u" } })).toBe("/x/state/conch");
  });

  it("ignores a relative XDG_STATE_HOME and falls back to HOME", () => {
    expect(conchStateDir({ env: { XDG_STATE_HOME: "rel", HOME: "/home/u" } })).toBe(
      "/home/u/.local/state/conch",
    );
  });

  it("asks homedir() when HOME is missing", () => {
    expect(conchStateDir({ env: {}, homedir: () => "/h" })).toBe("/h/.local/state/conch");
  });
});
