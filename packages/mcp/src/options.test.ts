import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { serveOptionsFromFlags } from "./options.js";

const dir = mkdtempSync(join(tmpdir(), "conch-serve-flags-"));
const config = join(dir, "config.toml");
writeFileSync(config, "");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const fail = (message: string): never => {
  throw new Error(message);
};

describe("serveOptionsFromFlags: the flags conchd and conch mcp share", () => {
  it("reads every flag, and leaves out what was not given", () => {
    expect(
      serveOptionsFromFlags(
        { cwd: dir, profile: "bash", approval: "never", sandbox: "read-only", config },
        () => "/",
        fail,
      ),
    ).toEqual({
      cwd: dir,
      profile: "bash",
      approvalPolicy: "never",
      sandbox: "read-only",
      configPath: config,
    });
    expect(serveOptionsFromFlags({}, () => dir, fail)).toEqual({ cwd: dir });
  });

  it.each([
    [{ profile: "fish" }, '--profile: expected one of codex, bash, terminal, argv, received "fish"'],
    [
      { approval: "sometimes" },
      "--approval: expected one of untrusted, on-failure, on-request, never, received",
    ],
    [
      { sandbox: "all" },
      '--sandbox: expected one of read-only, workspace-write, danger-full-access, received "all"',
    ],
    [{ cwd: join(dir, "missing") }, `--cwd: no such directory: ${join(dir, "missing")}`],
    [{ cwd: config }, `--cwd: no such directory: ${config}`],
    [{ config: dir }, `--config: no such file: ${dir}`],
  ])("refuses %j, naming the flag and what it expected", (flags, message) => {
    expect(() => serveOptionsFromFlags({ cwd: dir, ...flags }, () => dir, fail)).toThrow(message);
  });
});
