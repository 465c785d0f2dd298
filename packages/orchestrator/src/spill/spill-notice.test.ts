import { describe, expect, it } from "vitest";
import { spillNotice } from "./spill-notice.js";

describe("spillNotice", () => {
  it("names the file and a known-safe sed range", () => {
    expect(spillNotice("/s/conch/spill/20250102T030405678Z-1a2b3c4d-shell_command.txt", 5242880)).toBe(
      "[Full output (5242880 bytes) saved to /s/conch/spill/20250102T030405678Z-1a2b3c4d-shell_command.txt; " +
        "read a range of lines with: sed -n '1,200p' /s/conch/spill/20250102T030405678Z-1a2b3c4d-shell_command.txt]",
    );
  });

  it("says when the file itself lost its middle", () => {
    expect(spillNotice("/s/a.txt", 100_000_000, 32_891_234)).toBe(
      "[Output (100000000 bytes) saved to /s/a.txt with the middle 32891234 bytes omitted; " +
        "read a range of lines with: sed -n '1,200p' /s/a.txt]",
    );
  });

  it("single-quotes a path the shell would not read literally", () => {
    expect(spillNotice("/home/o'b r/x.txt", 10)).toBe(
      "[Full output (10 bytes) saved to '/home/o'\\''b r/x.txt'; " +
        "read a range of lines with: sed -n '1,200p' '/home/o'\\''b r/x.txt']",
    );
  });
});
