import { describe, expect, it } from "vitest";
import { shlexJoin, shlexQuote, shlexSplit } from "./shlex.js";

describe("shlexSplit", () => {
  // The split table of the Rust `shlex` crate that Codex uses for string examples.
  it.each<[string, string[] | null]>([
    ["foo$baz", ["foo$baz"]],
    ["foo baz", ["foo", "baz"]],
    ['foo"bar"baz', ["foobarbaz"]],
    ['foo "bar"baz', ["foo", "barbaz"]],
    ["   foo \nbar", ["foo", "bar"]],
    ["foo\\\nbar", ["foobar"]],
    ['"foo\\\nbar"', ["foobar"]],
    ["'baz\\$b'", ["baz\\$b"]],
    ["'baz\\''", null],
    ["\\", null],
    ['"\\', null],
    ["'\\", null],
    ['"', null],
    ["'", null],
    ["foo #bar\nbaz", ["foo", "baz"]],
    ["foo #bar", ["foo"]],
    ["foo#bar", ["foo#bar"]],
    ['foo"#bar', null],
    ["'\\n'", ["\\n"]],
    ["'\\\\n'", ["\\\\n"]],
  ])("splits %j", (input, expected) => {
    expect(shlexSplit(input)).toEqual(expected);
  });

  it('keeps a backslash in double quotes unless it escapes $ ` " \\ or a newline', () => {
    expect(shlexSplit('"a\\$b\\`c\\"d\\\\e\\qf"')).toEqual(['a$b`c"d\\e\\qf']);
    expect(shlexSplit("a\\ b 'c d' \"\" ''")).toEqual(["a b", "c d", "", ""]);
    expect(shlexSplit("git --config color.status=always status")).toEqual([
      "git",
      "--config",
      "color.status=always",
      "status",
    ]);
    expect(shlexSplit("  \t\n")).toEqual([]);
  });
});

describe("shlexQuote", () => {
  it("leaves plain words alone and single-quotes the rest", () => {
    expect(shlexJoin(["git", "commit", "-m", "it's done", "", "a$b", "x=1,y:2@3%"])).toBe(
      `git commit -m 'it'"'"'s done' '' 'a$b' x=1,y:2@3%`,
    );
  });

  it.each(["it's", 'say "hi"', "a\\b", "#x", "two\nlines", "tab\there", "$(rm -rf /)", "`x`", "~", "*"])(
    "round-trips %j through shlexSplit",
    (word) => {
      expect(shlexSplit(shlexQuote(word))).toEqual([word]);
    },
  );
});
