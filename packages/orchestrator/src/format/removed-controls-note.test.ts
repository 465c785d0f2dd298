import { describe, expect, it } from "vitest";
import { removedControlsNote } from "./removed-controls-note.js";

describe("removedControlsNote", () => {
  it("says how many were removed, once, and that a saved file keeps them", () => {
    expect(removedControlsNote(0, true)).toBeNull();
    expect(removedControlsNote(1, false)).toBe("[Conch removed 1 terminal control code from this output]");
    expect(removedControlsNote(12, true)).toBe(
      "[Conch removed 12 terminal control codes from this output; the saved file keeps them]",
    );
  });
});
