// Every bin a workspace package declares is built executable: an MCP client configured with `conchd`
// (or a shell with `conch` linked onto its PATH) runs the file itself, so a bin without its execute bit
// fails to start however it was produced (a fresh build, or turbo's cache). Runs after the build.
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { workspacePackages } from "../scripts/workspace.mjs";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

const bins = workspacePackages(ROOT).flatMap(({ dir, manifest }) => {
  const bin = manifest.bin as string | Record<string, string> | undefined;
  if (bin === undefined) return [];
  const paths = typeof bin === "string" ? [bin] : Object.values(bin);
  return paths.map((path) => join(dir, path));
});

describe("the built bins", () => {
  it("are the CLI's, the daemon's and the agent's", () => {
    expect(bins.sort()).toEqual([
      "apps/agent/dist/bin.js",
      "apps/cli/dist/bin.js",
      "apps/daemon/dist/bin.js",
    ]);
  });

  it.each(bins)("%s is executable by everyone and starts with a shebang", (bin) => {
    const mode = statSync(join(ROOT, bin)).mode & 0o777;
    expect(mode.toString(8)).toBe("755");
    expect(readFileSync(join(ROOT, bin), "utf8").split("\n")[0]).toBe("#!/usr/bin/env node");
  });
});
