import { describe, expect, it } from "vitest";
import { run } from "../src/index.js";
import { isAlive, printedPids } from "./helpers.js";

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
  });

  it("kills a daemon that closed its pipes and left the session", async () => {
    const result = await run({
      argv: ["sh", "-c", "setsid sh -c 'exec sleep 300' </dev/null >/dev/null 2>&1 & echo pid=$!"],
      cwd: "/",
    });
    expect(result.exitCode).toBe(0);
    const [pid] = printedPids(result.stdout);
    expect(isAlive(pid as number)).toBe(false);
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
