// What the model reads back from session calls, through the real tools (bwrap, PTYs, bash): an empty
// poll of a shell idle at its prompt says so at once instead of waiting to say nothing, and a poll of a
// shell still busy waits as before.
import { chmod, mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSandboxRegistry } from "@conch/sandbox-core";
import { createLinuxBackend } from "@conch/sandbox-linux";
import { describeWith } from "@conch/test-config";
import { afterEach, beforeEach, expect, it } from "vitest";
import { createAuditLog } from "../src/audit/audit-log.js";
import { sessionSandbox } from "../src/orchestrator/session-sandbox.js";
import { ToolOrchestrator } from "../src/orchestrator/tool-orchestrator.js";
import { createSpillStore } from "../src/spill/spill-store.js";
import type { ToolSet } from "../src/tools/tool-set.js";
import { checkedToolSet } from "./checked-tool-set.js";

let work: string;
let outside: string;
let orchestrators: ToolOrchestrator[];

beforeEach(async () => {
  work = await realpath(await mkdtemp(join(tmpdir(), "conch-answers-")));
  outside = await realpath(await mkdtemp("/var/tmp/conch-answers-outside-"));
  orchestrators = [];
});
afterEach(async () => {
  await Promise.all(orchestrators.map((orchestrator) => orchestrator.terminateSessions()));
  await rm(work, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

let last: ToolOrchestrator;

async function tools(callLimitMs?: number, denyRead: string[] = []): Promise<ToolSet> {
  const orchestrator = new ToolOrchestrator({
    cwd: work,
    approvalPolicy: "on-request",
    sandbox: { mode: "workspace-write" },
    sessionSandbox: sessionSandbox(
      { mode: "workspace-write" },
      work,
      createSandboxRegistry([createLinuxBackend()]),
      {
        denyRead,
      },
    ),
    approver: null,
    env: { set: { HOME: work } },
    spill: createSpillStore({ dir: join(work, ".spill") }),
    audit: createAuditLog({ path: join(work, ".audit.jsonl"), env: {} }),
  });
  orchestrators.push(orchestrator);
  last = orchestrator;
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

  it("a cut inside one long line says which bytes, and the read it suggests prints them", async () => {
    const set = await tools();
    const long = await set.call("shell_command", {
      command: "head -c 2000000 /dev/zero | tr '\\0' a; printf 'END\\n'",
      login: false,
    });
    const marker =
      /\[… [\d.]+ MB of line 1 omitted \(bytes ([\d,]+)–([\d,]+) of the output\); full output: (\S+) — read 8,000 bytes from there with: (tail -c \+\d+ \S+ \| head -c 8000); find where a string is with: grep -ob 'STRING' \S+\]/.exec(
        long.text,
      );
    expect(marker, long.text.slice(0, 400)).not.toBeNull();
    const [, first, last, , read] = marker as unknown as [string, string, string, string, string];
    expect(Number(last.replaceAll(",", ""))).toBeLessThan(2_000_004);
    expect(Number(first.replaceAll(",", ""))).toBeGreaterThan(1);
    // The read it suggests prints the bytes it says, from a line no `sed -n` range could cut.
    const piece = await set.call("shell_command", { command: `${read} | wc -c`, login: false });
    expect(piece.text).toMatch(/\n8000\n$/);
  });

  it("says what the sandbox kept a command from: a hidden secret, a read-only path, a protected one", async () => {
    const secrets = join(outside, "secrets");
    await mkdir(secrets);
    await writeFile(join(secrets, "id_rsa"), "PRIVATE\n");
    await mkdir(join(work, ".conch"));
    const set = await tools(undefined, [secrets]);
    const secret = await set.call("shell_command", { command: `cat ${secrets}/id_rsa`, login: false });
    expect(secret.text).toContain(
      `[${secrets}/id_rsa is hidden from sandboxed commands (secrets such as ~/.ssh and cloud credentials are); do not ask to escalate for it unless the user asked for that.]`,
    );
    expect(secret.text).not.toContain("require_escalated");
    const write = await set.call("shell_command", { command: `touch ${outside}/made`, login: false });
    expect(write.text).toContain(
      `[${outside}/made is read-only in the sandbox: only ${work} and /tmp are writable. To write there, run it again with sandbox_permissions "require_escalated" and a justification, and the user will be asked.]`,
    );
    const conch = await set.call("shell_command", { command: "touch .conch/x", login: false });
    expect(conch.text).toContain(
      `${work}/.conch/x is kept read-only inside the workspace: .git's config and hooks, .conch and .agents can make the user's own tools run programs later.`,
    );
    // The same in a session's later call.
    const shell = await set.call("exec_command", { cmd: "bash --norc -i", tty: true, yield_time_ms: 1000 });
    const typed = await set.call("write_stdin", {
      session_id: shell.result.session_id as number,
      chars: `cat ${secrets}/id_rsa\n`,
      yield_time_ms: 5000,
    });
    expect(typed.text).toContain(`[${secrets}/id_rsa is hidden from sandboxed commands`);
  });

  it("a path only its owner reads: the rest of the output is complete (uid 65534 only)", async () => {
    if (process.getuid?.() === 0) {
      // As root the sandbox reads what its owner alone may read: nothing is unreadable to show.
      return;
    }
    const closed = join(outside, "closed");
    await mkdir(closed);
    await writeFile(join(outside, "open.txt"), "open\n");
    await chmod(closed, 0o000);
    const set = await tools();
    const listed = await set.call("shell_command", {
      command: `ls ${outside}/closed ${outside}/open.txt`,
      login: false,
    });
    expect(listed.text).toContain(`${outside}/open.txt`);
    expect(listed.text).toContain(
      `${outside}/closed is not readable in the sandbox (only its owner may read it); the rest of the output is complete.`,
    );
    await chmod(closed, 0o755);
  });

  it("after Ctrl-C or a quit key the answer is the exit; an answer that shows nothing is no answer yet", async () => {
    const set = await tools();
    const trapped = await set.call("exec_command", {
      cmd: "trap 'echo bye; sleep 0.3; exit 3' INT; while :; do sleep 0.05; done",
      yield_time_ms: 300,
    });
    const interrupted = await set.call("write_stdin", {
      session_id: trapped.result.session_id as number,
      chars: "\u0003",
      yield_time_ms: 5000,
    });
    expect(interrupted.text).toContain("Process exited with code 3\n");
    expect(interrupted.text).toContain("bye");
    await writeFile(join(work, "notes.txt"), "some notes\n");
    const pager = await set.call("exec_command", { cmd: "less notes.txt", tty: true, yield_time_ms: 1000 });
    const quit = await set.call("write_stdin", {
      session_id: pager.result.session_id as number,
      chars: "q",
      yield_time_ms: 5000,
    });
    expect(quit.text).toMatch(/Process exited with code 0\n/);
    // Its first output clears the screen and shows nothing: the call waits for what it draws.
    const drawn = await set.call("exec_command", {
      cmd: "printf '\\033[2J\\n'; sleep 0.6; echo drawn; sleep 30",
    });
    expect(drawn.text).toContain("drawn");
  });

  it("what a person typed into a session is said in the model's next answer from it", async () => {
    const set = await tools();
    const shell = await set.call("exec_command", { cmd: "bash --norc -i", tty: true, yield_time_ms: 1000 });
    const id = shell.result.session_id as number;
    // The console's take-over: a person types a line.
    last.sendToSession("console", id, "echo typed-by-person\r", { by: "person" });
    const next = await set.call("write_stdin", { session_id: id, chars: "", yield_time_ms: 5000 });
    expect(next.text).toContain("typed-by-person");
    expect(next.text).toContain(
      "[a person typed into this session since your last call: `echo typed-by-person\u23ce`]",
    );
    const after = await set.call("write_stdin", { session_id: id, chars: "", yield_time_ms: 5000 });
    expect(after.text).not.toContain("a person typed");
  });

  it("list_sessions lists the caller's live sessions, so a lost id is found again", async () => {
    const set = await tools();
    const mine = await set.call(
      "exec_command",
      { cmd: "echo serving; sleep 30", yield_time_ms: 500 },
      { client: "alpha" },
    );
    await set.call("exec_command", { cmd: "sleep 30", yield_time_ms: 250 }, { client: "beta" });
    const listed = await set.call("list_sessions", {}, { client: "alpha" });
    const [header, ...rows] = listed.text.split("\n");
    expect(header).toBe("session_id\tstate\tstdin\tage\tcommand\tlast output line");
    expect(rows).toEqual([
      expect.stringMatching(
        new RegExp(
          `^${mine.result.session_id}\\trunning\\tpipes\\tage \\d+s\\techo serving; sleep 30\\tlast: serving$`,
        ),
      ),
    ]);
    expect(listed.result).toMatchObject({ tool: "list_sessions", status: "ok" });
    expect((await set.call("list_sessions", {}, { client: "gamma" })).text).toBe(
      "No live sessions: start one with exec_command.",
    );
  });

  it("list_sessions says which session waits for input, and which shell idles at its prompt", async () => {
    const set = await tools();
    const asks = await set.call("exec_command", {
      cmd: "printf 'Proceed? '; read answer",
      tty: true,
      yield_time_ms: 500,
    });
    const shell = await set.call("exec_command", { cmd: "bash --norc -i", tty: true, yield_time_ms: 1000 });
    // Each is flagged once its terminal has been quiet for a second: listed until both are (bounded).
    let text = "";
    for (let round = 0; round < 100; round++) {
      text = (await set.call("list_sessions", {})).text;
      if (text.includes("waiting for input") && text.includes("idle at its shell prompt")) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const rows = text.split("\n");
    expect(rows.find((row) => row.startsWith(`${asks.result.session_id}\t`))).toMatch(
      /\trunning, waiting for input \((bash|sh|dash)\)\t/,
    );
    expect(rows.find((row) => row.startsWith(`${shell.result.session_id}\t`))).toContain(
      "\tidle at its shell prompt\t",
    );
  });

  it("a person's keys, typed one by one, are one audit row per line", async () => {
    const set = await tools();
    const shell = await set.call("exec_command", { cmd: "bash --norc -i", tty: true, yield_time_ms: 1000 });
    const id = shell.result.session_id as number;
    for (const key of ["e", "c", "h", "o", " ", "h", "i", "\r"])
      last.sendToSession("console", id, key, { by: "person" });
    last.sendToSession("console", id, "ls", { by: "person" });
    await set.call("write_stdin", { session_id: id, chars: "\u0003", yield_time_ms: 1000 });
    await last.terminateSessions();
    const rows = (await readFile(join(work, ".audit.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.type === "input" && line.sessionId === id);
    expect(rows.map((row) => [row.by, row.text ?? row.signal])).toEqual([
      ["person", "echo hi\\u{0d}"],
      ["person", "ls"],
      ["model", "\\u{03}"],
    ]);
  });

  it("an ended session stays listed for a person, with how it ended, until dismissed", async () => {
    const set = await tools();
    const done = await set.call("exec_command", { cmd: "echo finished; exit 3", yield_time_ms: 5000 });
    expect(done.text).toContain("Process exited with code 3");
    const listed = last.monitor.list().filter((view) => view.command.includes("echo finished"));
    expect(listed).toMatchObject([{ running: false, exitCode: 3 }]);
    expect(listed[0]?.endedAt).toEqual(expect.any(Number));
    // The model's list shows live sessions only.
    expect((await set.call("list_sessions", {})).text).toBe("No live sessions: start one with exec_command.");
    expect(last.monitor.dismiss(listed[0]?.id as number)).toBe(true);
    expect(last.monitor.list().filter((view) => view.command.includes("echo finished"))).toEqual([]);
    expect(last.monitor.dismiss(listed[0]?.id as number)).toBe(false);
  });
});
