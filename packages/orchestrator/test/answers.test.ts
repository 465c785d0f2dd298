// What the model reads back from session calls, through the real tools (bwrap, PTYs, bash): an empty
// poll of a shell idle at its prompt says so at once instead of waiting to say nothing, and a poll of a
// shell still busy waits as before.
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeWith } from "@conch/test-config";
import { afterEach, beforeEach, expect, it } from "vitest";
import { ToolOrchestrator } from "../src/orchestrator/tool-orchestrator.js";
import type { ToolSet } from "../src/tools/tool-set.js";
import { bwrapSandbox } from "./bwrap-sandbox.js";
import { checkedToolSet } from "./checked-tool-set.js";

let work: string;
let orchestrators: ToolOrchestrator[];

beforeEach(async () => {
  work = await realpath(await mkdtemp(join(tmpdir(), "conch-answers-")));
  orchestrators = [];
});
afterEach(async () => {
  await Promise.all(orchestrators.map((orchestrator) => orchestrator.terminateSessions()));
  await rm(work, { recursive: true, force: true });
});

async function tools(callLimitMs?: number): Promise<ToolSet> {
  const orchestrator = new ToolOrchestrator({
    cwd: work,
    approvalPolicy: "on-request",
    sandbox: { mode: "workspace-write" },
    sessionSandbox: bwrapSandbox({ mode: "workspace-write" }, work),
    approver: null,
    env: { set: { HOME: work } },
  });
  orchestrators.push(orchestrator);
  return checkedToolSet({
    profile: "codex",
    orchestrator,
    shell: { type: "bash", path: "/bin/bash" },
    ...(callLimitMs === undefined ? {} : { callLimitMs }),
  });
}

const IDLE =
  /\n\[no new output; the shell is at its prompt \(idle \d+\.\d s\): write a command to it, or stop polling\]$/;

describeWith(["bwrap", "pty"], "answers a model can act on", () => {
  it("an empty poll of a shell idle at its prompt says so; one of a busy shell waits for its output", async () => {
    const set = await tools();
    const started = await set.call("exec_command", { cmd: "bash --norc -i", tty: true, yield_time_ms: 1000 });
    const id = started.result.session_id as number;
    expect(started.result.running).toBe(true);
    const idle = await set.call("write_stdin", { session_id: id, chars: "", yield_time_ms: 30_000 });
    expect(idle.text).toMatch(
      /^Chunk ID: \w+\nWall time: [\d.]+ seconds\nProcess running with session ID \d+\n/,
    );
    expect(idle.text).toMatch(IDLE);
    // Busy: the poll waits for what the command prints, and says nothing of a prompt.
    await set.call("write_stdin", { session_id: id, chars: "sleep 1; echo woke up\n", yield_time_ms: 250 });
    const busy = await set.call("write_stdin", { session_id: id, chars: "", yield_time_ms: 10_000 });
    expect(busy.text).toContain("woke up");
    expect(busy.text).not.toContain("no new output");
    // A pipe session (no terminal, no prompt to see) is polled as before.
    const pipe = await set.call("exec_command", { cmd: "sleep 30", yield_time_ms: 250 });
    const polled = await set.call("write_stdin", {
      session_id: pipe.result.session_id as number,
      chars: "",
      yield_time_ms: 5000,
    });
    expect(polled.text).not.toContain("no new output");
  });

  it("a shell_command longer than the call limit returns at the limit, not at the first pause in its output", async () => {
    const set = await tools(2000);
    const result = await set.call("shell_command", {
      command: "echo first; sleep 0.5; echo later; sleep 30",
      timeout_ms: 60_000,
      login: false,
    });
    // What it printed before the limit is all there, and the claim about the limit is true.
    expect(result.text).toMatch(/^Process running with session ID \d+\n/);
    expect(result.text).toContain("first\nlater\n");
    expect(result.text).toContain("[Still running after 2000 ms, so this call returns");
  });
});
