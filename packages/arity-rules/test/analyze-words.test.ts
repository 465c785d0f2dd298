import { describe, expect, it } from "vitest";
import { shellScriptIndex } from "../src/analyze/shell-script.js";
import { decodeAnsiC, unquoteDoubleQuoted } from "../src/analyze/words.js";

describe("decodeAnsiC", () => {
  it.each([
    ["plain", "plain"],
    [String.raw`a\nb\tc\rd\ve\ff\ag\bh`, "a\nb\tc\rd\ve\ff\x07g\bh"],
    [String.raw`\e\E\\\'\"\?`, "\x1b\x1b\\'\"?"],
    [String.raw`\x41\x4a\x7e\x9`, "AJ~\t"],
    [String.raw`\101\60\0101\7`, "A0\b1\x07"],
    [String.raw`\z\q`, "\\z\\q"], // unknown escapes stay as written, as in bash
    ["é😀", "é😀"],
  ])("decodes %j", (body, decoded) => {
    expect(decodeAnsiC(body)).toBe(decoded);
  });

  it.each([
    String.raw`\u00e9`,
    String.raw`\U0001F600`,
    String.raw`\cA`,
    String.raw`a\0b`,
    String.raw`\x00`,
    String.raw`\xff`,
    String.raw`\200`,
    String.raw`\xg`,
    "trailing\\",
  ])("leaves %j opaque", (body) => {
    expect(decodeAnsiC(body)).toBeNull();
  });
});

describe("unquoteDoubleQuoted", () => {
  it.each([
    ["plain", "plain"],
    [String.raw`a\"b\$c\`d\\e`, 'a"b$c`d\\e'],
    [String.raw`\n\t\'\z`, String.raw`\n\t\'\z`],
    ["line\\\ncontinued", "linecontinued"],
  ])("reads %j", (text, value) => {
    expect(unquoteDoubleQuoted(text)).toBe(value);
  });
});

describe("shellScriptIndex", () => {
  it.each([
    [["bash", "-c", "s"], 2],
    [["bash", "-lc", "s"], 2],
    [["bash", "-l", "-c", "s"], 3],
    [["bash", "-c", "-e", "s"], 3],
    [["sh", "-ec", "s", "name", "arg"], 2],
    [["/usr/bin/zsh", "-xc", "s"], 2],
    [["dash", "-c", "--", "s"], 3],
    [["bash", "-o", "pipefail", "-c", "s"], 4],
    [["bash", "-euo", "pipefail", "-c", "s"], 4],
    [["bash", "+O", "extglob", "-c", "s"], 4],
    [["bash", "--norc", "--noprofile", "-c", "s"], 4],
    [["bash", "--rcfile", "x", "-c", "s"], 4],
  ])("finds the script of %j", (argv, index) => {
    expect(shellScriptIndex(argv)).toBe(index);
  });

  it.each([
    [["bash"]],
    [["bash", "-c"]],
    [["bash", "script.sh", "-c", "x"]],
    [["bash", "-l", "script.sh"]],
    [["bash", "--unknown", "-c", "x"]],
    [["bash", "--", "-c"]],
    [["fish", "-c", "x"]],
    [["ksh", "-c", "x"]],
    [["bashful", "-c", "x"]],
    [[]],
  ])("finds no script in %j", (argv) => {
    expect(shellScriptIndex(argv)).toBe(-1);
  });
});
