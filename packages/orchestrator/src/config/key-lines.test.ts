import { describe, expect, it } from "vitest";
import { keyLine } from "./key-lines.js";

describe("keyLine", () => {
  it("finds an assignment, a quoted key, a dotted key and a table header", () => {
    const text = [
      '# sandbox = "x"',
      "",
      'sandbox = "read-only"',
      '"network_access" = true',
      "a.b = 1",
      "[t]",
    ].join("\n");
    expect(keyLine(text, "sandbox")).toBe(3);
    expect(keyLine(text, "network_access")).toBe(4);
    expect(keyLine(text, "a")).toBe(5);
    expect(keyLine(text, "t")).toBe(6);
  });

  it("skips multi-line strings and keys inside tables, and falls back to line 1", () => {
    const text = ['x = """', 'sandbox = "no"', '"""', "[t]", "sandbox = 1"].join("\n");
    expect(keyLine(text, "sandbox")).toBe(1);
  });
});
