// Load through conchd with the real SDK client over real stdio and real bwrap: 50 concurrent
// shell_command calls from 5 clients (each its own conchd, as stdio clients are), 100 concurrent polls of
// live sessions; every answer is its own caller's, and no process is left once the clients are gone.
import { describeWith } from "@conch/test-config";
import { afterEach, beforeEach, expect, it } from "vitest";
import {
  type Connection,
  connect,
  descendants,
  isAlive,
  makeWorkspace,
  textOf,
  type Workspace,
} from "./harness.js";

let ws: Workspace;
beforeEach(() => {
  ws = makeWorkspace();
});
afterEach(() => ws.remove());

async function waitGone(pids: readonly number[]): Promise<number[]> {
  const deadline = Date.now() + 20_000;
  while (pids.some(isAlive) && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 100));
  return pids.filter(isAlive);
}

describeWith("bwrap", "conchd under load", () => {
  it("50 concurrent shell_command calls from 5 clients: all answered, none crossed, nothing left", async () => {
    const clients: Connection[] = await Promise.all(
      [0, 1, 2, 3, 4].map(() => connect("v2 (2025-11-25)", ws, [], { timeoutMs: 120_000 })),
    );
    const calls = clients.flatMap((client, c) =>
      Array.from({ length: 10 }, async (_, i) => {
        const result = await client.callTool("shell_command", {
          command: `sleep 0.2; echo client-${c}-call-${i}`,
        });
        return { c, i, text: textOf(result) };
      }),
    );
    const answers = await Promise.all(calls);
    for (const { c, i, text } of answers) {
      expect(text).toContain("Exit code: 0");
      expect(text).toContain(`client-${c}-call-${i}`);
      expect(text.match(/client-\d+-call-\d+/g)).toEqual([`client-${c}-call-${i}`]);
    }
    const pids = clients.map((client) => client.pid);
    const trees = pids.flatMap(descendants);
    await Promise.all(clients.map((client) => client.close()));
    expect(await waitGone([...pids, ...trees])).toEqual([]);
  }, 180_000);

  it("100 concurrent polls of 10 live sessions: each gets its own session's output; closing kills them", async () => {
    const client = await connect("v2 (2025-11-25)", ws, [], { timeoutMs: 120_000 });
    const ids: number[] = [];
    for (let s = 0; s < 10; s++) {
      const started = await client.callTool("exec_command", {
        cmd: `while true; do echo session-${s}; sleep 0.1; done`,
        yield_time_ms: 250,
      });
      ids.push(started.structuredContent?.session_id as number);
    }
    const polls = Array.from({ length: 100 }, async (_, p) => {
      const s = p % 10;
      const result = await client.callTool("write_stdin", {
        session_id: ids[s],
        chars: "",
        yield_time_ms: 250,
      });
      return { s, text: textOf(result) };
    });
    for (const { s, text } of await Promise.all(polls)) {
      expect(text).toContain("Process running with session ID");
      for (const seen of text.match(/session-\d+/g) ?? []) expect(seen).toBe(`session-${s}`);
    }
    const tree = descendants(client.pid);
    expect(tree.length).toBeGreaterThan(10);
    await client.close();
    expect(await waitGone([client.pid, ...tree])).toEqual([]);
  }, 180_000);
});
