import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { run } from "../src/index.js";
import { isAlive, printedPids, useTempDir } from "./helpers.js";

// Each script prints `pid=N` for every process it starts, then blocks; the test checks those pids by
// number afterwards. The root shell prints its own pid too.
const LEAKY_SCRIPTS: Record<string, string> = {
  "a background child": "echo pid=$$; sleep 300 & echo pid=$!; sleep 300",
  "a setsid grandchild": "echo pid=$$; setsid sh -c 'echo pid=$$; exec sleep 300' & sleep 300",
  "a double fork": "echo pid=$$; (sh -c 'echo pid=$$; exec sleep 300' &); sleep 300",
  "a setsid double fork": "echo pid=$$; (setsid sh -c 'echo pid=$$; exec sleep 300' &); sleep 300",
  nohup: "echo pid=$$; nohup sh -c 'echo pid=$$ >&2; exec sleep 300' >/dev/null & sleep 300",
  "a process that traps SIGTERM":
    "trap '' TERM; echo pid=$$; sh -c 'echo pid=$$; exec sleep 300' & sleep 300",
};

describe.runIf(process.platform === "linux")("timeout kills the whole tree", () => {
  for (const [name, script] of Object.entries(LEAKY_SCRIPTS)) {
    it(`with ${name}`, async () => {
      const result = await run({ argv: ["sh", "-c", script], cwd: "/", timeoutMs: 300 });
      expect(result.exitCode).toBe(124);
      expect(result.timedOut).toBe(true);
      expect(result.canceled).toBe(false);
      const pids = printedPids(result.output);
      expect(pids).toHaveLength(2);
      expect(pids.filter(isAlive)).toEqual([]);
    });
  }
});

describe.runIf(process.platform === "linux")("a finished call leaves nothing behind", () => {
  it("returns with the exit code while a background child still holds the pipe, and kills the child", async () => {
    const result = await run({ argv: ["sh", "-c", "sleep 300 & echo pid=$!"], cwd: "/" });
    expect(result.exitCode).toBe(0);
    expect(result.timedOut).toBe(false);
    const [pid] = printedPids(result.stdout);
    expect(pid).toBeTypeOf("number");
    expect(isAlive(pid as number)).toBe(false);
    // And says what it stopped.
    expect(result.leftProcesses).toEqual(["sleep"]);
  });

  it("names nothing when the command left nothing, or when it was stopped by its timeout", async () => {
    expect((await run({ argv: ["sh", "-c", "echo alone"], cwd: "/" })).leftProcesses).toEqual([]);
    const timedOut = await run({ argv: ["sh", "-c", "sleep 300 & sleep 300"], cwd: "/", timeoutMs: 300 });
    expect(timedOut.timedOut).toBe(true);
    expect(timedOut.leftProcesses).toEqual([]);
  });

  it("kills a daemon that closed its pipes and left the session", async () => {
    const result = await run({
      argv: ["sh", "-c", "setsid sh -c 'exec sleep 300' </dev/null >/dev/null 2>&1 & echo pid=$!"],
      cwd: "/",
    });
    expect(result.exitCode).toBe(0);
    const [pid] = printedPids(result.stdout);
    expect(isAlive(pid as number)).toBe(false);
    // Named as it was when stopped: setsid, sh or sleep, by how far it got toward its exec.
    expect(result.leftProcesses).toEqual([expect.stringMatching(/^(setsid|sh|sleep)$/)]);
  });

  it("keeps what a background child prints within the drain window", async () => {
    const result = await run({ argv: ["sh", "-c", "(sleep 0.2; echo late) & echo early"], cwd: "/" });
    expect(result.stdout).toBe("early\nlate\n");
    expect(result.exitCode).toBe(0);
  });
});

describe.runIf(process.platform === "linux")("cancel", () => {
  it("kills the tree when the signal aborts mid-run and marks the result canceled", async () => {
    const controller = new AbortController();
    let seen = "";
    const result = await run(
      { argv: ["sh", "-c", "echo pid=$$; sleep 300 & echo pid=$!; echo ready; wait"], cwd: "/" },
      {
        signal: controller.signal,
        onOutput: ({ data }) => {
          seen += Buffer.from(data).toString();
          if (seen.includes("ready")) controller.abort();
        },
      },
    );
    expect(result.canceled).toBe(true);
    expect(result.timedOut).toBe(false);
    expect(result.exitCode).toBe(130);
    const pids = printedPids(result.stdout);
    expect(pids).toHaveLength(2);
    expect(pids.filter(isAlive)).toEqual([]);
  });
});

describe.runIf(process.platform === "linux")("processes that run from the sweep", () => {
  const tempDir = useTempDir();

  it("stops a chain in which each process starts the next in a new session and exits", async () => {
    const log = join(tempDir(), "hops");
    const hop = join(tempDir(), "hop.sh");
    // Each hop lives 50 ms: a chain hopping as fast as fork allows can outrun a /proc sweep on a loaded
    // machine, which only a pid namespace (the sandbox) rules out.
    writeFileSync(hop, `echo $$ >> ${log}\nsleep 0.05\nsetsid sh ${hop} &\n`);
    const result = await run({ argv: ["sh", hop], cwd: tempDir(), drainTimeoutMs: 300 });
    expect(result.exitCode).toBe(0);
    const hops = (): string[] => readFileSync(log, "utf8").trim().split("\n");
    const seen = hops().length;
    await sleep(300);
    expect(hops().length).toBe(seen);
    expect(hops().map(Number).filter(isAlive)).toEqual([]);
  });
});

describe.runIf(process.platform === "linux")("cancel while starting or draining", () => {
  it("honours an abort that arrives while the program is being spawned", async () => {
    const controller = new AbortController();
    const pending = run({ argv: ["sh", "-c", "sleep 300"], cwd: "/" }, { signal: controller.signal });
    controller.abort();
    const result = await pending;
    expect(result.canceled).toBe(true);
    expect(result.exitCode).toBe(130);
    expect(result.signal).toBe("SIGTERM");
  });

  it("keeps the real exit code when aborted after the command exited, while waiting for its pipes", async () => {
    const controller = new AbortController();
    const pending = run(
      { argv: ["sh", "-c", "sleep 300 & echo pid=$!; exit 3"], cwd: "/", drainTimeoutMs: 600_000 },
      { signal: controller.signal },
    );
    await sleep(500);
    controller.abort();
    const result = await pending;
    expect(result).toMatchObject({ canceled: true, timedOut: false, exitCode: 3, signal: null });
    expect(printedPids(result.stdout).filter(isAlive)).toEqual([]);
  });
});
