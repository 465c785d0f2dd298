// What a person supervising sees of the live sessions (the console's source), through the orchestrator
// with real PTYs and real bwrap: where each session came from and who started it, its scrollback and
// live output, a person's input recorded as the person's, and a person's kill.
import { readFileSync } from "node:fs";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeWith } from "@conch/test-config";
import { afterEach, beforeEach, expect, it } from "vitest";
import { createAuditLog } from "../src/audit/audit-log.js";
import { ToolOrchestrator } from "../src/orchestrator/tool-orchestrator.js";
import type { WatchEvent } from "../src/sessions/session-monitor.js";
import { bwrapSandbox } from "./bwrap-sandbox.js";
import { checkedToolSet } from "./checked-tool-set.js";

let work: string;
let outside: string;
let orchestrator: ToolOrchestrator | null;

beforeEach(async () => {
  work = await realpath(await mkdtemp(join(tmpdir(), "conch-monitor-")));
  outside = await mkdtemp("/var/tmp/conch-monitor-outside-");
  orchestrator = null;
});
afterEach(async () => {
  await orchestrator?.terminateSessions();
  await rm(work, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describeWith(["bwrap", "pty"], "session monitor", () => {
  it("lists who started each session and where; a watcher gets the scrollback, then live output", async () => {
    const audit = createAuditLog({ path: join(outside, "audit.jsonl") });
    orchestrator = new ToolOrchestrator({
      cwd: work,
      approvalPolicy: "on-request",
      sandbox: { mode: "workspace-write" },
      sessionSandbox: bwrapSandbox({ mode: "workspace-write" }, work),
      audit,
      env: { set: { HOME: work } },
    });
    const set = await checkedToolSet({ profile: "codex", orchestrator });
    const changes: number[] = [];
    orchestrator.monitor.onChange(() => changes.push(orchestrator?.monitor.list().length ?? -1));
    const started = await set.call(
      "exec_command",
      { cmd: "bash --norc --noprofile -i", tty: true, login: false, yield_time_ms: 500 },
      { client: "claude-code\u001b]0;x\u0007" },
    );
    const id = started.result.session_id as number;
    await set.call("write_stdin", { session_id: id, chars: "echo before-$((6*7))\n", yield_time_ms: 2000 });
    const [view] = orchestrator.monitor.list();
    expect(view).toMatchObject({
      id,
      command: "bash --norc --noprofile -i",
      tool: "exec_command",
      cwd: work,
      sandbox: "bwrap",
      client: "claude-code\u001b]0;x\u0007",
      tty: true,
      running: true,
      cols: 80,
      rows: 24,
    });
    expect(view?.lastLine).toMatch(/^bash-[0-9.]+[$#]$/);

    const events: WatchEvent[] = [];
    const watch = orchestrator.monitor.watch(id, (event) => events.push(event));
    expect(watch?.scrollback.toString("utf8")).toContain("before-42");
    const live = (): string =>
      Buffer.concat(events.flatMap((event) => (event.type === "output" ? [event.data] : []))).toString(
        "utf8",
      );

    // A person takes over: the keystrokes reach the shell, and the audit log says a person typed them.
    orchestrator.sendToSession("console", id, "echo hi-from-human\r", { by: "person" });
    await until(() => live().includes("hi-from-human\r\n"), "the person's output");
    orchestrator.monitor.list();
    // The model's next read includes what the person's command printed: it sees what happened.
    const read = await set.call("write_stdin", { session_id: id, chars: "", yield_time_ms: 5000 });
    expect(read.text).toContain("hi-from-human");

    orchestrator.sessions.resize(id, 132, 40);
    await until(() => events.some((event) => event.type === "resized"), "the resize");
    expect(orchestrator.monitor.list()[0]).toMatchObject({ cols: 132, rows: 40 });

    await orchestrator.closeSession("console", id, { by: "person" });
    await until(() => events.some((event) => event.type === "removed"), "the removal");
    watch?.stop();
    expect(orchestrator.monitor.list()).toEqual([]);
    expect(orchestrator.monitor.watch(id, () => {})).toBeNull();
    expect(changes.at(-1)).toBe(0);

    await audit.flush();
    const lines = readFileSync(join(outside, "audit.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.find((line) => line.type === "execution")).toMatchObject({
      client: "claude-code\u001b]0;x\u0007",
      sessionId: id,
    });
    expect(lines.filter((line) => line.type === "input").map((line) => [line.tool, line.by])).toEqual([
      ["write_stdin", "model"],
      ["console", "person"],
    ]);
    expect(lines.at(-1)).toMatchObject({
      type: "session-closed",
      tool: "console",
      reason: "closed",
      by: "person",
    });
  });
});
