import { describe, expect, it } from "vitest";
import { removedControlsNote } from "./removed-controls-note.js";

describe("removedControlsNote", () => {
  it("says how many were removed, once", () => {
    expect(removedControlsNote(0)).toBeNull();
    expect(removedControlsNote(1)).toBe("[Conch removed 1 terminal control code from this output]");
    expect(removedControlsNote(12)).toBe("[Conch removed 12 terminal control codes from this output]");
  });
});
