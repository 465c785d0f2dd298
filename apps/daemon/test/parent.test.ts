// conchd losing its parent (a client or supervisor killed with SIGKILL, stdin never closed): it kills
// every session's tree and exits on its own. A real sh starts a real conchd --http; the test kills the sh.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describeWith, itWith } from "@conch/test-config";
import { afterEach, beforeEach, expect } from "vitest";
import { BIN, descendants, isAlive, makeWorkspace, type Workspace } from "./harness.js";
import { connectHttp, type HttpDaemon } from "./http-harness.js";

let ws: Workspace;
beforeEach(() => {
  ws = makeWorkspace();
});
afterEach(() => ws.remove());

async function waitFor(condition: () => boolean, ms = 20_000): Promise<void> {
  const until = Date.now() + ms;
  while (!condition() && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
}

describeWith("linux", "conchd without its parent", () => {
  itWith(
    ["sh", "bash"],
    "exits, killing its sessions, when the process that started it dies",
    async () => {
      const log = join(ws.cwd, "..", "conchd.log");
      // conchd's stdin is a pipe nobody closes (the sleep holds it): only the parent's death can end it.
      const parent = spawn(
        "sh",
        [
          "-c",
          `sleep 600 | "$0" "$1" --cwd "$2" --http 127.0.0.1:0 --sandbox danger-full-access 2>"$3" & wait`,
          process.execPath,
          BIN,
          ws.cwd,
          log,
        ],
        { env: ws.env, stdio: "ignore" },
      );
      let conchd: number | undefined;
      await waitFor(() => {
        conchd = descendants(parent.pid as number).find((pid) =>
          readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(BIN),
        );
        return (
          conchd !== undefined && /listening on/.test(readFileSync(log, { encoding: "utf8", flag: "a+" }))
        );
      });
      expect(conchd).toBeDefined();
      const line = /listening on (\S+) \(token: (\S+)\)/.exec(readFileSync(log, "utf8"));
      const url = new URL(line?.[1] as string);
      const daemon = { url, token: readFileSync(line?.[2] as string, "utf8").trim() } as HttpDaemon;
      const client = await connectHttp("v2 (2025-11-25)", daemon);
      const started = await client.callTool("exec_command", { cmd: "sleep 900", yield_time_ms: 250 });
      expect(started.structuredContent).toMatchObject({ running: true });
      const tree = descendants(conchd as number);
      expect(tree.length).toBeGreaterThan(0);
      await client.close().catch(() => {});
      const sleeper = descendants(parent.pid as number).filter(
        (pid) => pid !== conchd && !tree.includes(pid),
      );
      try {
        parent.kill("SIGKILL");
        await waitFor(() => !isAlive(conchd as number) && !tree.some(isAlive));
        expect(isAlive(conchd as number)).toBe(false);
        expect(tree.filter(isAlive)).toEqual([]);
      } finally {
        // Whatever outlived the test is killed by the pid it was found under.
        for (const pid of [...sleeper, conchd as number, ...tree])
          if (isAlive(pid)) process.kill(pid, "SIGKILL");
      }
    },
    60_000,
  );
});
