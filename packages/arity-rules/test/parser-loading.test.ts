import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import {
  analyze,
  DANGEROUS_REASONS,
  dangerousCommandMatch,
  isKnownSafeCommand,
  reachableCommands,
  setWasmLocation,
} from "../src/index.js";

// The safety checks read their scripts without waiting once the parser is loaded; these run first in
// this file (a module state of its own), so every check below meets the parser not loaded yet.

const require = createRequire(import.meta.url);

describe("safety checks called before the parser is loaded", () => {
  it("answer without it when no script needs reading, and fail as analyze() does when one does", async () => {
    setWasmLocation({ treeSitter: "/nonexistent/tree-sitter.wasm" });
    expect(await isKnownSafeCommand(["ls", "-la"])).toBe(true);
    expect(await dangerousCommandMatch(["rm", "-rf", "/"])).toEqual({
      kind: "forced-rm",
      argv: ["rm", "-rf", "/"],
      reason: DANGEROUS_REASONS["forced-rm"],
    });
    expect((await analyze(`echo ${"a".repeat(70_000)}`)).opaque[0]?.reason).toBe("too-large");
    for (const check of [isKnownSafeCommand, dangerousCommandMatch, reachableCommands]) {
      await expect(check(["bash", "-lc", "ls"])).rejects.toMatchObject({ code: "PARSER_UNAVAILABLE" });
    }
    await expect(analyze("ls")).rejects.toMatchObject({ code: "PARSER_UNAVAILABLE" });
  });

  it("load it, all at once, and then read their scripts", async () => {
    setWasmLocation({ treeSitter: require.resolve("web-tree-sitter/tree-sitter.wasm") });
    const [safe, unsafe, dangerous, reach, analysis] = await Promise.all([
      isKnownSafeCommand(["bash", "-lc", "ls && pwd"]),
      isKnownSafeCommand(["bash", "-lc", "ls > out"]),
      dangerousCommandMatch(["bash", "-lc", "cd x && rm -rf y"]),
      reachableCommands(["bash", "-lc", "sudo ls"]),
      analyze("ls | wc -l"),
    ]);
    expect([safe, unsafe]).toEqual([true, false]);
    expect(dangerous).toEqual({
      kind: "forced-rm",
      argv: ["rm", "-rf", "y"],
      reason: DANGEROUS_REASONS["forced-rm"],
    });
    expect(reach).toEqual({
      commands: [{ argv: ["bash", "-lc", "sudo ls"] }, { argv: ["sudo", "ls"] }, { argv: ["ls"] }],
      unread: [],
    });
    expect(analysis.commands.map((command) => command.argv)).toEqual([["ls"], ["wc", "-l"]]);
  });
});
