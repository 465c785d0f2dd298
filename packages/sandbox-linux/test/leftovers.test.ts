// What a one-shot command leaves running is stopped and named by the helper inside the sandbox (bwrap:
// it would die with the pid namespace before anyone outside could count it; Landlock: there is no such
// namespace, and the helper is what ends it). Real backends, real processes; the host checked after.
import { mkdtempSync, rmSync } from "node:fs";
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
