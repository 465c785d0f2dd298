// What a one-shot command leaves running is stopped and named by the helper inside the sandbox (bwrap:
// it would die with the pid namespace before anyone outside could count it; Landlock: there is no such
// namespace, and the helper is what ends it). Real backends, real processes; the host checked after.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { LocalSandboxBackend } from "@conch/sandbox-core";
import { describeWith, type Need } from "@conch/test-config";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createLandlockBackend, createLinuxBackend } from "../src/index.js";
import { oneShot } from "./sandbox-helpers.js";

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const cases: [string, Need[], () => LocalSandboxBackend][] = [
  ["bwrap", ["linux", "bwrap"], () => createLinuxBackend({ sharedNetwork: false })],
  ["landlock", ["linux", "landlock"], () => createLandlockBackend()],
];

for (const [name, needs, make] of cases) {
  describeWith(needs, `a one-shot's leftovers under ${name}`, () => {
    let cwd: string;
    beforeAll(() => {
      cwd = mkdtempSync("/var/tmp/conch-leftovers-");
    });
    afterAll(() => rmSync(cwd, { recursive: true, force: true }));

    it("are stopped and named: a background job, a setsid double fork, nohup; the exit code stands", async () => {
      const ran = await oneShot(
        make(),
        cwd,
        "sleep 300 & (setsid sh -c 'exec sleep 301' &); nohup sleep 302 >/dev/null 2>&1 & sleep 0.2; echo done; exit 7",
      );
      expect(ran.code).toBe(7);
      expect(ran.output).toContain("done");
      const lines = ran.report.trim().split("\n");
      expect(lines).toHaveLength(3);
      for (const line of lines) expect(line).toMatch(/^\d+ sleep$/);
      // Under Landlock the pids are this host's: none of them runs any more.
      if (name === "landlock")
        for (const line of lines) expect(alive(Number(line.split(" ")[0]))).toBe(false);
    });

    it("cannot stop or kill the helper that names them, nor make it lie about a limit", async () => {
      const ran = await oneShot(
        make(),
        cwd,
        // The helper is the command's parent (and under bwrap the namespace's pid 1). Only the parent is
        // signalled: under Landlock before ABI 6 a signal to pid 1 would reach the host's init.
        "kill -STOP $PPID; kill -USR1 $PPID; sleep 303 & echo done; exit 153",
      );
      expect(ran.output).toContain("done");
      expect(ran.code).toBe(153);
      // One process, named as it was when stopped (a fork not yet exec'd is still bash).
      expect(ran.report).toMatch(/^\d+ (sleep|bash)\n$/);
      expect(ran.report).not.toContain("limit");
    });

    it("hand on no descriptor the caller leaked, to the command or through the helper's /proc", async () => {
      const secret = mkdtempSync("/var/tmp/conch-leak-");
      writeFileSync(join(secret, "note"), "LEAKED");
      try {
        const ran = await oneShot(
          make(),
          cwd,
          "ls /proc/self/fd | tr '\\n' ' '; echo; for p in /proc/[0-9]*; do cat $p/fd/240/note 2>/dev/null; done; echo end",
          undefined,
          secret,
        );
        expect(ran.output).not.toContain("LEAKED");
        expect(ran.output).not.toMatch(/\b240\b/);
        expect(ran.output).toContain("end");
      } finally {
        rmSync(secret, { recursive: true, force: true });
      }
    });

    it("say nothing when the command left nothing, and end as the command did on a signal", async () => {
      const clean = await oneShot(make(), cwd, "echo alone");
      expect(clean.report).toBe("");
      expect(clean.code).toBe(0);
      const killed = await oneShot(make(), cwd, "kill -TERM $$");
      expect(killed.report).toBe("");
      expect(killed.code === 143 || killed.code === null).toBe(true);
    });
  });
}
