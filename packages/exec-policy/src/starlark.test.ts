import { describe, expect, it } from "vitest";
import { parseStarlarkCalls, StarlarkSyntaxError } from "./starlark.js";

function syntaxError(text: string): { line: number; message: string } {
  try {
    parseStarlarkCalls(text);
  } catch (error) {
    if (error instanceof StarlarkSyntaxError) return { line: error.line, message: error.message };
    throw error;
  }
  throw new Error("expected a syntax error");
}

function stringValue(text: string): string {
  const [call] = parseStarlarkCalls(`f(x = ${text})`);
  const value = call?.args[0]?.value;
  if (value?.kind !== "string") throw new Error("expected a string");
  return value.value;
}

describe("parseStarlarkCalls", () => {
  it("reads calls with keyword arguments, lists, comments, trailing commas and line breaks", () => {
    const calls = parseStarlarkCalls(`
# a comment
prefix_rule(
    pattern = ["git", ["push", "fetch"]],  # alternatives
    decision = "prompt",
    match = [
        ["git", "push"],
        "git fetch origin",
    ],
)
host_executable(name = 'git', paths = []); network_rule("example.com", "https", "deny", justification = None)
`);
    expect(calls).toEqual([
      {
        name: "prefix_rule",
        line: 3,
        args: [
          {
            name: "pattern",
            line: 4,
            value: {
              kind: "list",
              line: 4,
              items: [
                { kind: "string", value: "git", line: 4 },
                {
                  kind: "list",
                  line: 4,
                  items: [
                    { kind: "string", value: "push", line: 4 },
                    { kind: "string", value: "fetch", line: 4 },
                  ],
                },
              ],
            },
          },
          { name: "decision", line: 5, value: { kind: "string", value: "prompt", line: 5 } },
          {
            name: "match",
            line: 6,
            value: {
              kind: "list",
              line: 6,
              items: [
                {
                  kind: "list",
                  line: 7,
                  items: [
                    { kind: "string", value: "git", line: 7 },
                    { kind: "string", value: "push", line: 7 },
                  ],
                },
                { kind: "string", value: "git fetch origin", line: 8 },
              ],
            },
          },
        ],
      },
      {
        name: "host_executable",
        line: 11,
        args: [
          { name: "name", line: 11, value: { kind: "string", value: "git", line: 11 } },
          { name: "paths", line: 11, value: { kind: "list", items: [], line: 11 } },
        ],
      },
      {
        name: "network_rule",
        line: 11,
        args: [
          { name: null, line: 11, value: { kind: "string", value: "example.com", line: 11 } },
          { name: null, line: 11, value: { kind: "string", value: "https", line: 11 } },
          { name: null, line: 11, value: { kind: "string", value: "deny", line: 11 } },
          { name: "justification", line: 11, value: { kind: "none", line: 11 } },
        ],
      },
    ]);
  });

  it("decodes Starlark string escapes in both quote styles", () => {
    expect(stringValue(String.raw`"a\"b\\c\n\t\r\a\b\f\v"`)).toBe('a"b\\c\n\t\r\x07\b\f\v');
    expect(stringValue(String.raw`'it\'s "quoted"'`)).toBe(`it's "quoted"`);
    expect(stringValue(String.raw`"\x41\101\u00e9\U0001F600\0"`)).toBe("AAé😀\0");
    expect(stringValue(String.raw`"C:\dir"`)).toBe("C:\\dir");
    expect(stringValue('"line \\\ncontinued"')).toBe("line continued");
    expect(stringValue(String.raw`r"a\nb\"c"`)).toBe(String.raw`a\nb\"c`);
    expect(stringValue('"""two\nlines with "quotes" """')).toBe('two\nlines with "quotes" ');
    expect(stringValue("'''x'y'''")).toBe("x'y");
    expect(stringValue('"# not a comment"')).toBe("# not a comment");
  });

  it("reads ints, booleans and None so that type errors can name them", () => {
    const [call] = parseStarlarkCalls("f(1, True, False, None, 0x1F)");
    expect(call?.args.map((arg) => arg.value.kind)).toEqual(["int", "bool", "bool", "none", "int"]);
  });

  it("counts lines across triple-quoted strings and comments", () => {
    const calls = parseStarlarkCalls('a(x = """\n\n""")\n# c\n\nb()\n');
    expect(calls.map((call) => [call.name, call.line])).toEqual([
      ["a", 1],
      ["b", 6],
    ]);
  });

  it.each<[string, number, string]>([
    ['f(x = "abc)', 1, "unterminated string literal"],
    ['f(x = "a\nb")', 1, "unterminated string literal"],
    ['\n\nf(x = """abc)', 3, "unterminated string literal"],
    ['f(x = "\\xZZ")', 1, "invalid escape sequence \\xZZ"],
    ['f(x = "\\uD800")', 1, "invalid escape sequence \\uD800"],
    ['prefix_rule(\n  pattern = ["a"],\n', 1, "`(` is never closed"],
    ['f(x = ["a", "b")', 1, "`)` does not close `[` from line 1"],
    ["f())", 1, "unexpected `)`"],
    ['f(x = "a" "b")', 1, "expected `,` or `)` but found a string"],
    ['f(x = ["a" "b"])', 1, "expected `,` or `]` but found a string"],
    ["f(x = 1, 2)", 1, "positional argument follows keyword argument"],
    ["f(x = y)", 1, "unsupported syntax: variable `y` (only literal values)"],
    ["f(x = g())", 1, "unsupported syntax: call to `g` inside an argument"],
    ['f(x = ("a",))', 1, "unsupported syntax: tuple or parenthesised expression"],
    ['f(x = {"a": 1})', 1, "unsupported syntax: `{` (only calls with literal arguments)"],
    ['f(x = "a" + "b")', 1, "unsupported syntax: `+` (only calls with literal arguments)"],
    ["\nX = 1", 2, "unsupported syntax: assignment to `X`"],
    ['load("x.star", "y")\nf', 2, "expected `(` after `f` but found end of file"],
    ["f() g()", 1, "expected end of line after the call but found `g`"],
    ['"x"', 1, "expected a call such as prefix_rule(...) but found a string"],
    ["f(x = 08)", 1, "invalid number literal 08"],
    ["f(x = $)", 1, 'unexpected character "$"'],
  ])("rejects %j at line %i: %s", (text, line, message) => {
    expect(syntaxError(text)).toEqual({ line, message });
  });

  it("accepts an empty file, blank lines, semicolons and CRLF line ends", () => {
    expect(parseStarlarkCalls("")).toEqual([]);
    expect(parseStarlarkCalls("\n  \n# only a comment\n;\n")).toEqual([]);
    expect(parseStarlarkCalls("a()\r\nb()\r\n").map((call) => [call.name, call.line])).toEqual([
      ["a", 1],
      ["b", 2],
    ]);
  });
});
