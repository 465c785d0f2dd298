// Which sessions wait for a person's input, read from the kernel with real PTYs and processes: a
// question on the terminal, a pager, a shell at its prompt; and what does not: a sleep, a server polling
// its socket in the foreground, a pipe session, a session that exited.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeWith, eventually } from "@conch/test-config";
import { afterEach, beforeEach, expect, it } from "vitest";
import type { SessionSpec } from "../src/session/session.js";
import { SessionStore } from "../src/store/session-store.js";

let dir: string;
let sessions: SessionStore;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "conch-input-wait-"));
  sessions = new SessionStore({});
});
afterEach(async () => {
  await sessions.terminateAll();
  await rm(dir, { recursive: true, force: true });
});

function spec(argv: string[], tty: boolean, extra: Partial<SessionSpec> = {}): SessionSpec {
  return {
    argv,
    command: argv.join(" "),
    cwd: dir,
    tty,
    env: { set: { HOME: dir, PS1: "prompt$ " } },
    ...extra,
  };
}

function waiting(id: number) {
  return sessions.list().find((info) => info.id === id)?.waitingForInput;
}

// Long enough for the one-second quiet a wait needs, several times over on a loaded machine.
const QUIET = 3000;

describeWith(["linux", "pty"], "waiting for input", () => {
  it("a question on the terminal and a pager wait; an answer ends the wait", async () => {
    const question = await sessions.start(
      spec(["python3", "-c", 'input("Continue? [y/N] "); print("answered")'], true),
      1000,
    );
    await eventually("python3 flagged", () => waiting(question.sessionId)?.program === "python3");
    expect(waiting(question.sessionId)).toEqual({ program: "python3", shellPrompt: false });
    const answer = await sessions.write(question.sessionId, "y\n", 10_000, { raw: true });
    expect(answer.output).toContain("answered");
    expect(waiting(question.sessionId) ?? null).toBeNull();

    await writeFile(join(dir, "long.txt"), Array.from({ length: 500 }, (_, i) => `line ${i}`).join("\n"));
    const pager = await sessions.start(spec(["less", join(dir, "long.txt")], true), 1000);
    await eventually("less flagged", () => waiting(pager.sessionId)?.program === "less");
  }, 30_000);

  it("a shell at its prompt says so; a command it runs is not waiting", async () => {
    const shell = await sessions.start(
      spec(["bash", "--norc", "--noprofile", "-i"], true, { shell: "bash" }),
      5000,
    );
    await eventually("bash at its prompt", () => waiting(shell.sessionId)?.shellPrompt === true);
    expect(waiting(shell.sessionId)?.program).toBe("bash");
    await sessions.write(shell.sessionId, "sleep 30\n", 300, { raw: true });
    await new Promise((resolve) => setTimeout(resolve, QUIET));
    expect(waiting(shell.sessionId)).toBeNull();
  }, 30_000);

  it("a sleep, a server polling its socket, a pipe session and an exited one do not wait", async () => {
    const sleep = await sessions.start(spec(["sleep", "30"], true), 300);
    const server = await sessions.start(
      spec(
        [
          "python3",
          "-c",
          'import socket,select; s=socket.socket(); s.bind(("127.0.0.1",0)); s.listen(); print("up", flush=True); select.select([s],[],[],30)',
        ],
        true,
      ),
      1000,
    );
    const pipe = await sessions.start(spec(["python3", "-c", "import sys; sys.stdin.read()"], false), 300);
    const done = await sessions.start(spec(["true"], true), 5000);
    await new Promise((resolve) => setTimeout(resolve, QUIET));
    for (const id of [sleep.sessionId, server.sessionId, pipe.sessionId, done.sessionId]) {
      expect(waiting(id) ?? null).toBeNull();
    }
  }, 30_000);
});
