import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadExecPolicy } from "@conch/exec-policy";
import { APPROVAL_POLICIES } from "@conch/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { explainCommand } from "../src/explain/explain-command.js";
import { approvalRequirement } from "../src/requirement/approval-requirement.js";

// These tests classify commands; none of the commands they name is ever run.
const CWD = "/work/repo";

function rules(text: string) {
  return loadExecPolicy([{ path: "test.rules", text }]);
}

describe("explainCommand", () => {
  it("reads a script as bash -lc SCRIPT and reports every part", async () => {
    expect(await explainCommand("ls -la | head -n 5", { cwd: CWD })).toEqual({
      commands: [
        ["ls", "-la"],
        ["head", "-n", "5"],
      ],
      operators: ["|"],
      opaque: [],
      redirects: [],
      safe: true,
      dangerous: false,
      dangerousReason: null,
      prefixes: [["ls"], ["head", "-n", "5"]],
      externalPaths: [],
      matchedRules: [],
      decisions: { untrusted: "skip", "on-failure": "skip", "on-request": "skip", never: "skip" },
      reasons: { untrusted: null, "on-failure": null, "on-request": null, never: null },
    });
  });

  it("names opaque parts, redirects and paths outside cwd, and never calls them safe", async () => {
    const report = await explainCommand("echo $(cat ~/.ssh/id_rsa) > /tmp/leak", { cwd: CWD });
    expect(report.opaque).toEqual([{ reason: "command-substitution", text: "$(cat ~/.ssh/id_rsa)" }]);
    expect(report.redirects).toEqual([{ kind: "write", operator: ">", fd: null, target: "/tmp/leak" }]);
    expect(report.externalPaths).toEqual(["/tmp/leak"]);
    expect(report.safe).toBe(false);
    expect(report.decisions.untrusted).toBe("needs-approval");
  });

  it("explains an argv as it stands, and a shell argv through its script", async () => {
    const plain = await explainCommand(["rm", "-rf", "/srv/data"], { cwd: CWD });
    expect(plain).toMatchObject({
      commands: [["rm", "-rf", "/srv/data"]],
      operators: [],
      dangerous: true,
      dangerousReason: expect.stringContaining("rm"),
      prefixes: [["rm"]],
      externalPaths: ["/srv/data"],
      decisions: { untrusted: "needs-approval", never: "forbidden" },
    });
    const shell = await explainCommand(["bash", "-lc", "npm test && git push"], { cwd: CWD });
    expect(shell.commands).toEqual([
      ["npm", "test"],
      ["git", "push"],
    ]);
    expect(shell.operators).toEqual(["&&"]);
    // A script string is the same command line as its bash -lc argv.
    expect(await explainCommand("npm test && git push", { cwd: CWD })).toEqual(shell);
  });

  it("reads a zsh -c script as zsh, as the requirement does", async () => {
    const report = await explainCommand(["zsh", "-c", "echo hi >! out"], { cwd: CWD });
    expect(report.opaque.map((part) => part.reason)).toContain("zsh-syntax");
    expect(report.safe).toBe(false);
  });

  it("lists the matching rules only, and the requirement under every approval policy", async () => {
    const execPolicy = rules(
      [
        'prefix_rule(pattern=["git", "push"], decision="prompt", justification="talks to the remote")',
        'prefix_rule(pattern=["npm", "test"], decision="allow")',
      ].join("\n"),
    );
    const argv = ["bash", "-lc", "git push origin && npm test && ls"];
    const report = await explainCommand(argv, { cwd: CWD, execPolicy });
    expect(report.matchedRules).toEqual([
      {
        type: "prefixRuleMatch",
        matchedPrefix: ["git", "push"],
        decision: "prompt",
        resolvedProgram: null,
        justification: "talks to the remote",
      },
      {
        type: "prefixRuleMatch",
        matchedPrefix: ["npm", "test"],
        decision: "allow",
        resolvedProgram: null,
        justification: null,
      },
    ]);
    for (const approvalPolicy of APPROVAL_POLICIES) {
      const requirement = await approvalRequirement({
        argv,
        execPolicy,
        approvalPolicy,
        sandboxMode: "workspace-write",
        sandboxPermissions: "use_default",
      });
      expect(report.decisions[approvalPolicy]).toBe(requirement.type);
      expect(report.reasons[approvalPolicy]).toBe(requirement.reason);
    }
    expect(report.decisions.never).toBe("forbidden");
  });

  it("judges with the sandbox mode it is given (default workspace-write)", async () => {
    const script = "cat notes.txt > copy.txt";
    const byDefault = await explainCommand(script, { cwd: CWD });
    expect(await explainCommand(script, { cwd: CWD, sandboxMode: "workspace-write" })).toEqual(byDefault);
    for (const sandboxMode of ["read-only", "danger-full-access"] as const) {
      const report = await explainCommand(script, { cwd: CWD, sandboxMode });
      for (const approvalPolicy of APPROVAL_POLICIES) {
        const requirement = await approvalRequirement({
          argv: ["bash", "-lc", script],
          execPolicy: loadExecPolicy([]),
          approvalPolicy,
          sandboxMode,
          sandboxPermissions: "use_default",
        });
        expect(report.decisions[approvalPolicy]).toBe(requirement.type);
      }
    }
  });

  it("is plain data: it survives JSON unchanged", async () => {
    const report = await explainCommand('for f in *; do rm -f "$f"; done 2>/dev/null', {
      cwd: CWD,
      execPolicy: rules('prefix_rule(pattern=["rm"], decision="forbidden")'),
    });
    expect(JSON.parse(JSON.stringify(report))).toEqual(report);
    expect(Object.keys(report)).toEqual([
      "commands",
      "operators",
      "opaque",
      "redirects",
      "safe",
      "dangerous",
      "dangerousReason",
      "prefixes",
      "externalPaths",
      "matchedRules",
      "decisions",
      "reasons",
    ]);
  });

  it("rejects a malformed command or option, naming it and the value received", async () => {
    await expect(explainCommand([], { cwd: CWD })).rejects.toThrow(
      /explainCommand: command: expected a script \(string\) or a non-empty argv \(string\[\]\), received an empty array/,
    );
    await expect(explainCommand(["ls", 1 as unknown as string], { cwd: CWD })).rejects.toThrow(TypeError);
    await expect(explainCommand("ls", { cwd: "repo" })).rejects.toThrow(
      'explainCommand: options.cwd: expected an absolute path, received "repo"',
    );
    await expect(
      explainCommand("ls", { cwd: CWD, sandboxMode: "bogus" as unknown as "read-only" }),
    ).rejects.toThrow(/options\.sandboxMode: expected one of read-only, .*, received "bogus"/);
  });

  describe("with programs", () => {
    let root: string;
    beforeAll(() => {
      root = mkdtempSync(join(tmpdir(), "conch-explain-"));
      mkdirSync(join(root, "bin"));
      // A file named cat in the workspace; it is looked up by metadata, never run.
      writeFileSync(join(root, "bin", "cat"), "#!/bin/sh\n", { mode: 0o755 });
    });
    afterAll(() => rmSync(root, { recursive: true, force: true }));

    it("passes them to the requirement: a program in a writable root is not what its name says", async () => {
      const programs = { path: `${join(root, "bin")}:/usr/bin:/bin`, cwd: root, writableRoots: [root] };
      const without = await explainCommand("cat notes.txt", { cwd: root });
      const withPrograms = await explainCommand("cat notes.txt", { cwd: root, programs });
      expect(without.decisions.untrusted).toBe("skip");
      expect(withPrograms.decisions.untrusted).toBe("needs-approval");
      expect(withPrograms.reasons.untrusted).toContain(join(root, "bin", "cat"));
    });
  });
});
