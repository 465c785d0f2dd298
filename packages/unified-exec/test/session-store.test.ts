// Live sessions with real PTYs and real processes. Every process is checked by pid, never by name.
import { readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeWith, itWith } from "@conch/test-config";
import { afterEach, beforeEach, expect, it } from "vitest";
import { isUnifiedExecError } from "../src/errors.js";
import type { SessionSpec } from "../src/session/session.js";
import { type SessionEvent, SessionStore } from "../src/store/session-store.js";

let dir: string;
let store: SessionStore;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "conch-sessions-"));
  // The fixed windows: these tests are about what a call returns, not when; settled returns have
  // settle.test.ts, and here a loaded machine's pause in a command's output must not end a call early.
  store = new SessionStore({ settleMs: 0 });
});
afterEach(async () => {
  await store.terminateAll();
  await rm(dir, { recursive: true, force: true });
});

function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    return !["Z", "X"].includes(stat.charAt(stat.lastIndexOf(")") + 2));
  } catch {
    return false;
  }
}

function spec(argv: string[], tty: boolean, extra: Partial<SessionSpec> = {}): SessionSpec {
  // A home of its own: no user profile prints into the terminal.
  return { argv, command: argv.join(" "), cwd: dir, tty, env: { set: { HOME: dir } }, ...extra };
}

const sh = (script: string, tty = false): SessionSpec => spec(["/bin/sh", "-c", script], tty);

describeWith(["linux", "pty"], "SessionStore", () => {
  it("keeps shell state across calls in a PTY: export, then echo", async () => {
    const started = await store.start(spec(["bash", "--norc", "--noprofile", "-i"], true), 500);
    expect(started.running).toBe(true);
    expect(started.sessionId).toBeGreaterThanOrEqual(1000);
    expect(started.sessionId).toBeLessThanOrEqual(99_999);
    await store.write(started.sessionId, "export FOO=bar\n", 250);
    const echoed = await store.write(started.sessionId, "echo $FOO\n", 2_000);
    expect(echoed.output).toContain("bar");
    expect(echoed.running).toBe(true);
  });

  it("an observer sees each session listed, every byte of its output in order, resizes, its exit and its removal", async () => {
    const events: SessionEvent[] = [];
    const stop = store.observe((event) => events.push(event));
    // A throwing observer changes nothing for the others or for the model's reads.
    store.observe(() => {
      throw new Error("observer failure");
    });
    const started = await store.start(
      spec(["bash", "--norc", "--noprofile", "-i"], true, { cols: 100 }),
      250,
    );
    const id = started.sessionId;
    store.resize(id, 120, 40);
    expect(store.list().find((info) => info.id === id)).toMatchObject({ cols: 120, rows: 40 });
    const answer = await store.write(id, "seq 1 20000; stty size; exit 3\n", 10_000);
    expect(answer.running).toBe(false);
    expect(answer.exitCode).toBe(3);
    stop();
    expect(events[0]).toMatchObject({ type: "started", id, info: { id, tty: true, cols: 100, rows: 24 } });
    expect(events).toContainEqual({ type: "resized", id, cols: 120, rows: 40 });
    const output = Buffer.concat(
      events.flatMap((event) => (event.type === "output" ? [event.data] : [])),
    ).toString("utf8");
    // What follows the last carriage return of each line is what it shows (bash turns bracketed paste off first).
    const numbers = output
      .split(/\r?\n/)
      .map((line) => line.slice(line.lastIndexOf("\r") + 1))
      .filter((line) => /^\d+$/.test(line));
    expect(numbers).toEqual(Array.from({ length: 20000 }, (_, index) => String(index + 1)));
    expect(output).toContain("40 120");
    const tail = events.filter((event) => event.type !== "output").slice(-2);
    expect(tail).toEqual([
      { type: "exited", id, exitCode: 3 },
      { type: "removed", id, info: expect.objectContaining({ id, running: false, exitCode: 3 }) },
    ]);
    // A pipe session has no terminal to resize; a size out of range names the field.
    const pipe = await store.start(sh("sleep 5"), 250);
    store.resize(pipe.sessionId, 10, 10);
    expect(store.list().find((info) => info.id === pipe.sessionId)).toMatchObject({ cols: 80, rows: 24 });
    expect(() => store.resize(pipe.sessionId, 0, 10)).toThrow(
      "cols: expected an integer from 1 to 1000, received 0",
    );
  });

  it("a busy event loop loses none of a large output written just before the exit", async () => {
    const chunks: Buffer[] = [];
    store.observe((event) => {
      if (event.type !== "output") return;
      chunks.push(event.data);
      // Each chunk keeps the loop busy, as a loaded daemon would be: the exit comes while output waits.
      const until = performance.now() + 30;
      while (performance.now() < until);
    });
    const answer = await store.start(spec(["seq", "1", "20000"], true), 30_000);
    expect(answer.running).toBe(false);
    const lines = Buffer.concat(chunks).toString("utf8").split("\r\n");
    expect(lines.slice(0, -1)).toEqual(Array.from({ length: 20000 }, (_, index) => String(index + 1)));
  });

  it("closeIdle kills only the sessions nobody used for that long, and says which", async () => {
    const idle = await store.start(sh("sleep 60"), 250);
    const used = await store.start(sh("sleep 60"), 250);
    const idlePid = store.list().find((s) => s.id === idle.sessionId)?.pid as number;
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await store.read(used.sessionId, 0);
    const closed = await store.closeIdle(1000);
    expect(closed.map((s) => [s.id, s.command])).toEqual([[idle.sessionId, "/bin/sh -c sleep 60"]]);
    expect(store.has(idle.sessionId)).toBe(false);
    expect(store.has(used.sessionId)).toBe(true);
    expect(isAlive(idlePid)).toBe(false);
  });

  it("returns as soon as the process exits, with its output and exit code", async () => {
    const result = await store.start(sh("sleep 0.1; echo done"), 10_000);
    expect(result).toMatchObject({ running: false, exitCode: 0, output: "done\n" });
    expect(result.wallTimeMs).toBeLessThan(5_000);
    expect(store.has(result.sessionId)).toBe(false);
  });

  it("each call returns only what is new", async () => {
    const started = await store.start(sh("echo one; sleep 1.5; echo two; sleep 30"), 800);
    expect(started.output).toBe("one\n");
    const next = await store.read(started.sessionId, 3_000);
    expect(next.output).toBe("two\n");
  }, 15_000);

  it("an empty poll waits at least 5 s while the process runs; an exit during a poll returns at once", async () => {
    const running = await store.start(sh("sleep 60"), 250);
    const polled = await store.write(running.sessionId, "", 250);
    expect(polled.wallTimeMs).toBeGreaterThanOrEqual(4_990);
    expect(polled.running).toBe(true);

    const exiting = await store.start(sh("sleep 1; echo bye; exit 7"), 250);
    const last = await store.write(exiting.sessionId, "", 250);
    expect(last).toMatchObject({ running: false, exitCode: 7, output: "bye\n" });
    expect(last.wallTimeMs).toBeLessThan(4_000);
  }, 20_000);

  it("without a tty, input is refused and Ctrl-C sends SIGINT to the process group", async () => {
    const started = await store.start(
      sh("trap 'echo got INT; exit 3' INT; echo ready; while :; do sleep 0.05; done"),
      1_000,
    );
    expect(started.output).toBe("ready\n");
    let error: unknown;
    try {
      await store.write(started.sessionId, "hello", 250);
    } catch (caught) {
      error = caught;
    }
    expect(isUnifiedExecError(error) && error.code).toBe("STDIN_CLOSED");
    expect((error as Error).message).toBe(
      "stdin is closed for this session; rerun exec_command with tty=true to keep stdin open",
    );
    const interrupted = await store.write(started.sessionId, "\u0003", 5_000);
    expect(interrupted).toMatchObject({ running: false, exitCode: 3, output: "got INT\n" });
  });

  it("an unknown id is named", async () => {
    await expect(store.write(4242, "", 250)).rejects.toThrow("Unknown process id 4242");
  });

  it("an aborted call stops waiting and leaves the session running", async () => {
    const controller = new AbortController();
    const pending = store.start(sh("echo up; sleep 60"), 30_000, { signal: controller.signal });
    setTimeout(() => controller.abort(), 300);
    const result = await pending;
    expect(result.wallTimeMs).toBeLessThan(5_000);
    expect(result.running).toBe(true);
    const [info] = store.list();
    expect(info?.id).toBe(result.sessionId);
    expect(isAlive(info?.pid as number)).toBe(true);
  });

  it("renders a \\r progress bar as its final state", async () => {
    const script = "for i in range(301): print(f'\\rprogress {i}%', end='', flush=True)\nprint('\\ndone')";
    const result = await store.start(spec(["python3", "-c", script], true), 10_000);
    expect(result.running).toBe(false);
    expect(result.output).toBe("progress 300%\ndone");
    expect(result.outputBytes).toBeGreaterThan(3_000);
    const raw = await store.start(spec(["python3", "-c", script], true), 10_000, { raw: true });
    expect(raw.output.split("\r").length).toBeGreaterThan(300);
  });

  itWith("less", "shows a full-screen program's screen, and keys written to it work", async () => {
    writeFileSync(join(dir, "page.txt"), Array.from({ length: 100 }, (_, i) => `line ${i + 1}`).join("\n"));
    const started = await store.start(spec(["less", join(dir, "page.txt")], true, { rows: 10 }), 2_000);
    expect(started.running).toBe(true);
    expect(started.output.split("\n").slice(0, 3)).toEqual(["line 1", "line 2", "line 3"]);
    const paged = await store.write(started.sessionId, " ", 2_000);
    expect(paged.output).toContain("line 10");
    const quit = await store.write(started.sessionId, "q", 5_000);
    expect(quit.running).toBe(false);
    expect(quit.exitCode).toBe(0);
  });

  it("a full store prunes the least recently used exited session first, then the least recently used live one, killing its tree", async () => {
    const small = new SessionStore({ maxSessions: 64 });
    try {
      const ids: number[] = [];
      const background = new Map<number, number>();
      for (let i = 0; i < 64; i++) {
        const result =
          i === 3
            ? await small.start(sh("echo quick"), 250, { keepAfterExit: true })
            : await small.start(sh("sleep 300 & echo $!; wait"), 250);
        ids.push(result.sessionId);
        if (i !== 3) background.set(result.sessionId, Number(result.output.trim() || Number.NaN));
      }
      // A slow start may print its pid after the call returned: read it now, in start order (which keeps
      // the least-recently-used order the same).
      for (const id of ids) {
        const late = (await small.read(id, 0)).output.trim();
        if (late !== "" && background.has(id)) background.set(id, Number(late));
      }
      const roots = new Map(small.list().map((info) => [info.id, info.pid]));
      const first = await small.start(sh("sleep 300"), 250);
      expect(first.pruned).toBe(ids[3]);
      const second = await small.start(sh("sleep 300"), 250);
      const victim = ids[0] as number;
      expect(second.pruned).toBe(victim);
      expect(small.has(victim)).toBe(false);
      expect(small.size).toBe(64);
      expect(isAlive(roots.get(victim) as number)).toBe(false);
      expect(isAlive(background.get(victim) as number)).toBe(false);
      expect(isAlive(background.get(ids[1] as number) as number)).toBe(true);
    } finally {
      await small.terminateAll();
    }
  }, 90_000);

  it("concurrent starts at the cap each prune one, with distinct ids, and the cap holds", async () => {
    const small = new SessionStore({ maxSessions: 3, protectedRecent: 0 });
    try {
      for (let i = 0; i < 3; i++) await small.start(sh("sleep 30"), 250);
      const results = await Promise.all([0, 1, 2].map(() => small.start(sh("sleep 30"), 250)));
      expect(small.size).toBe(3);
      expect(new Set(results.map((r) => r.sessionId)).size).toBe(3);
      expect(new Set(results.map((r) => r.pruned)).size).toBe(3);
      expect(results.every((r) => r.pruned !== null)).toBe(true);
    } finally {
      await small.terminateAll();
    }
  });

  it("a character split between two reads arrives whole in the later one", async () => {
    const started = await store.start(sh("printf 'caf\\303'; sleep 1.5; printf '\\251!\\n'"), 800);
    expect(started.output).toBe("caf");
    const rest = await store.read(started.sessionId, 5_000);
    expect(rest.output).toBe("é!\n");
  });

  it("closing a PTY session while a call waits on it keeps that call's output", async () => {
    const started = await store.start(spec(["/bin/sh", "-c", "sleep 0.5; echo hello; sleep 100"], true), 250);
    const polling = store.write(started.sessionId, "", 10_000);
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    await store.close(started.sessionId);
    expect((await polling).output).toContain("hello");
  });

  it("a session still starting when terminateAll runs is killed, not kept", async () => {
    const starting = store.start(sh("echo $$; sleep 300"), 300);
    await store.terminateAll();
    await expect(starting).rejects.toThrow("the session store is closed");
    expect(store.size).toBe(0);
  });

  it("terminateAll kills every tree", async () => {
    const a = await store.start(sh("sleep 300 & echo $!; wait"), 1_000);
    const b = await store.start(spec(["bash", "--norc", "--noprofile", "-i"], true), 300);
    expect(b.running).toBe(true);
    const background = Number(a.output.trim());
    const pids = store.list().map((info) => info.pid);
    expect([...pids, background].every(isAlive)).toBe(true);
    await store.terminateAll();
    expect([...pids, background].filter(isAlive)).toEqual([]);
  });

  for (const tty of [false, true]) {
    const kind = tty ? "a PTY" : "a pipe";
    it(`${kind} session of a missing or unrunnable program fails to start, named as a one-shot command names it`, async () => {
      const reasons: unknown[] = [];
      for (const argv of [["conch-no-such-program"], ["/etc/passwd"]]) {
        reasons.push(await store.start(spec(argv, tty), 1_000).catch((error: unknown) => error));
      }
      const [missing, denied] = reasons;
      expect(isUnifiedExecError(missing) && [missing.code, missing.message]).toEqual([
        "SPAWN_FAILED",
        'cannot start "conch-no-such-program": no such program',
      ]);
      expect((missing as Error).cause).toMatchObject({ code: "ENOENT" });
      expect(isUnifiedExecError(denied) && denied.message).toBe(
        'cannot start "/etc/passwd": permission denied',
      );
      expect((denied as Error).cause).toMatchObject({ code: "EACCES" });
      expect(store.size).toBe(0);
    });

    it(`${kind} session runs what prepare returns, with its extra descriptors and the run marker`, async () => {
      const result = await store.start(
        spec(["echo", "wrapped"], tty, {
          prepare: async (base) => ({
            ...base,
            argv: [
              "sh",
              "-c",
              'printf "%s %s " "$(cat <&3)" "${CONCH_RUN_ID%%.*}"; exec "$@"',
              "sh",
              ...base.argv,
            ],
            extraFds: [Buffer.from("fd3")],
          }),
          render: false,
        }),
        5_000,
      );
      expect(result).toMatchObject({ running: false, exitCode: 0 });
      expect(result.output.replace(/\r\n/g, "\n")).toBe(`fd3 ${process.pid} wrapped\n`);
    });
  }
});
