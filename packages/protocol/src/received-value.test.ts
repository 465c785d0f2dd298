import { describe, expect, it } from "vitest";
import { expectedReceived, receivedValue } from "./received-value.js";

describe("receivedValue", () => {
  it.each([
    [undefined, "nothing"],
    [null, "null"],
    ["ls", '"ls"'],
    ["a\nb", '"a\\nb"'],
    [1.5, "1.5"],
    [false, "false"],
    [10n, "10"],
    [[], "an empty array"],
    [["ls", 1, null], '["ls", 1, null]'],
    [[{}], "an array of 1"],
    [Array.from({ length: 30 }, (_, i) => i), "an array of 30"],
    [{ a: 1 }, "an object"],
    [new Date(0), "a datetime"],
    [() => 1, "a function"],
    [Symbol("s"), "a symbol"],
  ])("shows %o as %s", (value, shown) => {
    expect(receivedValue(value)).toBe(shown);
  });

  it("cuts a long string after 60 characters", () => {
    expect(receivedValue("x".repeat(100))).toBe(`"${"x".repeat(60)}…"`);
  });
});

describe("expectedReceived", () => {
  it("is the one phrasing: FIELD: expected WHAT, received VALUE", () => {
    expect(expectedReceived("timeout_ms", "an integer", 1.5)).toBe(
      "timeout_ms: expected an integer, received 1.5",
    );
  });
});
