import { describe, expect, it } from "vitest";
import { jsonLine, snakeKeys } from "./json-line.js";

describe("jsonLine", () => {
  it("escapes what a terminal could act on or hide, and still parses to the same value", () => {
    const value = { text: "a\x1b[31mb\x7fc\x9b31md\u202ee\u200bf\u{e0041}g é 日本 😀 \\u{1b}" };
    const line = jsonLine(value);
    expect(line).toBe(
      '{"text":"a\\u001b[31mb\\u007fc\\u009b31md\\u202ee\\u200bf\\udb40\\udc41g é 日本 😀 \\\\u{1b}"}\n',
    );
    expect(JSON.parse(line)).toEqual(value);
  });

  it("snakeKeys: every key snake_case, however deep; values untouched", () => {
    expect(
      snakeKeys({ matchedRules: [{ type: "prefixRuleMatch", matchedPrefix: ["git"] }], safe: true, n: null }),
    ).toEqual({ matched_rules: [{ type: "prefixRuleMatch", matched_prefix: ["git"] }], safe: true, n: null });
  });
});
