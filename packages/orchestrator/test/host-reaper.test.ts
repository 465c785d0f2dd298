// The keeper that runs a command outside the sandbox (HostReaper): the command sees what it would see
// without it (its exit code, its death by a signal, Ctrl-C on its terminal), and the keeper writes its
// ledger. Its purpose, dying with Conch, is attempted for real in apps/daemon/test/die-with-daemon.test.ts.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { itWith } from "@conch/test-config";
import { SessionStore } from "@conch/unified-exec";
import { afterEach, beforeEach, describe, expect } from "vitest";
import { HostReaper } from "../src/sessions/host-reaper.js";

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
  const started = await store.start(
    { argv: ["/bin/sh", "-c", script], command: script, cwd: dir, tty, prepare: keeper.hook, wrapped: true },
    500,
    { unclampedYield: true },
  );
  if (input === undefined) return started;
  return store.write(started.sessionId, input, 2000);
}

describe("the keeper of a command outside the sandbox", () => {
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
