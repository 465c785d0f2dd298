import { readCorpus } from "@conch/test-config";
import { describe, expect, it } from "vitest";
import { isArityRulesError } from "../errors.js";
import { approvalPrefix, createArityTable, isLiteralToken, parseArityToml } from "./arity.js";
import { DEFAULT_ARITY } from "./default-arity.js";

const CORPUS = readCorpus("opencode-arity") as Record<string, number>;

describe("the default arity table", () => {
  it("holds exactly OpenCode's 136 entries", () => {
    expect(Object.keys(CORPUS)).toHaveLength(136);
    expect(DEFAULT_ARITY).toEqual(CORPUS);
  });

  it("gives every corpus entry its arity when the command is followed by more words", () => {
    for (const [prefix, arity] of Object.entries(CORPUS)) {
      const words = prefix.split(" ");
      const argv = [...words, ...["w1", "w2", "w3", "w4"].slice(0, arity - words.length + 2)];
      expect(approvalPrefix(argv), prefix).toEqual(argv.slice(0, arity));
    }
  });
});

describe("approvalPrefix", () => {
  it.each([
    [
      ["git", "checkout", "-b", "feat"],
      ["git", "checkout"],
    ],
    [
      ["git", "status", "--short"],
      ["git", "status"],
    ],
    [
      ["npm", "run", "build", "--", "--watch"],
      ["npm", "run", "build"],
    ],
    [
      ["npm", "--silent", "run", "build"],
      ["npm", "--silent", "run", "build"],
    ],
    [
      ["git", "remote", "add", "origin", "url"],
      ["git", "remote", "add"],
    ],
    [["ls", "-la", "/tmp"], ["ls"]],
    [
      ["/usr/bin/git", "log", "-1"],
      ["/usr/bin/git", "log"],
    ],
    [
      ["npm", "run"],
      ["npm", "run"],
    ],
    [
      ["deploy-prod", "--force", "eu"],
      ["deploy-prod", "--force", "eu"],
    ],
    [["my-tool"], ["my-tool"]],
    [[], []],
  ])("%j → %j", (argv, prefix) => {
    expect(approvalPrefix(argv)).toEqual(prefix);
  });

  it("uses entries added to the table", () => {
    const table = createArityTable({ "my-tool": 2, "my-tool db": 3 });
    expect(approvalPrefix(["my-tool", "db", "migrate", "--all"], table)).toEqual([
      "my-tool",
      "db",
      "migrate",
    ]);
    expect(approvalPrefix(["my-tool", "serve", "8080"], table)).toEqual(["my-tool", "serve"]);
    expect(approvalPrefix(["git", "status"], table)).toEqual(["git", "status"]);
  });
});

describe("isLiteralToken", () => {
  it.each(["git", "--force", "a=b", "./x/y.txt", "user@host:path", "50%", "a,b", "+x"])(
    "accepts %s",
    (token) => {
      expect(isLiteralToken(token)).toBe(true);
    },
  );
  it.each(["", "a b", "$HOME", "*.ts", "a;b", "`x`", "'q'", '"q"', "a\\b", "~", "a\nb", "(x)", "a|b", "é"])(
    "rejects %j",
    (token) => {
      expect(isLiteralToken(token)).toBe(false);
    },
  );
});

describe("parseArityToml", () => {
  it("reads an [arity] table", async () => {
    expect(await parseArityToml('[arity]\n"my-tool" = 2\n"my-tool db" = 3\n', "a.toml")).toEqual({
      "my-tool": 2,
      "my-tool db": 3,
    });
  });

  it.each([
    ['[arity]\n"x" = 0\n', 'a.toml:2: arity."x": expected an integer from 1 to 8, received 0'],
    ['[arity]\n"x y" = 1\n', 'a.toml:2: arity."x y": expected an integer from 2 to 8, received 1'],
    ['[arity]\n"x $y" = 2\n', 'a.toml:2: arity."x $y": expected literal words separated by single spaces'],
    ["[other]\nx = 1\n", 'a.toml:1: unknown key "other" (expected an [arity] table)'],
  ])("rejects %j with %s", async (text, message) => {
    const error = await parseArityToml(text, "a.toml").catch((e: unknown) => e);
    expect(isArityRulesError(error)).toBe(true);
    expect((error as Error).message).toBe(message);
  });

  it("reports TOML syntax errors with their line", async () => {
    const error = await parseArityToml('[arity]\n"x" = \n', "b.toml").catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/^b\.toml:2: /);
  });
});
