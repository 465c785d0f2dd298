// The orchestrator's must-holds (issue 5), with real processes, real bwrap and real tree-sitter. Every
// command that writes does so inside directories these tests create and remove.
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ApprovalAnswer, type ApprovalRequest, type Approver, ScriptedApprover } from "@conch/approval";
import { type ExecRequest, run } from "@conch/exec-core";
import { loadExecPolicy } from "@conch/exec-policy";
import { APPROVAL_POLICIES, type ApprovalPolicy } from "@conch/protocol";
import { createSandboxRegistry, type SandboxPolicy } from "@conch/sandbox-core";
import { describeWith } from "@conch/test-config";
import { afterEach, beforeEach, expect, it } from "vitest";
import { type AuditLog, createAuditLog } from "../src/audit/audit-log.js";
import { sessionSandbox } from "../src/orchestrator/session-sandbox.js";
import { ToolOrchestrator } from "../src/orchestrator/tool-orchestrator.js";
import type { Execute, ToolOrchestratorOptions } from "../src/orchestrator/types.js";
import { createSpillStore } from "../src/spill/spill-store.js";
import { formatCount, formatSize } from "../src/text/counts.js";
import { bwrapSandbox } from "./bwrap-sandbox.js";
import { checkedToolSet } from "./checked-tool-set.js";

let work: string;
let outside: string;
let state: string;
let spawned: ExecRequest[];
let audit: AuditLog;

// Counts what reaches exec-core, so "nothing ran" is checked, not assumed.
const counting: Execute = (request, options) => {
  spawned.push(request);
  return run(request, options);
};

beforeEach(async () => {
  work = await realpath(await mkdtemp(join(tmpdir(), "conch-orch-")));
  state = join(work, ".state");
  // Outside every writable root of workspace-write (cwd, /tmp, $TMPDIR).
  outside = await mkdtemp("/var/tmp/conch-orch-outside-");
  spawned = [];
});
afterEach(async () => {
  await rm(work, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

async function tools(
  approvalPolicy: ApprovalPolicy,
  approver: ScriptedApprover | null,
  extra: Partial<ToolOrchestratorOptions> = {},
) {
  audit = createAuditLog({ path: join(state, "audit.jsonl") });
  const policy: SandboxPolicy = { mode: "workspace-write" };
  const orchestrator = new ToolOrchestrator({
    cwd: work,
    approvalPolicy,
    sandbox: policy,
    sessionSandbox: bwrapSandbox(policy, work),
    approver,
    spill: createSpillStore({ dir: join(state, "spill") }),
    audit,
    execute: counting,
    ...extra,
  });
  return checkedToolSet({ profile: "codex", orchestrator });
}

describeWith("bwrap", "ToolOrchestrator", () => {
  it("untrusted: ls runs unasked; touch asks, and a denial is a model-visible rejection with nothing run", async () => {
    const approver = new ScriptedApprover(["denied"]);
    const set = await tools("untrusted", approver);

    const ls = await set.call("shell_command", { command: "ls", login: false });
    expect(ls.result).toMatchObject({ status: "ok", exit_code: 0, sandbox: "bwrap" });
    expect(approver.requests).toEqual([]);
    expect(spawned).toHaveLength(1);

    const touch = await set.call("shell_command", { command: "touch x", login: false });
    expect(approver.requests).toHaveLength(1);
    expect(approver.requests[0]).toMatchObject({ cwd: work, sandboxMode: "workspace-write" });
    expect(approver.requests[0]?.argv.at(-1)).toBe("touch x");
    expect(touch.text).toBe(
      "rejected by user\nIt was asked because `touch x` is not known to be read-only, and under the approval policy untrusted only commands known to be read-only run unasked.",
    );
    expect(touch.result).toMatchObject({ status: "rejected", rejection: "denied-by-user", exit_code: null });
    expect(spawned).toHaveLength(1);
    expect(existsSync(join(work, "x"))).toBe(false);
  });

  it("never: what would need asking is rejected with the reason, and nothing runs", async () => {
    const set = await tools("never", null);
    const dangerous = await set.call("shell_command", { command: "rm -rf build", login: false });
    expect(dangerous.result).toMatchObject({ status: "rejected", rejection: "forbidden" });
    expect(dangerous.text).toContain("rejected");
    const escalated = await set.call("shell_command", {
      command: "touch y",
      sandbox_permissions: "require_escalated",
      justification: "Can I create y?",
    });
    expect(escalated.text).toBe(
      "approval policy is never; reject command — you should not ask for escalated permissions if the " +
        'approval policy is never. Run it again with sandbox_permissions "use_default".',
    );
    expect(spawned).toEqual([]);
    expect(existsSync(join(work, "y"))).toBe(false);
  });

  it("on-failure: a write outside the workspace is denied, asked once with the denial, retried outside the sandbox; approve-session asks no more", async () => {
    const approver = new ScriptedApprover(["approved_for_session"]);
    const set = await tools("on-failure", approver);
    const target = join(outside, "out.txt");
    const command = `echo hello >> ${target}`;

    const first = await set.call("shell_command", { command, login: false });
    expect(approver.requests).toHaveLength(1);
    expect(approver.requests[0]?.reason).toBe("command failed; retry without sandbox?");
    expect(approver.requests[0]?.sandboxDenial).toContain("Read-only file system");
    expect(first.result).toMatchObject({ status: "ok", exit_code: 0, sandbox: "none", escalated: true });
    expect(await readFile(target, "utf8")).toBe("hello\n");
    expect(spawned).toHaveLength(2);

    const second = await set.call("shell_command", { command, login: false });
    expect(approver.requests).toHaveLength(1);
    expect(second.result).toMatchObject({ status: "ok", exit_code: 0, escalated: true });
    expect(await readFile(target, "utf8")).toBe("hello\nhello\n");
  });

  it("untrusted: a command approved for the sandbox is asked about again before it runs outside it", async () => {
    const approver = new ScriptedApprover(["approved", "approved"]);
    const set = await tools("untrusted", approver);
    const target = join(outside, "twice.txt");
    const result = await set.call("shell_command", { command: `echo hi > ${target}`, login: false });
    expect(approver.requests.map((r) => [r.reason, r.sandboxPermissions])).toEqual([
      [null, "use_default"],
      ["command failed; retry without sandbox?", "require_escalated"],
    ]);
    expect(result.result).toMatchObject({ exit_code: 0, escalated: true, sandbox: "none" });
    expect(spawned).toHaveLength(2);
  });

  it("an unavailable sandbox is reported before anyone is asked", async () => {
    const registry = createSandboxRegistry();
    registry.register({
      name: "fake",
      platform: process.platform,
      available: async () => ({ available: false, reason: "no namespaces", fix: "enable them" }),
      transform: async (spec) => spec,
    });
    const approver = new ScriptedApprover([]);
    const set = await tools("untrusted", approver, {
      sessionSandbox: sessionSandbox({ mode: "workspace-write" }, work, registry, {}),
    });
    const result = await set.call("shell_command", { command: "touch x", login: false });
    expect(result.text).toBe(
      "the sandbox (fake) cannot run here: no namespaces; fix: enable them. The command did not run.",
    );
    expect(result.result).toMatchObject({ status: "rejected", rejection: "sandbox-unavailable" });
    expect(approver.requests).toEqual([]);
    expect(spawned).toEqual([]);
  });

  it("a call canceled while the person is being asked runs nothing", async () => {
    const controller = new AbortController();
    let asked = 0;
    const approver = {
      request: (_request: unknown, options?: { signal?: AbortSignal }) =>
        new Promise<"abort">((resolve) => {
          asked++;
          options?.signal?.addEventListener("abort", () => resolve("abort"));
          setTimeout(() => controller.abort(), 50);
        }),
    };
    const orchestrator = new ToolOrchestrator({
      cwd: work,
      approvalPolicy: "untrusted",
      sandbox: { mode: "workspace-write" },
      sessionSandbox: bwrapSandbox({ mode: "workspace-write" }, work),
      approver,
      execute: counting,
    });
    const set = await checkedToolSet({ profile: "codex", orchestrator });
    const result = await set.call(
      "shell_command",
      { command: "touch x", login: false },
      { signal: controller.signal },
    );
    expect(asked).toBe(1);
    expect(result.result.status).toBe("rejected");
    expect(spawned).toEqual([]);
    expect(existsSync(join(work, "x"))).toBe(false);
  });

  it("on-failure: a denied retry is rejected by the user and the command never runs outside", async () => {
    const approver = new ScriptedApprover(["denied"]);
    const set = await tools("on-failure", approver);
    const target = join(outside, "out.txt");
    const result = await set.call("shell_command", { command: `echo hi > ${target}`, login: false });
    expect(result.text).toBe(
      "rejected by user\nIt was asked because the sandbox (workspace-write) appears to have blocked it, and running it again outside the sandbox needs a person's yes.",
    );
    expect(spawned).toHaveLength(1);
    expect(existsSync(target)).toBe(false);
  });

  it("on-request: a denial goes back to the model with the hint to ask for require_escalated", async () => {
    const set = await tools("on-request", null);
    const target = join(outside, "out.txt");
    const result = await set.call("shell_command", { command: `echo hi > ${target}`, login: false });
    expect(result.result).toMatchObject({ status: "ok", denied: true, escalated: false, sandbox: "bwrap" });
    expect(result.result.exit_code).not.toBe(0);
    expect(result.text).toMatch(/^Exit code: [1-9]\d*\nWall time: [\d.]+ seconds\nOutput:\n/);
    expect(result.text).toContain("Read-only file system");
    expect(result.text).toContain('sandbox_permissions "require_escalated"');
    expect(spawned).toHaveLength(1);
    expect(existsSync(target)).toBe(false);
  });

  it("on-request: require_escalated asks with the justification and the model's prefix rule, then runs outside the sandbox", async () => {
    const approver = new ScriptedApprover(["approved"]);
    const set = await tools("on-request", approver);
    const target = join(outside, "escalated.txt");
    const result = await set.call("shell_command", {
      command: `touch ${target}`,
      login: false,
      sandbox_permissions: "require_escalated",
      justification: "Do you want to create a file outside the workspace?",
      prefix_rule: ["touch"],
    });
    expect(approver.requests).toHaveLength(1);
    expect(approver.requests[0]).toMatchObject({
      justification: "Do you want to create a file outside the workspace?",
      sandboxPermissions: "require_escalated",
    });
    expect(result.result).toMatchObject({ status: "ok", exit_code: 0, sandbox: "none", escalated: true });
    expect(existsSync(target)).toBe(true);
  });

  it("a forbidden rule blocks before any spawn, in every policy", async () => {
    const rules = loadExecPolicy([
      {
        path: "t.rules",
        text: 'prefix_rule(pattern=["touch"], decision="forbidden", justification="no touching")',
      },
    ]);
    for (const policy of APPROVAL_POLICIES) {
      const approver = new ScriptedApprover(["approved", "approved"]);
      const set = await tools(policy, approver, { rules });
      for (const args of [
        { command: "touch z", login: false },
        { command: "echo a && touch z", login: false },
        {
          command: "touch z",
          login: false,
          ...(policy === "on-request"
            ? { sandbox_permissions: "require_escalated", justification: "Touch?" }
            : {}),
        },
      ]) {
        const result = await set.call("shell_command", args);
        expect(result.result, `${policy} ${args.command}`).toMatchObject({ status: "rejected" });
        expect(result.text).toContain("no touching");
      }
      const argv = await set.call("shell", { command: ["touch", "z"] });
      expect(argv.text).toContain("no touching");
      expect(approver.requests).toEqual([]);
    }
    expect(spawned).toEqual([]);
    expect(existsSync(join(work, "z"))).toBe(false);
  });

  it("a 5 MB output: bounded text with whole lines at each end, a marker naming the rest, a spill file holding all", async () => {
    const set = await tools("on-request", null);
    const lines = 800_000;
    const expected = `${Array.from({ length: lines }, (_, i) => i + 1).join("\n")}\n`;
    const totalBytes = Buffer.byteLength(expected);
    expect(totalBytes).toBeGreaterThan(5_000_000);

    const result = await set.call("shell_command", { command: `seq 1 ${lines}`, login: false });
    expect(result.result).toMatchObject({ status: "ok", exit_code: 0, truncated: true });
    const spillPath = result.result.spill_path as string;
    expect((await readFile(spillPath)).equals(Buffer.from(expected))).toBe(true);
    const [header, output] = result.text.split("\nOutput:\n") as [string, string];
    expect(header).toMatch(/^Exit code: 0\nWall time: [\d.]+ seconds\nTotal output lines: 800000$/);
    // Whole lines a side, about 4,000 bytes each (a one-shot's 2,000 tokens), then the marker on a line of its own.
    const shown = output.split("\n");
    const at = shown.findIndex((line) => line.startsWith("[… "));
    const head = shown.slice(0, at);
    const tail = shown.slice(at + 1, -1);
    expect(head).toEqual(Array.from({ length: head.length }, (_, i) => String(i + 1)));
    expect(tail).toEqual(Array.from({ length: tail.length }, (_, i) => String(lines - tail.length + i + 1)));
    expect(Buffer.byteLength(`${head.join("\n")}\n`)).toBeGreaterThan(3_990);
    expect(Buffer.byteLength(`${head.join("\n")}\n`)).toBeLessThanOrEqual(4_001);
    expect(Buffer.byteLength(`${tail.join("\n")}\n`)).toBeGreaterThan(3_990);
    const first = head.length + 1;
    const last = lines - tail.length;
    const omitted = totalBytes - Buffer.byteLength(`${head.join("\n")}\n${tail.join("\n")}\n`);
    expect(shown[at]).toBe(
      `[… lines ${formatCount(first)}–${formatCount(last)} omitted (${formatSize(omitted)}); full output: ${spillPath} — ` +
        `read a range with: sed -n '${first},${first + 199}p' ${spillPath}]`,
    );
  });

  it("records each decision and execution in the audit log, never the output or env values", async () => {
    const approver = new ScriptedApprover(["approved"]);
    const set = await tools("untrusted", approver, {});
    process.env.CONCH_TEST_MARKER = "marker-value-123";
    try {
      await set.call("shell_command", {
        command: "echo visible-output $CONCH_TEST_MARKER > f; echo printed",
        login: false,
      });
    } finally {
      delete process.env.CONCH_TEST_MARKER;
    }
    await audit.flush();
    const lines = (await readFile(join(state, "audit.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(
      lines.map((line) => [line.type, line.decision ?? line.exitCode, line.decidedBy ?? line.sandbox]),
    ).toEqual([
      ["decision", "approved", "user"],
      ["execution", 0, "bwrap"],
    ]);
    expect(lines[0]).toMatchObject({
      tool: "shell_command",
      script: "echo visible-output $CONCH_TEST_MARKER > f; echo printed",
      cwd: work,
      approvalPolicy: "untrusted",
      requirement: "needs-approval",
      sandbox: "workspace-write",
    });
    const text = await readFile(join(state, "audit.jsonl"), "utf8");
    expect(text).not.toContain("marker-value-123");
    expect(text).not.toContain("printed\n");
    expect(await readFile(join(work, "f"), "utf8")).toBe("visible-output marker-value-123\n");
  });

  it("a call's own approver asks instead of the orchestrator's; its answer says who and why, in the audit too", async () => {
    const set = await tools("untrusted", new ScriptedApprover([]));
    const answers: ApprovalAnswer[] = [
      { decision: "abort", outcome: "pending", decidedBy: "out-of-band", reason: "pending approval abc" },
      {
        decision: "denied",
        outcome: "not-approved",
        decidedBy: "elicitation",
        reason: "not approved: timed out",
      },
      { decision: "denied", decidedBy: "elicitation", reason: "rejected by user: use make" },
      { decision: "approved_for_session", decidedBy: "out-of-band" },
    ];
    const asked: ApprovalRequest[] = [];
    const approver: Approver = {
      request: async (request) => {
        asked.push(request);
        return answers[asked.length - 1] as ApprovalAnswer;
      },
    };
    const call = () => set.call("shell_command", { command: "touch made", login: false }, { approver });
    const pending = await call();
    expect(pending.result).toMatchObject({ status: "rejected", rejection: "approval-pending" });
    expect(pending.text).toBe("pending approval abc");
    const timedOut = await call();
    expect(timedOut.result).toMatchObject({ status: "rejected", rejection: "not-approved" });
    expect(timedOut.text).toBe("not approved: timed out");
    const denied = await call();
    expect(denied.result).toMatchObject({ status: "rejected", rejection: "denied-by-user" });
    expect(denied.text).toBe(
      "rejected by user: use make\nIt was asked because `touch made` is not known to be read-only, and under the approval policy untrusted only commands known to be read-only run unasked.",
    );
    expect(spawned).toHaveLength(0);
    expect((await call()).result).toMatchObject({ status: "ok", exit_code: 0 });
    // Approved for the session by whoever answered: the cache answers next time, nobody is asked.
    expect((await call()).result).toMatchObject({ status: "ok", exit_code: 0 });
    expect(asked).toHaveLength(4);
    expect(existsSync(join(work, "made"))).toBe(true);
    await audit.flush();
    const decisions = (await readFile(join(state, "audit.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.type === "decision")
      .map((line) => [line.decision, line.decidedBy]);
    expect(decisions).toEqual([
      ["pending", "out-of-band"],
      ["not-approved", "elicitation"],
      ["denied", "elicitation"],
      ["approved_for_session", "out-of-band"],
      ["approved_for_session", "cache"],
    ]);
  });

  it("a symlinked workdir is asked about, and approved, as the directory it resolves to now", async () => {
    const approver = new ScriptedApprover(["approved_for_session", "denied"]);
    const set = await tools("untrusted", approver);
    await mkdir(join(work, "real"));
    await symlink(join(work, "real"), join(work, "lnk"));
    const call = () => set.call("shell_command", { command: "touch marker", login: false, workdir: "lnk" });
    expect((await call()).result).toMatchObject({ status: "ok", exit_code: 0 });
    expect(approver.requests[0]?.cwd).toBe(join(work, "real"));
    expect(existsSync(join(work, "real", "marker"))).toBe(true);
    // The model points the link elsewhere: the session's approval was for real/, so it asks again.
    await rm(join(work, "lnk"));
    await symlink(outside, join(work, "lnk"));
    expect((await call()).result).toMatchObject({ status: "rejected", rejection: "denied-by-user" });
    expect(approver.requests[1]?.cwd).toBe(await realpath(outside));
    expect(existsSync(join(outside, "marker"))).toBe(false);
  });

  it("approved_always stores the arity prefix rule, and the next such command runs unasked", async () => {
    const rulesFile = join(work, ".rules-store", "default.rules");
    await mkdir(join(work, ".rules-store"));
    const approver = new ScriptedApprover(["approved_always"]);
    const set = await tools("untrusted", approver, { rulesStorePath: rulesFile });
    await writeFile(join(work, "a.txt"), "a");
    const first = await set.call("shell_command", { command: "cp a.txt b.txt", login: false });
    expect(first.result.status).toBe("ok");
    // cp's arity is 1 (OpenCode's table): the rule allows cp with any arguments.
    expect(approver.requests[0]?.proposedRule).toEqual(["cp"]);
    expect(await readFile(rulesFile, "utf8")).toContain('prefix_rule(pattern=["cp"], decision="allow")');
    const again = await set.call("shell_command", { command: "cp a.txt c.txt", login: false });
    expect(again.result.status).toBe("ok");
    expect(approver.requests).toHaveLength(1);
  });
});
