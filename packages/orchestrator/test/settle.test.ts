// Settled returns through the codex tools, under real bwrap (a pid namespace: the shell's pid as the
// kernel sees it is found from outside). A call that did not settle would run to its window, longer
// than the test's timeout: that, not a timing, is what fails here. The model text of a call that
// returned early says what it always said: a running session is still "Process running with session ID".
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeWith, itWith } from "@conch/test-config";
import { afterEach, beforeEach, expect, it } from "vitest";
import { createAuditLog } from "../src/audit/audit-log.js";
import { ToolOrchestrator } from "../src/orchestrator/tool-orchestrator.js";
import type { ToolSet } from "../src/tools/tool-set.js";
import { bwrapSandbox } from "./bwrap-sandbox.js";
import { checkedToolSet } from "./checked-tool-set.js";

let work: string;
let outside: string;
let orchestrator: ToolOrchestrator | null;

beforeEach(async () => {
  work = await realpath(await mkdtemp(join(tmpdir(), "conch-settle-")));
  outside = await mkdtemp("/var/tmp/conch-settle-outside-");
  orchestrator = null;
});
afterEach(async () => {
  await orchestrator?.terminateSessions();
  await rm(work, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

async function tools(settleMs?: number): Promise<ToolSet> {
  orchestrator = new ToolOrchestrator({
    cwd: work,
    approvalPolicy: "on-request",
    sandbox: { mode: "workspace-write" },
    sessionSandbox: bwrapSandbox({ mode: "workspace-write" }, work),
    audit: createAuditLog({ path: join(outside, "audit.jsonl") }),
    env: { set: { HOME: work, PS1: "prompt$ " } },
    ...(settleMs === undefined ? {} : { settleMs }),
  });
  return checkedToolSet({ profile: "codex", orchestrator });
}

const WINDOW = 30_000;
const QUICK = 15_000;

describeWith(["bwrap", "pty"], "settled returns under the sandbox", () => {
  it(
    "bash -i in bwrap: the start and each write return at the prompt, long before their window",
    async () => {
      const set = await tools();
      // No yield_time_ms: the start settles (a shell back at its prompt) instead of holding 10 s.
      const started = await set.call("exec_command", {
        cmd: "bash --norc --noprofile -i",
        tty: true,
        login: false,
      });
      expect(started.text).toMatch(/Process running with session ID \d+/);
      expect(started.result.sandbox).toBe("bwrap");
      const id = started.result.session_id as number;
      const hi = await set.call("write_stdin", { session_id: id, chars: "echo hi\n", yield_time_ms: WINDOW });
      expect(hi.text).toMatch(/^hi\r?$/m);
      expect(hi.text).toContain(`Process running with session ID ${id}`);
      const slow = await set.call("write_stdin", {
        session_id: id,
        chars: "sleep 0.5; echo slept-$((6*7))\n",
        yield_time_ms: WINDOW,
      });
      expect(slow.text).toMatch(/^slept-42\r?$/m);
      expect(slow.result.session_id).toBe(id);
    },
    QUICK,
  );

  itWith(
    "python3",
    "a python3 REPL step returns once the answer went quiet",
    async () => {
      const set = await tools();
      const started = await set.call("exec_command", { cmd: "python3 -i -q", tty: true, login: false });
      const id = started.result.session_id as number;
      const answer = await set.call("write_stdin", {
        session_id: id,
        chars: "print(6 * 7)\n",
        yield_time_ms: WINDOW,
      });
      expect(answer.text).toMatch(/^42\r?$/m);
    },
    QUICK,
  );

  it("exec_command without yield_time_ms returns with a server's banner; with it, waits its window", async () => {
    const set = await tools();
    const server = "sleep 0.1; echo 'listening on 127.0.0.1:8000'; exec sleep 600";
    // The default window is 10 s, under the test's timeout; a second, explicit, window follows, and
    // both fit only if the first returned at the banner.
    const banner = await set.call("exec_command", { cmd: server, login: false });
    expect(banner.text).toContain("listening on 127.0.0.1:8000");
    expect(banner.text).toMatch(/Process running with session ID \d+/);
    const explicit = await set.call("exec_command", { cmd: server, login: false, yield_time_ms: 1500 });
    expect(explicit.text).toContain("listening on 127.0.0.1:8000");
    expect(explicit.result.wall_time_ms as number).toBeGreaterThanOrEqual(1400);
  }, 11_000);

  it("an empty poll returns once new output came and settled, not after the 5 s floor", async () => {
    const set = await tools();
    const started = await set.call("exec_command", {
      cmd: "sleep 1; echo 'bundle rebuilt'; exec sleep 600",
      login: false,
      yield_time_ms: 250,
    });
    const id = started.result.session_id as number;
    const polled = await set.call("write_stdin", { session_id: id, chars: "", yield_time_ms: 1000 });
    expect(polled.text).toContain("bundle rebuilt");
    expect(polled.text).toContain(`Process running with session ID ${id}`);
  }, 4_500);

  it(
    "settle_ms 0: a write waits its whole window, as before",
    async () => {
      const set = await tools(0);
      const started = await set.call("exec_command", {
        cmd: "bash --norc --noprofile -i",
        tty: true,
        login: false,
        yield_time_ms: 500,
      });
      const id = started.result.session_id as number;
      const hi = await set.call("write_stdin", { session_id: id, chars: "echo hi\n", yield_time_ms: 1500 });
      expect(hi.text).toMatch(/^hi\r?$/m);
      expect(hi.result.wall_time_ms as number).toBeGreaterThanOrEqual(1400);
    },
    QUICK,
  );
});
