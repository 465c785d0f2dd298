import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { evaluateExecPolicy, loadExecPolicy, loadExecPolicyFiles } from "@conch/exec-policy";
import { afterEach, describe, expect, it } from "vitest";
import { allowPrefixRule, storablePrefixRule } from "../src/index.js";

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});
function rulesPath(name: string): string {
  dir ??= mkdtempSync(join(tmpdir(), "conch-store-"));
  return join(dir, name);
}

const decisionOf = (rules: ReturnType<typeof loadExecPolicy>, argv: string[]): string =>
  evaluateExecPolicy(rules, [argv], { fallback: () => "prompt" }).decision;

describe("allowPrefixRule", () => {
  it("allows the prefix in memory and stores it once, in .rules and .toml files, which load back", async () => {
    for (const name of ["always.rules", "always.toml"]) {
      const path = rulesPath(name);
      const prefix = storablePrefixRule(["npm", "run", "build", "--", "--watch"]);
      expect(prefix).toEqual(["npm", "run", "build"]);
      const first = allowPrefixRule(loadExecPolicy([]), prefix as string[], path);
      expect(decisionOf(first.rules, ["npm", "run", "build", "--prod"])).toBe("allow");
      expect(await first.stored).toBe(true);
      expect(await allowPrefixRule(first.rules, ["npm", "run", "build"], path).stored).toBe(false);
      expect(readFileSync(path, "utf8").match(/build/g)).toHaveLength(1);
      const loaded = await loadExecPolicyFiles([path]);
      expect(loaded.rulesByProgram.get("npm")?.map((rule) => rule.decision)).toEqual(["allow"]);
    }
  });

  it("leaves the rules it was given as they were, and touches no file without one", async () => {
    const rules = loadExecPolicy([]);
    const allowed = allowPrefixRule(rules, ["cargo", "test"]);
    expect(await allowed.stored).toBe(false);
    expect(decisionOf(allowed.rules, ["cargo", "test"])).toBe("allow");
    expect(decisionOf(rules, ["cargo", "test"])).toBe("prompt");
  });

  it("keeps the rule for the session when the file cannot be written", async () => {
    const blocker = rulesPath("not-a-dir");
    writeFileSync(blocker, "");
    const allowed = allowPrefixRule(loadExecPolicy([]), ["cargo", "test"], join(blocker, "always.rules"));
    await expect(allowed.stored).rejects.toThrow(/ENOTDIR|EEXIST/);
    expect(decisionOf(allowed.rules, ["cargo", "test"])).toBe("allow");
  });

  it.each([
    [["python3"], "python3 must be followed by the script, module or subcommand it runs"],
    [["sudo", "apt"], "rules starting with sudo are never stored"],
    [["rm", "-rf"], "rules starting with rm are never stored"],
    [["npm", "run"], "npm run alone would allow any script"],
    [["deploy-tool", "$TARGET"], "only literal tokens are stored"],
    [[], "an empty prefix"],
  ])("refuses %j and changes nothing", (prefix, why) => {
    const path = rulesPath("banned.rules");
    expect(() => allowPrefixRule(loadExecPolicy([]), prefix, path)).toThrow(
      `prefix rule ${JSON.stringify(prefix)} is never stored: ${why}`,
    );
    expect(() => readFileSync(path)).toThrow();
  });
});
