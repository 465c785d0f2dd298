// Long calls through conchd with the real SDK clients over stdio and real bwrap: progress notifications
// with the newest output line, the call limit in shell_command's description, and idle sessions killed
// after session_idle_ttl_s, with the audit log saying so.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describeWith } from "@conch/test-config";
import { afterEach, beforeEach, expect, it } from "vitest";
import {
  CLIENTS,
  type Connection,
  connect,
  descendants,
  isAlive,
  makeWorkspace,
  textOf,
  type Workspace,
} from "./harness.js";

let ws: Workspace;
let connection: Connection | null;
beforeEach(() => {
  ws = makeWorkspace();
  connection = null;
});
afterEach(async () => {
  await connection?.close();
  ws.remove();
});

function userConfig(text: string): void {
  mkdirSync(join(ws.env.XDG_CONFIG_HOME as string, "conch"), { recursive: true });
  writeFileSync(join(ws.env.XDG_CONFIG_HOME as string, "conch", "config.toml"), text);
}

describeWith("bwrap", "long calls", () => {
  it.each(CLIENTS)(
    "%s: a client that asks for progress gets the newest output line while a command runs",
    async (kind) => {
      connection = await connect(kind, ws, []);
      const seen: { progress: number; message?: string | undefined }[] = [];
      const result = await connection.callTool(
        "shell_command",
        { command: "for i in 1 2 3 4 5 6; do echo step-$i; sleep 0.3; done" },
        { onprogress: (progress) => seen.push(progress) },
      );
      expect(textOf(result)).toContain("step-6");
      expect(seen.length).toBeGreaterThan(0);
      expect(seen.every((p) => /^step-\d$/.test(p.message ?? ""))).toBe(true);
      const values = seen.map((p) => p.progress);
      expect(values).toEqual([...values].sort((a, b) => a - b));
      expect(new Set(values).size).toBe(values.length);
      // Without a progressToken nothing is sent, and the call works the same.
      expect(textOf(await connection.callTool("shell_command", { command: "echo quiet" }))).toContain(
        "quiet",
      );
    },
  );

  it("shell_command's description says a call returns at 50 s as a session", async () => {
    connection = await connect("v2 (2025-11-25)", ws, []);
    const tool = (await connection.listTools()).find((t) => t.name === "shell_command");
    expect(tool?.description).toContain("still running after 50 s keeps running (until its timeout_ms)");
  });

  it("a session nobody uses for session_idle_ttl_s is killed, and the audit log says so", async () => {
    userConfig("session_idle_ttl_s = 1\n");
    connection = await connect("v2 (2025-11-25)", ws, []);
    const started = await connection.callTool("exec_command", { cmd: "sleep 300", yield_time_ms: 250 });
    const id = started.structuredContent?.session_id as number;
    expect(started.structuredContent).toMatchObject({ running: true });
    const pids = descendants(connection.pid);
    expect(pids.length).toBeGreaterThan(0);
    const deadline = Date.now() + 20_000;
    while (pids.some(isAlive) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(pids.filter(isAlive)).toEqual([]);
    const poll = await connection.callTool("write_stdin", { session_id: id, chars: "" });
    expect(textOf(poll)).toContain(`Unknown process id ${id}`);
    await connection.close();
    connection = null;
    const audit = readFileSync(join(ws.env.XDG_STATE_HOME as string, "conch", "audit.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(audit.filter((line) => line.type === "session-closed")).toMatchObject([
      { sessionId: id, reason: "idle", idleS: 1, command: expect.stringContaining("sleep 300") },
    ]);
  });
});
