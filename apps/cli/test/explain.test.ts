import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// These tests classify commands; none of the commands they name is ever run.
const BIN = fileURLToPath(new URL("../dist/bin.js", import.meta.url));
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "conch-explain-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function conch(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const { status, stdout, stderr } = spawnSync(process.execPath, [BIN, ...args], {
    encoding: "utf8",
    cwd: dir,
  });
  return { status, stdout, stderr };
}

function explainJson(...args: string[]): Record<string, unknown> {
  const result = conch("explain", "--json", ...args);
  expect(result.stderr).toBe("");
  expect(result.status).toBe(0);
  return JSON.parse(result.stdout) as Record<string, unknown>;
}

function rulesFile(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe("conch explain --json", () => {
  it("reports plain read-only work as safe under every policy", () => {
    expect(explainJson("ls -la | head -n 5")).toMatchObject({
      commands: [
        ["ls", "-la"],
        ["head", "-n", "5"],
      ],
      opaque: [],
      redirects: [],
      safe: true,
      dangerous: false,
      prefixes: [["ls"], ["head", "-n", "5"]],
      external_paths: [],
      matched_rules: [],
      decisions: { untrusted: "skip", "on-failure": "skip", "on-request": "skip", never: "skip" },
    });
  });

  it("never calls git safe: a repository can name programs git runs", () => {
    expect(explainJson("git status")).toMatchObject({
      safe: false,
      decisions: { untrusted: "needs-approval", "on-request": "skip" },
    });
  });

  it("names the opaque parts and never calls them safe", () => {
    const report = explainJson("echo $(cat ~/.ssh/id_rsa) > /tmp/leak");
    expect(report.opaque).toEqual([{ reason: "command-substitution", text: "$(cat ~/.ssh/id_rsa)" }]);
    expect(report.safe).toBe(false);
    expect(report.redirects).toEqual([{ kind: "write", operator: ">", fd: null, target: "/tmp/leak" }]);
    expect(report.external_paths).toEqual(["/tmp/leak"]);
    expect(report.decisions).toMatchObject({ untrusted: "needs-approval" });
  });

  it("explains an argv, forbidding forced rm under never", () => {
    expect(explainJson("--argv", "--", "rm", "-rf", "/srv/data")).toMatchObject({
      commands: [["rm", "-rf", "/srv/data"]],
      safe: false,
      dangerous: true,
      prefixes: [["rm"]],
      external_paths: ["/srv/data"],
      decisions: { untrusted: "needs-approval", "on-request": "needs-approval", never: "forbidden" },
    });
  });

  it("reports the rules that match and lets a forbidden rule win everywhere", () => {
    const rules = rulesFile("git.rules", 'prefix_rule(pattern = ["git", "push"], decision = "forbidden")\n');
    const report = explainJson("--rules", rules, "git status && git push origin main");
    expect(report.matched_rules).toEqual([
      {
        type: "prefixRuleMatch",
        matched_prefix: ["git", "push"],
        decision: "forbidden",
        resolved_program: null,
        justification: null,
      },
    ]);
    expect(report.decisions).toEqual({
      untrusted: "forbidden",
      "on-failure": "forbidden",
      "on-request": "forbidden",
      never: "forbidden",
    });
  });
});

describe("conch explain", () => {
  it("prints a short explanation without --json", () => {
    const result = conch("explain", "ls -la && rm -rf build");
    expect(result.status).toBe(0);
    expect(result.stdout).toContain("  1. ls -la    [prefix: ls]");
    expect(result.stdout).toContain("  2. rm -rf build    [prefix: rm]");
    expect(result.stdout).toContain("Dangerous: yes");
    expect(result.stdout).toContain("  never       forbidden: ");
  });
});

describe("conch policy check", () => {
  it("prints what codex execpolicy check prints, for .rules and .toml files alike", () => {
    const codex = rulesFile(
      "remote.rules",
      'prefix_rule(pattern = ["git", ["push", "fetch"]], decision = "prompt", justification = "talks to the remote")\n',
    );
    const toml = rulesFile(
      "remote.toml",
      '[[rule]]\npattern = ["git", ["push", "fetch"]]\ndecision = "forbidden"\n',
    );
    const result = conch("policy", "check", "--rules", codex, "--rules", toml, "--", "git", "fetch", "--all");
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      matchedRules: [
        {
          prefixRuleMatch: {
            matchedPrefix: ["git", "fetch"],
            decision: "prompt",
            justification: "talks to the remote",
          },
        },
        { prefixRuleMatch: { matchedPrefix: ["git", "fetch"], decision: "forbidden" } },
      ],
      decision: "forbidden",
    });
    expect(JSON.parse(conch("policy", "check", "--rules", codex, "--", "ls").stdout)).toEqual({
      matchedRules: [],
    });
  });

  it("exits 2 with file:line for a bad rules file", () => {
    const bad = rulesFile("bad.toml", '[[rule]]\npattern = ["git"]\ndecision = "maybe"\n');
    expect(conch("policy", "check", "--rules", bad, "--", "git", "status")).toEqual({
      status: 2,
      stdout: "",
      stderr: `conch: ${bad}:3: rule 1: invalid decision: maybe\n`,
    });
    const failing = rulesFile("failing.rules", 'prefix_rule(pattern = ["git"], match = ["ls"])\n');
    const result = conch("explain", "--rules", failing, "ls");
    expect(result.status).toBe(2);
    expect(result.stderr).toBe(
      `conch: ${failing}:1: expected every example to match rule \`["git"]\`; unmatched examples: "ls"\n`,
    );
  });
});
