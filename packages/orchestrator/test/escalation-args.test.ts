// The argument checks the schemas promise for escalation: `require_escalated` without a justification is
// an invalid argument naming `justification`, and nothing runs; a justification without escalation is
// accepted, shown to nobody, and the result says it was not used (a note, and `unused_arguments`).
import { existsSync } from "node:fs";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ScriptedApprover } from "@conch/approval";
import { type ExecRequest, run } from "@conch/exec-core";
import type { ApprovalPolicy } from "@conch/protocol";
import type { SandboxPolicy } from "@conch/sandbox-core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ToolOrchestrator } from "../src/orchestrator/tool-orchestrator.js";
import type { ToolSet } from "../src/tools/tool-set.js";
import { checkedToolSet } from "./checked-tool-set.js";

let work: string;
let spawned: ExecRequest[];
let orchestrators: ToolOrchestrator[];

beforeEach(async () => {
  work = await realpath(await mkdtemp(join(tmpdir(), "conch-escalation-args-")));
  spawned = [];
  orchestrators = [];
});
afterEach(async () => {
  await Promise.all(orchestrators.map((orchestrator) => orchestrator.terminateSessions()));
  await rm(work, { recursive: true, force: true });
});

async function tools(
  approvalPolicy: ApprovalPolicy,
  approver: ScriptedApprover | null,
  sandbox: SandboxPolicy = { mode: "danger-full-access" },
): Promise<ToolSet> {
  const orchestrator = new ToolOrchestrator({
    cwd: work,
    approvalPolicy,
    // No sandbox backend: what is checked is the arguments, and who is asked.
    sandbox,
    approver,
    execute: (request, options) => {
      spawned.push(request);
      return run(request, options);
    },
  });
  orchestrators.push(orchestrator);
  return checkedToolSet({ profile: "codex", orchestrator, shell: { type: "sh", path: "/bin/sh" } });
}

const MISSING =
  'invalid arguments: justification: required with sandbox_permissions "require_escalated": one short ' +
  "question, shown to the user, that says why the command must run outside the sandbox";
const UNUSED =
  '[Note: justification is only read with sandbox_permissions: "require_escalated"; it was not used.]';

describe("require_escalated without a justification", () => {
  it.each([
    ["shell_command", { command: "touch x", login: false }],
    ["exec_command", { cmd: "touch x", login: false }],
    ["shell", { command: ["touch", "x"] }],
  ] as const)(
    "%s: an invalid argument naming justification; nothing asked, nothing run",
    async (tool, args) => {
      const approver = new ScriptedApprover([]);
      const set = await tools("on-request", approver);
      const result = await set.call(tool, { ...args, sandbox_permissions: "require_escalated" });
      expect(result.text).toBe(`${tool}: ${MISSING}`);
      expect(result.result).toMatchObject({
        status: "invalid",
        error_code: "INVALID_REQUEST",
        exit_code: null,
        unused_arguments: [],
      });
      expect(approver.requests).toEqual([]);
      expect(spawned).toEqual([]);
      expect(existsSync(join(work, "x"))).toBe(false);
    },
  );
});

describe("a justification without escalation", () => {
  it("shell_command and shell: accepted, run, and noted as unused", async () => {
    const set = await tools("on-request", null);
    const one = await set.call("shell_command", {
      command: "echo hi",
      login: false,
      justification: "Say hi?",
    });
    expect(one.text).toMatch(/^Exit code: 0\nWall time: [\d.]+ seconds\nOutput:\nhi\n/);
    expect(one.text.endsWith(`\n${UNUSED}`)).toBe(true);
    expect(one.result).toMatchObject({ status: "ok", exit_code: 0, unused_arguments: ["justification"] });
    const argv = await set.call("shell", { command: ["echo", "hi"], justification: "Say hi?" });
    expect(argv.text.endsWith(`hi\n${UNUSED}`)).toBe(true);
    expect(argv.result.unused_arguments).toEqual(["justification"]);
  });

  it("exec_command: the note follows the session's text", async () => {
    const set = await tools("on-request", null);
    const result = await set.call("exec_command", {
      cmd: "echo hi",
      login: false,
      sandbox_permissions: "use_default",
      justification: "Say hi?",
    });
    expect(result.text).toMatch(/\nProcess exited with code 0\n/);
    expect(result.text.endsWith(`hi\n${UNUSED}`)).toBe(true);
    expect(result.result).toMatchObject({ exit_code: 0, unused_arguments: ["justification"] });
  });

  it("is not shown to a person asked about the command, and a rejection says it was not used", async () => {
    const approver = new ScriptedApprover(["denied"]);
    const set = await tools("untrusted", approver);
    const result = await set.call("shell_command", {
      command: "touch x",
      login: false,
      justification: "Touch?",
    });
    expect(approver.requests).toHaveLength(1);
    expect(approver.requests[0]?.justification).toBeUndefined();
    expect(result.text).toBe(
      `rejected by user\nIt was asked because \`touch x\` is not known to be read-only, and under the approval policy untrusted only commands known to be read-only run unasked.\n${UNUSED}`,
    );
    expect(result.result).toMatchObject({ status: "rejected", unused_arguments: ["justification"] });
  });

  it("with escalation it is used: shown to the person, and no note", async () => {
    const approver = new ScriptedApprover(["approved"]);
    // Escalation asks only where there is a sandbox to leave; the approved command runs outside it.
    const set = await tools("on-request", approver, { mode: "workspace-write" });
    const result = await set.call("shell_command", {
      command: "echo hi",
      login: false,
      sandbox_permissions: "require_escalated",
      justification: "Say hi outside the sandbox?",
    });
    expect(approver.requests[0]?.justification).toBe("Say hi outside the sandbox?");
    expect(result.text).not.toContain("Note:");
    expect(result.result.unused_arguments).toEqual([]);
  });
});

describe("wait_for_approval_ms", () => {
  it("reaches the approver as the wait, bounded by the call's limit less the command's own time", async () => {
    const { escalationFields } = await import("../src/tools/escalation-args.js");
    const args = { sandbox_permissions: "use_default" as const, wait_for_approval_ms: 120_000 };
    expect(escalationFields(args).fields.approvalWaitMs).toBe(120_000);
    expect(escalationFields(args, 50_000).fields.approvalWaitMs).toBe(45_000);
    expect(escalationFields(args, 3000).fields.approvalWaitMs).toBe(0);
    expect(escalationFields({ ...args, wait_for_approval_ms: 0 }).fields).not.toHaveProperty(
      "approvalWaitMs",
    );
  });
});
