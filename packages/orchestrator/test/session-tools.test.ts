// exec_command, write_stdin and the terminal tools through the orchestrator, with real PTYs and real bwrap.
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, readdir, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ScriptedApprover } from "@conch/approval";
import type { ApprovalPolicy } from "@conch/protocol";
import { describeWith } from "@conch/test-config";
import { afterEach, beforeEach, expect, it } from "vitest";
import { type AuditLog, createAuditLog } from "../src/audit/audit-log.js";
import { ToolOrchestrator } from "../src/orchestrator/tool-orchestrator.js";
import type { ToolSet } from "../src/tools/tool-set.js";
import { bwrapSandbox } from "./bwrap-sandbox.js";
import { checkedToolSet } from "./checked-tool-set.js";

let work: string;
let outside: string;
let orchestrators: ToolOrchestrator[];

beforeEach(async () => {
  work = await realpath(await mkdtemp(join(tmpdir(), "conch-sessions-")));
  outside = await mkdtemp("/var/tmp/conch-sessions-outside-");
  orchestrators = [];
});
afterEach(async () => {
  await Promise.all(orchestrators.map((o) => o.terminateSessions()));
  await rm(work, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    return !["Z", "X"].includes(stat.charAt(stat.lastIndexOf(")") + 2));
  } catch {
    return false;
  }
}

async function tools(
  profile: "codex" | "terminal",
  options: {
    approvalPolicy?: ApprovalPolicy;
    approver?: ScriptedApprover;
    durableOneShot?: boolean;
    callLimitMs?: number;
    audit?: AuditLog;
  } = {},
): Promise<{ set: ToolSet; orchestrator: ToolOrchestrator }> {
  const orchestrator = new ToolOrchestrator({
    cwd: work,
    approvalPolicy: options.approvalPolicy ?? "on-request",
    sandbox: { mode: "workspace-write" },
    sessionSandbox: bwrapSandbox({ mode: "workspace-write" }, work),
    approver: options.approver ?? null,
    audit: options.audit ?? null,
    // A home of its own: no user profile prints into the sessions.
    env: { set: { HOME: work } },
  });
  orchestrators.push(orchestrator);
  const set = await checkedToolSet({
    profile,
    orchestrator,
    durableOneShot: options.durableOneShot === true,
    ...(options.callLimitMs === undefined ? {} : { callLimitMs: options.callLimitMs }),
  });
  return { set, orchestrator };
}

const HEADER =
  /^Chunk ID: [0-9a-f]{6}\nWall time: \d+\.\d{4} seconds\n(Process exited with code -?\d+|Process running with session ID \d+)\nOriginal token count: \d+\nOutput:\n/;

describeWith(["bwrap", "pty"], "session tools", () => {
  it("exec_command bash -i in a sandboxed PTY keeps its state across write_stdin calls", async () => {
    const { set } = await tools("codex");
    const started = await set.call("exec_command", { cmd: "bash -i", tty: true, yield_time_ms: 500 });
    expect(started.text).toMatch(HEADER);
    expect(started.result).toMatchObject({ status: "ok", running: true, exit_code: null, sandbox: "bwrap" });
    const id = started.result.session_id as number;
    expect(started.text).toContain(`Process running with session ID ${id}\n`);
    await set.call("write_stdin", { session_id: id, chars: "export FOO=bar\n" });
    const echoed = await set.call("write_stdin", {
      session_id: id,
      chars: "echo $FOO\n",
      yield_time_ms: 2000,
    });
    expect(echoed.text).toMatch(HEADER);
    expect(echoed.text).toContain("bar");

    // Ctrl-C written to the PTY interrupts the foreground program inside bwrap.
    await set.call("write_stdin", { session_id: id, chars: "sleep 100\n", yield_time_ms: 300 });
    await set.call("write_stdin", { session_id: id, chars: "\u0003", yield_time_ms: 300 });
    const after = await set.call("write_stdin", {
      session_id: id,
      chars: "echo back-$((40+2))\n",
      yield_time_ms: 3000,
    });
    expect(after.text).toContain("back-42");
    // The seccomp program went through a private file that the session's shell removed.
    expect((await readdir(tmpdir())).filter((name) => name.startsWith("conch-fds-"))).toEqual([]);
  });

  it("each write and signal sent to a live session is an audit line", async () => {
    const path = join(outside, "audit.jsonl");
    const audit = createAuditLog({ path });
    const codex = await tools("codex", { audit });
    const started = await codex.set.call("exec_command", {
      cmd: "cat",
      tty: true,
      login: false,
      yield_time_ms: 500,
    });
    const id = started.result.session_id as number;
    const echoed = await codex.set.call("write_stdin", {
      session_id: id,
      chars: "hello \u001b[31mred\n",
      yield_time_ms: 2000,
    });
    expect(echoed.text).toContain("hello");
    await codex.set.call("write_stdin", { session_id: id, chars: "\u0003", yield_time_ms: 2000 });

    const terminal = await tools("terminal", { audit });
    const opened = await terminal.set.call("terminal_open", { command: "cat", tty: true });
    const tid = opened.result.session_id as number;
    await terminal.set.call("terminal_write", { id: tid, input: "typed\n" });
    await terminal.set.call("terminal_signal", { id: tid, signal: "TERM" });

    await audit.flush();
    const inputs = readFileSync(path, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.type === "input")
      .map(({ time, ...line }) => line);
    expect(inputs).toEqual([
      {
        type: "input",
        tool: "write_stdin",
        sessionId: id,
        running: true,
        by: "model",
        bytes: 15,
        sha256: expect.any(String),
        text: "hello \\u{1b}[31mred\\u{0a}",
      },
      {
        type: "input",
        tool: "write_stdin",
        sessionId: id,
        running: true,
        by: "model",
        bytes: 1,
        sha256: expect.any(String),
        text: "\\u{03}",
      },
      {
        type: "input",
        tool: "terminal_write",
        sessionId: tid,
        running: true,
        by: "model",
        bytes: 6,
        sha256: expect.any(String),
        text: "typed\\u{0a}",
      },
      {
        type: "input",
        tool: "terminal_signal",
        sessionId: tid,
        running: true,
        by: "model",
        signal: "SIGTERM",
      },
    ]);
  });

  it("exec_command returns at once when the command exits, with Codex's text", async () => {
    const { set } = await tools("codex");
    const result = await set.call("exec_command", { cmd: "sleep 0.1; echo done", login: false });
    expect(result.text).toMatch(HEADER);
    expect(result.text).toContain("Process exited with code 0\n");
    expect(result.text.endsWith("Output:\ndone\n")).toBe(true);
    expect(result.result).toMatchObject({ exit_code: 0, running: false, session_id: null });
    expect(result.result.wall_time_ms as number).toBeLessThan(5_000);
  });

  it("without a tty, write_stdin refuses text and turns Ctrl-C into SIGINT", async () => {
    const { set } = await tools("codex");
    const started = await set.call("exec_command", {
      cmd: "trap 'echo got INT; exit 3' INT; echo ready; while :; do sleep 0.05; done",
      login: false,
      yield_time_ms: 1000,
    });
    const id = started.result.session_id as number;
    const refused = await set.call("write_stdin", { session_id: id, chars: "hello" });
    expect(refused.text).toBe(
      "stdin is closed for this session; rerun exec_command with tty=true to keep stdin open",
    );
    expect(refused.result).toMatchObject({ status: "failed", error_code: "STDIN_CLOSED" });
    const interrupted = await set.call("write_stdin", {
      session_id: id,
      chars: "\u0003",
      yield_time_ms: 5000,
    });
    expect(interrupted.text).toContain("Process exited with code 3\n");
    expect(interrupted.text).toContain("got INT");
    const gone = await set.call("write_stdin", { session_id: id, chars: "" });
    expect(gone.text).toBe(
      `session ${id} exited with code 3; its final output was returned by an earlier call`,
    );
    expect(gone.result).toMatchObject({ status: "failed", error_code: "UNKNOWN_SESSION" });
  });

  it("an early sandbox denial goes through the retry path: asked with the denial, then run outside", async () => {
    const approver = new ScriptedApprover(["approved"]);
    const { set } = await tools("codex", { approvalPolicy: "on-failure", approver });
    const target = join(outside, "session.txt");
    // A wait asked for: the start then ends at the exit, not at a settle after the error's output, which
    // a loaded machine can leave standing longer than settle_ms before sh exits.
    const result = await set.call("exec_command", {
      cmd: `echo hi > ${target}`,
      login: false,
      yield_time_ms: 10_000,
    });
    expect(approver.requests).toHaveLength(1);
    expect(approver.requests[0]?.sandboxDenial).toContain("Read-only file system");
    expect(result.result).toMatchObject({ exit_code: 0, sandbox: "none", escalated: true });
    expect(readFileSync(target, "utf8")).toBe("hi\n");
  });

  it("the terminal profile: open, write, read, list, signal, close (which kills the tree)", async () => {
    const { set, orchestrator } = await tools("terminal");
    const opened = await set.call("terminal_open", { command: "bash --norc --noprofile -i", tty: true });
    expect(opened.text).toMatch(/^Terminal ID: \d+\nStatus: running\nOutput:\n/);
    const id = opened.result.session_id as number;
    expect((await set.call("terminal_write", { id, input: "sleep 300 & echo bg=$!\n" })).text).toBe(
      `Wrote 23 bytes to terminal ${id}.`,
    );
    const read = await set.call("terminal_read", { id, wait_ms: 2000 });
    expect(read.text).toMatch(/bg=\d+/);
    const listed = await set.call("terminal_list", {});
    // The shell is back at its prompt once it has printed it (said at once), or still on its way there.
    expect(listed.text).toMatch(
      new RegExp(
        `\\n${id}\\tpid \\d+\\t(?:running|idle at its shell prompt)\\tage \\d+s\\toutput \\d+s ago\\tbash --norc --noprofile -i$`,
      ),
    );
    expect((await set.call("terminal_signal", { id, signal: "INT" })).text).toBe(
      `Sent SIGINT to terminal ${id}.`,
    );
    const [info] = orchestrator.sessions.list();
    const root = info?.pid as number;
    expect(isAlive(root)).toBe(true);
    expect((await set.call("terminal_close", { id })).text).toBe(
      `Terminal ${id} closed; its processes were killed.`,
    );
    expect(isAlive(root)).toBe(false);
    expect((await set.call("terminal_read", { id })).text).toBe(
      `Unknown terminal id ${id} (it was closed; terminal_list shows the open ones)`,
    );
    expect((await set.call("terminal_read", { id: 99_999 })).text).toBe(
      "Unknown terminal id 99999 (no terminal had that id; terminal_list shows the open ones)",
    );

    const exits = await set.call("terminal_open", { command: "echo bye; exit 4", tty: false });
    // The open waits 250 ms: on a loaded machine the exit may land after it, and a read then says it.
    let seen = exits.text;
    for (let i = 0; i < 100 && !seen.includes("Status: exited"); i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      seen = (await set.call("terminal_read", { id: exits.result.session_id as number })).text;
    }
    expect(seen).toMatch(
      new RegExp(
        `^Terminal ID: ${exits.result.session_id}\\nStatus: exited with code 4\\nOutput:\\n(bye\\n)?$`,
      ),
    );
    expect(`${exits.text}${seen}`).toContain("bye\n");
    expect((await set.call("terminal_list", {})).text).toContain("\texited 4\t");
    const exitedId = exits.result.session_id as number;
    expect((await set.call("terminal_write", { id: exitedId, input: "\u0003" })).text).toBe(
      `Terminal ${exitedId} has exited; nothing was written.`,
    );
  });

  it.each([
    ["python3 -i -q", "print(6 * 7)\n", "42"],
    ["node -i", "6 * 7\n", "42"],
  ])(
    "Ctrl-C interrupts a sandboxed %s and leaves it running (the sandbox does not take the SIGINT)",
    async (cmd, input, answer) => {
      const { set } = await tools("codex");
      // Polls until `text` shows (a loaded machine starts a REPL slowly), at most ~20 s.
      const until = async (id: number, text: string): Promise<string> => {
        let seen = "";
        for (let i = 0; i < 20 && !seen.includes(text); i++) {
          seen += (await set.call("write_stdin", { session_id: id, chars: "", yield_time_ms: 1000 })).text;
        }
        return seen;
      };
      const started = await set.call("exec_command", { cmd, tty: true, yield_time_ms: 1500 });
      expect(started.result).toMatchObject({ running: true, sandbox: "bwrap" });
      const id = started.result.session_id as number;
      if (!started.text.includes(">")) await until(id, ">");
      const interrupted = await set.call("write_stdin", {
        session_id: id,
        chars: "\u0003",
        yield_time_ms: 1000,
      });
      expect(interrupted.text).toContain(`Process running with session ID ${id}`);
      const after = await set.call("write_stdin", { session_id: id, chars: input, yield_time_ms: 1500 });
      expect(after.text.includes(answer) ? after.text : await until(id, answer)).toContain(answer);
      expect((await set.call("write_stdin", { session_id: id, chars: "" })).text).toContain(
        `Process running with session ID ${id}`,
      );

      const terminal = await tools("terminal");
      const opened = await terminal.set.call("terminal_open", { command: cmd });
      const tid = opened.result.session_id as number;
      let screen = opened.text;
      for (let i = 0; i < 20 && !screen.includes(">"); i++) {
        screen += (await terminal.set.call("terminal_read", { id: tid, wait_ms: 1000 })).text;
      }
      expect((await terminal.set.call("terminal_signal", { id: tid, signal: "INT" })).text).toBe(
        `Sent SIGINT to terminal ${tid}.`,
      );
      // Typed only once the interrupt is handled and a prompt is back, or the ^C would discard it.
      let prompt = "";
      for (let i = 0; i < 20 && !prompt.includes(">"); i++) {
        prompt += (await terminal.set.call("terminal_read", { id: tid, wait_ms: 1000 })).text.replace(
          /^[\s\S]*?Output:\n/,
          "",
        );
      }
      await terminal.set.call("terminal_write", { id: tid, input });
      let read = "";
      for (let i = 0; i < 20 && !read.includes(answer); i++) {
        read += (await terminal.set.call("terminal_read", { id: tid, wait_ms: 1000 })).text;
      }
      expect(read).toContain(answer);
      expect(read).toMatch(/^Terminal ID: \d+\nStatus: running\n/);
    },
  );

  it("terminal_open gives a REPL a terminal by default, so it stays open for input", async () => {
    const { set } = await tools("terminal");
    const opened = await set.call("terminal_open", { command: "python3 -i -q" });
    expect(opened.text).toMatch(/^Terminal ID: \d+\nStatus: running\n/);
    const id = opened.result.session_id as number;
    await set.call("terminal_write", { id, input: "print(6 * 7)\n" });
    // A REPL's answer settles on quiet output: on a loaded machine the echo can come alone first.
    let read = "";
    for (let i = 0; i < 10 && !read.includes("42"); i++) {
      read += (await set.call("terminal_read", { id, wait_ms: 2000 })).text;
    }
    expect(read).toContain("42");
    expect((await set.call("terminal_close", { id })).text).toBe(
      `Terminal ${id} closed; its processes were killed.`,
    );
    // Without one, the error says so in this profile's words, not exec_command's.
    const piped = await set.call("terminal_open", { command: "sleep 30", tty: false });
    const pipedId = piped.result.session_id as number;
    expect((await set.call("terminal_write", { id: pipedId, input: "x\n" })).text).toBe(
      `terminal ${pipedId} was opened without a tty, so its stdin is closed; open it again with terminal_open and "tty": true`,
    );
    await set.call("terminal_close", { id: pipedId });
  });

  it("durable one-shot: a shell_command still running at its timeout becomes a session to poll", async () => {
    const { set } = await tools("codex", { durableOneShot: true });
    const quick = await set.call("shell_command", { command: "echo fast", login: false });
    expect(quick.text).toMatch(/^Exit code: 0\nWall time: [\d.]+ seconds\nOutput:\nfast\n$/);
    const slow = await set.call("shell_command", {
      command: "echo first; sleep 1; echo second",
      login: false,
      timeout_ms: 300,
    });
    const id = slow.result.session_id as number;
    expect(slow.result.running).toBe(true);
    expect(slow.text).toContain(`Process running with session ID ${id}`);
    expect(slow.text).toContain("first");
    const polled = await set.call("write_stdin", { session_id: id, chars: "", yield_time_ms: 5000 });
    expect(polled.text).toContain("Process exited with code 0\n");
    expect(polled.text).toContain("second");
  });

  it("a call limit: a longer shell_command returns as a session at the limit, and dies at its own timeout", async () => {
    const auditPath = join(outside, "limit-audit.jsonl");
    const audit = createAuditLog({ path: auditPath });
    const { set, orchestrator } = await tools("codex", { callLimitMs: 500, audit });
    const short = await set.call("shell_command", { command: "echo fast", login: false, timeout_ms: 400 });
    expect(short.text).toMatch(/^Exit code: 0\n/);
    const finishes = await set.call("shell_command", {
      command: "echo first; sleep 1.5; echo second",
      login: false,
      timeout_ms: 20_000,
    });
    const id = finishes.result.session_id as number;
    expect(finishes.result.running).toBe(true);
    expect(finishes.text).toContain(`Process running with session ID ${id}`);
    expect(finishes.text).toContain("keeps running until its timeout_ms (20000 ms)");
    const done = await set.call("write_stdin", { session_id: id, chars: "", yield_time_ms: 10_000 });
    expect(done.text).toContain("Process exited with code 0\n");
    expect(done.text).toContain("second");

    const endless = await set.call("shell_command", { command: "sleep 300", login: false, timeout_ms: 2000 });
    const endlessId = endless.result.session_id as number;
    const pid = orchestrator.sessions.list().find((s) => s.id === endlessId)?.pid as number;
    expect(isAlive(pid)).toBe(true);
    const killed = await set.call("write_stdin", { session_id: endlessId, chars: "", yield_time_ms: 10_000 });
    expect(killed.result.running).toBe(false);
    expect(killed.text).not.toContain("Process exited with code 0\n");
    expect(isAlive(pid)).toBe(false);
    // The kill at its timeout went through the door: the audit log says so, as the model's call.
    await audit.flush();
    const kills = readFileSync(auditPath, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.type === "input" && line.sessionId === endlessId);
    expect(kills).toMatchObject([{ tool: "shell_command", signal: "SIGKILL", by: "model", running: true }]);
  });

  it("a call limit: cancelled before it returns, the command dies as a one-shot would (130)", async () => {
    const auditPath = join(outside, "cancel-audit.jsonl");
    const audit = createAuditLog({ path: auditPath });
    const { set, orchestrator } = await tools("codex", { callLimitMs: 5000, audit });
    const controller = new AbortController();
    const pending = set.call(
      "shell_command",
      { command: "echo started; sleep 300", login: false, timeout_ms: 60_000 },
      { signal: controller.signal },
    );
    const deadline = Date.now() + 10_000;
    while (orchestrator.sessions.list().length === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const pid = orchestrator.sessions.list()[0]?.pid as number;
    controller.abort();
    const result = await pending;
    expect(result.result).toMatchObject({ exit_code: 130, canceled: true, running: false, session_id: null });
    expect(result.text).toMatch(/^Exit code: 130\n/);
    expect(orchestrator.sessions.list()).toEqual([]);
    expect(isAlive(pid)).toBe(false);
    await audit.flush();
    const closed = readFileSync(auditPath, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.type === "session-closed");
    expect(closed).toMatchObject([{ tool: "shell_command", reason: "closed", by: "model" }]);
  });

  it("a closed orchestrator's sessions are all dead", async () => {
    const { set, orchestrator } = await tools("codex");
    await set.call("exec_command", { cmd: "sleep 300 & wait", login: false, yield_time_ms: 300 });
    await set.call("exec_command", { cmd: "bash -i", tty: true, yield_time_ms: 300 });
    // Under bwrap the root is bwrap itself, and the pid namespace ends with it.
    const pids = orchestrator.sessions.list().map((s) => s.pid);
    expect(pids).toHaveLength(2);
    expect(pids.every(isAlive)).toBe(true);
    await orchestrator.terminateSessions();
    expect(pids.filter(isAlive)).toEqual([]);
    expect(existsSync(work)).toBe(true);
  });
});
