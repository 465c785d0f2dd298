// The keeper that runs a command outside the sandbox (HostReaper): the command sees what it would see
// without it (its exit code, its death by a signal, Ctrl-C on its terminal), and the keeper writes its
// ledger. Its purpose, dying with Conch, is attempted for real in apps/daemon/test/die-with-daemon.test.ts.
import { type ChildProcess, spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeWith, eventually, itWith } from "@conch/test-config";
import { SessionStore } from "@conch/unified-exec";
import { afterEach, beforeEach, expect } from "vitest";
import { HostReaper, killLeftovers } from "../src/sessions/host-reaper.js";

let dir: string;
let store: SessionStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "conch-keeper-"));
  store = new SessionStore();
});
afterEach(async () => {
  await store.terminateAll();
  rmSync(dir, { recursive: true, force: true });
});

function reaper(): HostReaper {
  const made = HostReaper.create(join(dir, "keepers"));
  if (made === null) throw new Error("no keeper here (perl missing?)");
  return made;
}

async function run(script: string, tty: boolean, input?: string) {
  const keeper = reaper();
  // Without input the command is waited for until it exits (the start returns then), however slow a
  // loaded machine makes it; with input, it is given half a second to be ready for it.
  const started = await store.start(
    { argv: ["/bin/sh", "-c", script], command: script, cwd: dir, tty, prepare: keeper.hook, wrapped: true },
    input === undefined ? 30_000 : 500,
    { unclampedYield: true },
  );
  if (input === undefined) return started;
  return store.write(started.sessionId, input, 30_000);
}

describeWith("linux", "the keeper of a command outside the sandbox", () => {
  itWith(
    ["sh", "pty"],
    "passes on the exit code and a death by signal, on pipes and on a terminal",
    async () => {
      for (const tty of [false, true]) {
        expect((await run("exit 3", tty)).exitCode).toBe(3);
        expect((await run("kill -TERM $$", tty)).exitCode).toBe(143);
        // The command leads its own process group (the keeper, its parent, does not share it), the
        // terminal's foreground one on a terminal.
        const ids = await run('echo "ids $$ $PPID $(ps -o pgid= -o tpgid= -p $$)"', tty);
        const [self, parent, pgid, tpgid] = (/ids (.*)/.exec(ids.output)?.[1] ?? "").trim().split(/\s+/);
        expect(pgid).toBe(self);
        expect(parent).not.toBe(self);
        if (tty) expect(tpgid).toBe(pgid);
      }
    },
  );

  itWith(["sh", "pty"], "Ctrl-C on the terminal reaches the command, not the keeper", async () => {
    const interrupted = await run("sleep 30; echo not-interrupted", true, "\u0003");
    expect(interrupted.running).toBe(false);
    expect(interrupted.exitCode).toBe(130);
    expect(interrupted.output).not.toContain("not-interrupted");
  });

  itWith(
    ["sh", "python3"],
    "ends a process whose main thread has exited while another still runs",
    async () => {
      const script =
        "import os, threading, time\n" +
        "threading.Thread(target=time.sleep, args=(30,)).start()\n" +
        "print(os.getpid(), flush=True)\n" +
        "os._exit if False else __import__('ctypes').CDLL(None).syscall(60 if os.uname().machine == 'x86_64' else 93, 0)\n";
      writeFileSync(join(dir, "zl.py"), script);
      const ran = await run(`python3 ${join(dir, "zl.py")} & sleep 1; echo started`, false);
      const pid = Number(/^(\d+)$/m.exec(ran.output)?.[1]);
      expect(Number.isInteger(pid)).toBe(true);
      await eventually(
        "the half-exited process ends",
        () => !existsSync(`/proc/${pid}`) || !threadsLive(pid),
      );
    },
  );

  itWith("sh", "writes the keeper's pid, start time and run marker to its ledger", async () => {
    const keeper = reaper();
    const started = await store.start(
      {
        argv: ["/bin/sh", "-c", "sleep 30"],
        command: "sleep 30",
        cwd: dir,
        tty: false,
        prepare: keeper.hook,
        wrapped: true,
      },
      250,
      { onStored: (id) => keeper.record(store.list().find((s) => s.id === id)?.pid ?? -1, "CONCH_RUN_ID=x") },
    );
    expect(started.running).toBe(true);
    const [ledger] = readdirSync(join(dir, "keepers"));
    expect(ledger).toMatch(new RegExp(`^${process.pid}-\\d+\\.jsonl$`));
    const pid = store.list()[0]?.pid as number;
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    const startTime = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]);
    expect(readFileSync(join(dir, "keepers", ledger as string), "utf8")).toBe(
      `${JSON.stringify({ pid, startTime, marker: "CONCH_RUN_ID=x" })}\n`,
    );
    // What may no longer run leaves the ledger: the last entry gone, the file goes.
    keeper.forget("CONCH_RUN_ID=x");
    expect(readdirSync(join(dir, "keepers"))).toEqual([]);
    expect(readFileSync(`/proc/${pid}/cmdline`, "latin1").split("\0").slice(0, 2)).toEqual([
      expect.stringMatching(/perl$/),
      "-e",
    ]);
  });
});

/** A process started here in a session of its own, with `env`, and its start time. */
function startAlone(script: string, env: Record<string, string>): { child: ChildProcess; start: number } {
  const child = spawn("/bin/sh", ["-c", script], { detached: true, stdio: "ignore", env });
  const stat = readFileSync(`/proc/${child.pid}/stat`, "latin1");
  return { child, start: Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]) };
}

/** Whether any thread of `pid` other than its main one still runs. */
function threadsLive(pid: number): boolean {
  try {
    return readdirSync(`/proc/${pid}/task`)
      .filter((tid) => Number(tid) !== pid)
      .some((tid) => {
        const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "latin1");
        return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(")") + 2));
      });
  } catch {
    return false;
  }
}

function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    return !/^[ZX]$/.test(stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3));
  } catch {
    return false;
  }
}

/** A ledger of a Conch process that is gone (no pid is that high), with `lines`. */
function plantLedger(lines: readonly object[]): void {
  mkdirSync(join(dir, "keepers"), { recursive: true });
  writeFileSync(
    join(dir, "keepers", "999999999-1.jsonl"),
    lines.map((line) => `${JSON.stringify(line)}\n`).join(""),
  );
}

describeWith("linux", "the next Conch process's sweep of a dead one's ledger", () => {
  const started: ChildProcess[] = [];
  afterEach(() => {
    for (const child of started.splice(0))
      if (child.pid !== undefined && alive(child.pid)) child.kill("SIGKILL");
  });

  itWith(
    "sh",
    "kills only what holds the ledger's run marker, or shares a session with a keeper that holds it",
    async () => {
      // What a command outside the sandbox could write: a process of the user's by pid and start time, a
      // "marker" every process holds, a well-formed marker the process does not hold.
      const PATH = process.env.PATH ?? "/usr/bin:/bin";
      // (The variable is the victim's alone: were it taken, nothing else would die.)
      const planted = `CONCH_PLANTED=${process.pid}.${Date.now()}`;
      const victim = startAlone("exec sleep 60", {
        PATH,
        CONCH_PLANTED: planted.slice("CONCH_PLANTED=".length),
      });
      started.push(victim.child);
      const pid = victim.child.pid as number;
      // A keeper as Conch starts it (its run marker in its environment), and what it started with an
      // emptied environment, in its session.
      const marker = "CONCH_RUN_ID=1.2.abc";
      const keeper = startAlone("env -i /bin/sleep 60 & exec sleep 60", { PATH, CONCH_RUN_ID: "1.2.abc" });
      started.push(keeper.child);
      const keeperPid = keeper.child.pid as number;
      await eventually("the keeper's exec of sleep", () =>
        readFileSync(`/proc/${keeperPid}/cmdline`, "latin1").startsWith("sleep"),
      );
      plantLedger([
        { pid, startTime: victim.start, marker: null },
        { pid: null, startTime: 0, marker: planted },
        { pid, startTime: victim.start, marker: "CONCH_RUN_ID=9.9.zzz" },
        { pid: keeperPid, startTime: keeper.start, marker },
      ]);
      const emptied = readdirSync("/proc")
        .filter((name) => /^\d+$/.test(name))
        .map(Number)
        .filter((candidate) => {
          try {
            const stat = readFileSync(`/proc/${candidate}/stat`, "latin1");
            return (
              Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[3]) === keeperPid &&
              candidate !== keeperPid
            );
          } catch {
            return false;
          }
        });
      expect(emptied).toHaveLength(1);
      const killed = killLeftovers(join(dir, "keepers"));
      expect(killed.sort()).toEqual([keeperPid, ...emptied].sort());
      // Signals are sent, not waited for: each dies when the kernel gets to it.
      await eventually("the deaths of the keeper and what it started", () =>
        [keeperPid, ...emptied].every((killedPid) => !alive(killedPid)),
      );
      expect(alive(keeperPid)).toBe(false);
      expect(alive(emptied[0] as number)).toBe(false);
      expect(alive(pid)).toBe(true);
      expect(readdirSync(join(dir, "keepers"))).toEqual([]);
    },
  );
});

describeWith("linux", "the sweep, its keeper gone", () => {
  const started: ChildProcess[] = [];
  afterEach(() => {
    for (const pid of started.splice(0).flatMap((child) => sessionOf(child.pid as number))) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Gone.
      }
    }
  });

  itWith(
    "sh",
    "kills the keeper's session when a live member shows its run marker, and no other session",
    async () => {
      const PATH = process.env.PATH ?? "/usr/bin:/bin";
      // A keeper killed with Conch: what it started stays in its session, one with its marker, one without.
      const keeper = startAlone("env -i /bin/sleep 60 & sleep 60 & exit 0", {
        PATH,
        CONCH_RUN_ID: "1.3.abc",
      });
      // Another session whose leader is gone, none of it showing the marker: a ledger naming it kills none.
      const other = startAlone("sleep 60 & exit 0", { PATH });
      started.push(keeper.child, other.child);
      const keeperPid = keeper.child.pid as number;
      const otherPid = other.child.pid as number;
      await eventually("both session leaders' exit", () => !alive(keeperPid) && !alive(otherPid));
      const left = sessionOf(keeperPid);
      const bystander = sessionOf(otherPid);
      expect([left.length, bystander.length]).toEqual([2, 1]);
      plantLedger([
        { pid: keeperPid, startTime: keeper.start, marker: "CONCH_RUN_ID=1.3.abc" },
        { pid: otherPid, startTime: other.start, marker: "CONCH_RUN_ID=1.4.abc" },
      ]);
      expect(killLeftovers(join(dir, "keepers")).sort()).toEqual([...left].sort());
      await eventually("the end of the keeper's session", () => sessionOf(keeperPid).length === 0);
      expect(sessionOf(keeperPid)).toEqual([]);
      expect(sessionOf(otherPid)).toEqual(bystander);
    },
  );
});

/** The live processes of session `sid`. */
function sessionOf(sid: number): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        return fields[0] !== "Z" && Number(fields[3]) === sid;
      } catch {
        return false;
      }
    });
}
