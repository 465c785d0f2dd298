import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadPolicyFiles, storeAlwaysAllowRule } from "../src/index.js";

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});
function rulesPath(name: string): string {
  dir ??= mkdtempSync(join(tmpdir(), "conch-store-"));
  return join(dir, name);
}

describe("storeAlwaysAllowRule", () => {
  it("stores the arity prefix once, in .rules and .toml files, and the file loads back", async () => {
    for (const name of ["always.rules", "always.toml"]) {
      const path = rulesPath(name);
      expect(await storeAlwaysAllowRule(path, ["npm", "run", "build", "--", "--watch"])).toEqual([
        "npm",
        "run",
        "build",
      ]);
      expect(await storeAlwaysAllowRule(path, ["npm", "run", "build"])).toEqual(["npm", "run", "build"]);
      const text = readFileSync(path, "utf8");
      expect(text.match(/build/g)).toHaveLength(1);
      const policy = await loadPolicyFiles([path]);
      expect(policy.rulesByProgram.get("npm")?.map((rule) => rule.decision)).toEqual(["allow"]);
    }
  });

  it.each([
    [["python3", "-c", "print(1)"]],
    [["bash", "-lc", "ls"]],
    [["sudo", "apt", "install", "x"]],
    [["rm", "-rf", "x"]],
    [["git"]],
    [["npm", "run"]],
    [["deploy-tool", "$TARGET"]],
  ])("stores nothing for %j", async (argv) => {
    const path = rulesPath("banned.rules");
    expect(await storeAlwaysAllowRule(path, argv)).toBeNull();
    expect(() => readFileSync(path)).toThrow();
  });
});
