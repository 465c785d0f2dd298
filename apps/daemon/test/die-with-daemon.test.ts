// Issue 20, §5: a session outside the sandbox left running by a SIGKILLed conchd kept running on the
// host. Now it dies with conchd (its keeper is a subreaper told of conchd's death), and what a keeper
// killed at the same time left is killed by the next conchd as it starts. Checked by pid in /proc, and
// by heartbeat files that stop changing.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describeWith, itWith } from "@conch/test-config";
import { afterEach, beforeEach, expect } from "vitest";
import {
  connect,
  descendants,
  isAlive,
  makeWorkspace,
  type OwnedDaemon,
  startOwned,
  type Workspace,
} from "./harness.js";

const NO_SANDBOX = ["--sandbox", "danger-full-access"];

let workspace: Workspace;
const daemons: OwnedDaemon[] = [];
const strays: number[] = [];

beforeEach(() => {
  workspace = makeWorkspace("/var/tmp");
});
afterEach(() => {
  // Only a failed test leaves these; they are ours, killed by pid.
  for (const daemon of daemons.splice(0)) if (daemon.child.exitCode === null) daemon.child.kill("SIGKILL");
  // And whatever still names this test's workspace (a loop that escaped every tree).
  for (const pid of [...strays.splice(0), ...naming(workspace.cwd)]) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Gone.
    }
  }
  workspace.remove();
});

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
  } catch {
    return "";
  }
}

/** Every live process whose command line names `text`. */
function naming(text: string): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => isAlive(pid) && cmdline(pid).includes(text));
}

async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
}

/**
 * A PTY session whose loop writes `beat` and which starts, with setsid in a double fork, a second loop
 * writing `escaped` (a process that left the session's group, session and parent); and a pipe session.
 */
async function startSessions(daemon: OwnedDaemon): Promise<{ beat: string; escaped: string }> {
  const beat = join(workspace.cwd, "beat");
  const escaped = join(workspace.cwd, "escaped");
  const script =
    `(setsid sh -c 'while :; do date +%s%N > ${escaped}; sleep 0.1; done' &); ` +
    `while :; do date +%s%N > ${beat}; sleep 0.1; done`;
  const tty = (await daemon.client.callTool({
    name: "exec_command",
    arguments: { cmd: script, tty: true, yield_time_ms: 500 },
  })) as { structuredContent: Record<string, unknown> };
  expect(tty.structuredContent).toMatchObject({ running: true, sandbox: "none" });
  const pipe = (await daemon.client.callTool({
    name: "exec_command",
    arguments: { cmd: "sleep 1000", yield_time_ms: 250 },
  })) as { structuredContent: Record<string, unknown> };
  expect(pipe.structuredContent).toMatchObject({ running: true });
  await until(() => existsSync(beat) && existsSync(escaped));
  return { beat, escaped };
}

/** The file still changes: something writes it every 0.1 s. */
async function beating(file: string): Promise<boolean> {
  const before = readFileSync(file, "utf8");
  await new Promise((resolve) => setTimeout(resolve, 600));
  return readFileSync(file, "utf8") !== before;
}

describeWith("linux", "a session outside the sandbox dies with conchd", () => {
  itWith(
    ["pty", "sh"],
    "SIGKILL to conchd: every process of its sessions is gone, the escaped one too",
    async () => {
      const daemon = await startOwned(workspace, NO_SANDBOX);
      daemons.push(daemon);
      const { beat, escaped } = await startSessions(daemon);
      // Below conchd, and anything naming this workspace (a loop that escaped conchd's tree, if any).
      const tree = [...new Set([...descendants(daemon.child.pid as number), ...naming(workspace.cwd)])];
      strays.push(...tree);
      const loops = tree.filter((pid) => cmdline(pid).includes("while :"));
      expect(loops.length).toBeGreaterThanOrEqual(2);
      expect(tree.some((pid) => cmdline(pid).startsWith("sleep 1000"))).toBe(true);
      daemon.child.kill("SIGKILL");
      expect(await daemon.exited).toBe("SIGKILL");
      await until(() => tree.every((pid) => !isAlive(pid)));
      expect(tree.filter(isAlive).map((pid) => `${pid} ${cmdline(pid)}`)).toEqual([]);
      expect(await beating(beat)).toBe(false);
      expect(await beating(escaped)).toBe(false);
    },
  );

  itWith(
    ["bwrap", "pty", "sh"],
    "SIGKILL to conchd with an escalated session a person approved: the session is gone",
    async () => {
      const connection = await connect("v2 (2025-11-25)", workspace, ["--approval", "on-request"], {
        elicit: async () => ({ action: "accept", content: { decision: "approve" } }),
      });
      const beat = join(workspace.cwd, "escalated-beat");
      const started = await connection.callTool("exec_command", {
        // On pipes: a terminal's hangup alone would end a loop on a PTY once conchd is gone.
        cmd: `while :; do date +%s%N > ${beat}; sleep 0.1; done`,
        sandbox_permissions: "require_escalated",
        justification: "a heartbeat",
        yield_time_ms: 500,
      });
      expect(started.structuredContent).toMatchObject({ running: true, sandbox: "none" });
      await until(() => existsSync(beat));
      const tree = [...new Set([...descendants(connection.pid), ...naming(beat)])];
      strays.push(connection.pid, ...tree);
      process.kill(connection.pid, "SIGKILL");
      await until(() => tree.every((pid) => !isAlive(pid)));
      expect(tree.filter(isAlive).map((pid) => `${pid} ${cmdline(pid)}`)).toEqual([]);
      expect(await beating(beat)).toBe(false);
      await connection.close().catch(() => {});
    },
  );

  itWith(
    "sh",
    "SIGKILL to conchd during a one-shot command outside the sandbox: it is gone too",
    async () => {
      const daemon = await startOwned(workspace, NO_SANDBOX);
      daemons.push(daemon);
      const beat = join(workspace.cwd, "one-shot-beat");
      const call = daemon.client.callTool({
        name: "shell_command",
        arguments: { command: `while :; do date +%s%N > ${beat}; sleep 0.1; done`, timeout_ms: 120_000 },
      });
      call.catch(() => {});
      await until(() => existsSync(beat));
      const tree = [...new Set([...descendants(daemon.child.pid as number), ...naming(beat)])];
      strays.push(...tree);
      expect(tree.some((pid) => cmdline(pid).includes("while :"))).toBe(true);
      daemon.child.kill("SIGKILL");
      await daemon.exited;
      await until(() => tree.every((pid) => !isAlive(pid)));
      expect(tree.filter(isAlive).map((pid) => `${pid} ${cmdline(pid)}`)).toEqual([]);
      expect(await beating(beat)).toBe(false);
    },
  );

  itWith(
    ["pty", "sh"],
    "what a keeper killed with conchd left, the next conchd kills as it starts",
    async () => {
      const first = await startOwned(workspace, NO_SANDBOX);
      daemons.push(first);
      const { escaped } = await startSessions(first);
      const tree = descendants(first.child.pid as number);
      strays.push(...tree);
      const keepers = tree.filter((pid) => cmdline(pid).includes(" -e "));
      expect(keepers).toHaveLength(2);
      const loner = tree.filter((pid) => cmdline(pid).startsWith("sh -c while :"));
      expect(loner).toHaveLength(1);
      // The keepers killed first, while conchd is stopped (so it cannot end its sessions itself), then
      // conchd: nobody is left to end the escaped loop.
      process.kill(first.child.pid as number, "SIGSTOP");
      for (const pid of keepers) process.kill(pid, "SIGKILL");
      await until(() => keepers.every((pid) => !isAlive(pid)));
      process.kill(first.child.pid as number, "SIGKILL");
      await first.exited;
      expect(await beating(escaped)).toBe(true);
      const next = await startOwned(workspace, NO_SANDBOX);
      daemons.push(next);
      await until(() => loner.every((pid) => !isAlive(pid)));
      expect(loner.filter(isAlive)).toEqual([]);
      expect(await beating(escaped)).toBe(false);
      // The dead daemon's ledger is gone; the new one has started nothing outside the sandbox yet.
      expect(readdirLedgers()).toEqual([]);
    },
  );
});

/** The ledgers left in the state dir (a daemon writes one only once it starts a session outside). */
function readdirLedgers(): string[] {
  const dir = join(workspace.env.XDG_STATE_HOME as string, "conch", "keepers");
  return existsSync(dir) ? readdirSync(dir) : [];
}
