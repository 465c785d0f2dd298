// `conch pending`, `conch approve` and `conch deny`: the real binary against a real approval channel
// (the unix socket a running conchd serves), here served by this test process with a store of its own.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type ApprovalRequest, PendingApprovals } from "@conch/approval";
import { type ApprovalChannel, serveApprovalChannel } from "@conch/orchestrator";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const BIN = fileURLToPath(new URL("../dist/bin.js", import.meta.url));

const request = (script: string): ApprovalRequest => ({
  argv: ["/bin/bash", "-lc", script],
  cwd: "/work/project",
  reason: "touch may write",
  proposedRule: null,
  justification: "make the marker\u001b[2J",
  sandboxMode: "workspace-write",
  sandboxPermissions: "use_default",
  tty: false,
});

let root: string;
let env: Record<string, string>;
let pending: PendingApprovals;
let channel: ApprovalChannel | null;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "conch-approvals-"));
  env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: root, XDG_STATE_HOME: join(root, "state") };
  pending = new PendingApprovals();
  channel = null;
});
afterEach(async () => {
  await channel?.close();
  rmSync(root, { recursive: true, force: true });
});

// Asynchronous: the channel is served by this very process, which must keep answering while conch runs.
function conch(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

const idOf = (answer: { reason?: string }) => answer.reason as string;

describe("conch pending / approve / deny", () => {
  it("with no conchd running: says so; approve and deny exit 5", async () => {
    expect(await conch("pending")).toMatchObject({
      code: 0,
      stdout: "conch pending: no conchd is running\n",
    });
    expect(JSON.parse((await conch("pending", "--json")).stdout)).toEqual({ daemons: 0, pending: [] });
    const approve = await conch("approve", "abc123");
    expect(approve.code).toBe(5);
    expect(approve.stderr).toBe("conch approve: no conchd is running, so no approval abc123 waits\n");
    expect((await conch("deny", "abc123")).code).toBe(5);
  });

  it("lists what waits, escaped; approve once, approve for the session, deny with a note", async () => {
    channel = await serveApprovalChannel(pending, { env });
    const first = idOf(pending.ask(request("touch a"), "claude-code", (id) => id));
    const second = idOf(pending.ask(request("touch b"), "claude-code", (id) => id));
    const third = idOf(pending.ask(request("rm -rf build"), "cline\u001b]0;x\u0007", (id) => id));

    const listed = await conch("pending");
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(`${first}  from claude-code (conchd pid ${process.pid})`);
    expect(listed.stdout).toContain("  command:  touch a");
    expect(listed.stdout).toContain("  model:    make the marker\\u{1b}[2J");
    expect(listed.stdout).toContain("from cline\\u{1b}]0;x\\u{07}");
    expect(listed.stdout).not.toContain("\u001b");
    const json = JSON.parse((await conch("pending", "--json")).stdout) as {
      daemons: number;
      pending: { id: string }[];
    };
    expect(json.daemons).toBe(1);
    expect(json.pending.map((entry) => entry.id)).toEqual([first, second, third]);

    expect(await conch("approve", first)).toMatchObject({
      code: 0,
      stdout: `conch approve: ${first} approved once: the model's retry of that call runs\n`,
    });
    expect(pending.ask(request("touch a"), "claude-code", (id) => id).decision).toBe("approved");
    expect((await conch("approve", second, "--session")).code).toBe(0);
    expect(pending.ask(request("touch b"), "claude-code", (id) => id).decision).toBe("approved_for_session");
    expect((await conch("deny", third, "--note", "use make clean")).code).toBe(0);
    expect(pending.ask(request("rm -rf build"), "cline", (id) => id)).toMatchObject({
      decision: "denied",
      reason: "rejected by user: use make clean",
    });
    const again = await conch("approve", first);
    expect(again.code).toBe(5);
    expect(again.stderr).toContain(`no pending approval ${first}`);
  });

  it("--always stores the question's rule, shown by conch pending; refused where no rule may be stored", async () => {
    channel = await serveApprovalChannel(pending, { env });
    const ruled = { ...request("touch a"), argv: ["touch", "a"], proposedRule: ["touch"] };
    const withRule = idOf(pending.ask(ruled, "claude-code", (id) => id));
    const bare = idOf(pending.ask(request("rm -rf build"), "claude-code", (id) => id));
    const listed = await conch("pending");
    expect(listed.stdout).toContain("  always:   --always stores the rule `touch ...`");
    const refused = await conch("approve", bare, "--always");
    expect(refused).toMatchObject({
      code: 5,
      stderr: `conch approve: approval ${bare} cannot be allowed always: no rule may be stored for it; approve it once or for the session\n`,
    });
    expect((await conch("approve", withRule, "--always")).code).toBe(0);
    expect(pending.ask(ruled, "claude-code", (id) => id).decision).toBe("approved_always");
    expect((await conch("approve", bare, "--always", "--session")).code).toBe(2);
  });

  it("refuses a malformed id or extra arguments with exit 2", async () => {
    const bad = await conch("approve", "../x");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('ID: expected an approval id of letters and digits, received "../x"');
    expect((await conch("approve")).code).toBe(2);
    expect((await conch("deny", "a", "b")).code).toBe(2);
    expect((await conch("pending", "x")).code).toBe(2);
  });
});
