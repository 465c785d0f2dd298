// How conchd ends: stdin closing (the client going away), SIGTERM and SIGINT each kill every session's
// process tree, flush the audit log and exit 0. Checked by pid on the host, in /proc.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describeWith, itWith } from "@conch/test-config";
import { afterEach, beforeEach, expect } from "vitest";
import {
  descendants,
  isAlive,
  makeWorkspace,
  type OwnedDaemon,
  startOwned,
  type Workspace,
} from "./harness.js";

const NO_SANDBOX = ["--sandbox", "danger-full-access"];

let workspace: Workspace;
let daemon: OwnedDaemon | null;

beforeEach(() => {
  workspace = makeWorkspace();
  daemon = null;
});
afterEach(() => {
  // Only a failed test leaves it running; it is ours, so it is killed by its pid.
  if (daemon !== null && daemon.child.exitCode === null) daemon.child.kill("SIGKILL");
  workspace.remove();
});

interface Sessions {
  /** The pid of the interactive shell, as it reports itself. */
  readonly shellPid: number;
  /** Every process below conchd while the sessions run. */
  readonly tree: readonly number[];
}

/** A PTY `bash -i` session and a pipe `sleep` session, both left running. */
async function startSessions(owned: OwnedDaemon): Promise<Sessions> {
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = (await owned.client.callTool({ name, arguments: args })) as {
      content: { type: string; text: string }[];
      structuredContent: Record<string, unknown>;
    };
    return result;
  };
  const shell = await call("exec_command", { cmd: "bash -i", tty: true, yield_time_ms: 1000 });
  expect(shell.structuredContent).toMatchObject({ running: true });
  const echoed = await call("write_stdin", {
    session_id: shell.structuredContent.session_id,
    chars: "echo pid=$$\n",
    yield_time_ms: 1000,
  });
  const match = /pid=(\d+)/.exec(echoed.content[0]?.text ?? "");
  expect(match).not.toBeNull();
  const sleeper = await call("exec_command", { cmd: "sleep 1000", yield_time_ms: 500 });
  expect(sleeper.structuredContent).toMatchObject({ running: true });
  const shellPid = Number(match?.[1]);
  const tree = descendants(owned.child.pid as number);
  expect(tree).toContain(shellPid);
  return { shellPid, tree };
}

function auditLines(): string[] {
  const path = join(workspace.env.XDG_STATE_HOME as string, "conch", "audit.jsonl");
  return existsSync(path) ? readFileSync(path, "utf8").trim().split("\n") : [];
}

describeWith("linux", "conchd shutdown", () => {
  itWith(["pty", "bash"], "exits 0 when stdin closes, and no session process is left", async () => {
    daemon = await startOwned(workspace, NO_SANDBOX);
    const { shellPid, tree } = await startSessions(daemon);
    await daemon.client.close();
    expect(await daemon.exited).toBe(0);
    expect(isAlive(shellPid)).toBe(false);
    expect(tree.filter(isAlive)).toEqual([]);
    expect(daemon.stderr()).toBe("conchd: ready on stdio\n");
  });

  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    itWith(["pty", "bash"], `exits 0 on ${signal}, and no session process is left`, async () => {
      daemon = await startOwned(workspace, NO_SANDBOX);
      const { shellPid, tree } = await startSessions(daemon);
      daemon.child.kill(signal);
      expect(await daemon.exited).toBe(0);
      expect(isAlive(shellPid)).toBe(false);
      expect(tree.filter(isAlive)).toEqual([]);
    });
  }

  itWith(["pty", "bash"], "has flushed the audit log when it exits", async () => {
    daemon = await startOwned(workspace, NO_SANDBOX);
    await daemon.client.callTool({ name: "shell_command", arguments: { command: "echo audited" } });
    daemon.child.kill("SIGTERM");
    expect(await daemon.exited).toBe(0);
    expect(auditLines().some((line) => line.includes("echo audited"))).toBe(true);
  });
});

describeWith("linux", "conchd cancellation", () => {
  itWith("sh", "kills a one-shot command when its request is cancelled, and keeps serving", async () => {
    daemon = await startOwned(workspace, NO_SANDBOX);
    const owned = daemon;
    const controller = new AbortController();
    const call = owned.client.callTool(
      { name: "shell_command", arguments: { command: "sleep 45", timeout_ms: 60_000 } },
      { signal: controller.signal },
    );
    call.catch(() => {});
    const started = Date.now();
    let sleeper: number[] = [];
    while (sleeper.length === 0 && Date.now() - started < 10_000) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      sleeper = descendants(owned.child.pid as number).filter((pid) =>
        readFileSync(`/proc/${pid}/cmdline`, "utf8").startsWith("sleep\0"),
      );
    }
    expect(sleeper).toHaveLength(1);
    controller.abort();
    await expect(call).rejects.toThrow();
    const killedBy = Date.now() + 5_000;
    while (sleeper.some(isAlive) && Date.now() < killedBy)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(sleeper.filter(isAlive)).toEqual([]);
    const next = (await owned.client.callTool({
      name: "shell_command",
      arguments: { command: "echo still" },
    })) as {
      structuredContent: Record<string, unknown>;
    };
    expect(next.structuredContent).toMatchObject({ status: "ok", exit_code: 0 });
  });
});
