// Issue 28: conchd with `remote = "agent"`, and a conch-agent as a separate real process on a unix
// socket, with real bwrap inside it. shell_command and exec_command/write_stdin run there and say so;
// the sandbox's refusal comes back as a denial and the host is untouched; conchd killed with SIGKILL
// mid-output and started again finds the session (same id, same shell), shows the model what it had not
// read, and the audit log's output ranges have no gap; a lost agent ends its sessions with a clear text.
import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describeWith } from "@conch/test-config";
import { afterEach, beforeEach, expect, it } from "vitest";
import {
  type Connection,
  connect,
  makeWorkspace,
  openShell,
  stopGracefully,
  textOf,
  typeUntil,
  type Workspace,
} from "./harness.js";

// The conch CLI (built first: turbo.json's test task depends on @conch/cli#build).
const CONCH = fileURLToPath(new URL("../../cli/dist/bin.js", import.meta.url));
// The agent app's bin (built first: turbo.json's test task depends on @conch/agent#build).
const AGENT = fileURLToPath(new URL("../../agent/dist/bin.js", import.meta.url));

let workspace: Workspace;
let agent: ChildProcess | null = null;
let socket: string;
const daemons: Connection[] = [];

/** Starts the agent on a unix socket, holding the binding key conchd will use. */
async function startAgent(): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [
      AGENT,
      "--listen",
      `unix:${socket}`,
      "--agent-id",
      "t1",
      "--binding-key",
      join(workspace.env.XDG_STATE_HOME as string, "conch/remote/binding.pub"),
      "--keep-ms",
      "120000",
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  await new Promise<void>((resolve, reject) => {
    let said = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      said += chunk.toString();
      if (said.includes("listening on")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`the agent exited (${code}): ${said}`)));
  });
  return child;
}

beforeEach(async () => {
  workspace = makeWorkspace("/var/tmp");
  socket = join(dirname(workspace.cwd), "agent.sock");
  // conchd's binding key, made before conchd so the agent can be given its public half.
  const remote = join(workspace.env.XDG_STATE_HOME as string, "conch/remote");
  mkdirSync(remote, { recursive: true, mode: 0o700 });
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  writeFileSync(join(remote, "binding.key"), privateKey.export({ type: "pkcs8", format: "pem" }), {
    mode: 0o600,
  });
  writeFileSync(join(remote, "binding.pub"), publicKey.export({ type: "spki", format: "pem" }));
  const config = join(workspace.env.XDG_CONFIG_HOME as string, "conch");
  mkdirSync(config, { recursive: true });
  writeFileSync(
    join(config, "config.toml"),
    `approval_policy = "never"\nremote = "agent"\nremote_url = "unix:${socket}"\nremote_agent_id = "t1"\n`,
  );
  agent = await startAgent();
});

afterEach(async () => {
  for (const daemon of daemons.splice(0)) {
    await daemon.close().catch(() => {});
    try {
      process.kill(daemon.pid, "SIGKILL");
    } catch {
      // Gone.
    }
  }
  agent?.kill("SIGKILL");
  agent = null;
  workspace.remove();
});

async function conchd(): Promise<Connection> {
  const daemon = await connect("v2 (2025-11-25)", workspace, [], { timeoutMs: 60_000 });
  daemons.push(daemon);
  return daemon;
}

function auditLines(): Record<string, unknown>[] {
  const text = readFileSync(join(workspace.env.XDG_STATE_HOME as string, "conch/audit.jsonl"), "utf8");
  return text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describeWith(["linux", "bwrap", "pty", "bash"], "conchd with a remote agent", () => {
  it("runs shell_command on the agent, in its sandbox, and says where", async () => {
    const daemon = await conchd();
    const ran = await daemon.callTool("shell_command", { command: "echo remote-$((20+22)); echo err >&2" });
    expect(textOf(ran)).toContain("remote-42");
    expect(textOf(ran)).toContain("err");
    expect(textOf(ran)).toContain(`Ran on agent t1 at unix:${socket}.`);
    expect(ran.structuredContent).toMatchObject({ sandbox: "agent", exit_code: 0 });
    // Outside the workspace the agent's sandbox refuses, and the host keeps nothing.
    const outside = join(dirname(workspace.cwd), "escaped");
    const denied = await daemon.callTool("shell_command", { command: `echo x > ${outside}` });
    expect(denied.structuredContent).toMatchObject({ sandbox: "agent", denied: true });
    expect(existsSync(outside)).toBe(false);
    const execution = auditLines().find((line) => line.type === "execution" && line.exitCode === 0);
    expect(execution).toMatchObject({ sandbox: "agent" });
  }, 60_000);

  it("keeps a terminal session through a conchd killed mid-output: same id, same shell, nothing lost", async () => {
    const first = await conchd();
    const started = await first.callTool("exec_command", {
      cmd: "bash --norc",
      tty: true,
      yield_time_ms: 500,
    });
    const sessionId = started.structuredContent?.session_id as number;
    expect(typeof sessionId).toBe("number");
    expect(textOf(started)).toContain("Ran on agent t1");
    // A counter the model reads only in part before conchd dies.
    const writing = await first.callTool("write_stdin", {
      session_id: sessionId,
      chars: "for i in $(seq 1 12); do echo tick-$i; sleep 0.25; done; echo done-$((6*7))\n",
      yield_time_ms: 600,
    });
    expect(textOf(writing)).toContain("tick-1");
    process.kill(first.pid, "SIGKILL");
    await first.close().catch(() => {});
    await new Promise((resolve) => setTimeout(resolve, 1500));

    const second = await conchd();
    let text = "";
    for (let round = 0; round < 20 && !text.includes("done-42"); round++) {
      const polled = await second.callTool("write_stdin", {
        session_id: sessionId,
        chars: "",
        yield_time_ms: 2000,
      });
      expect(polled.structuredContent?.session_id).toBe(sessionId);
      text += `${textOf(polled)}\n`;
    }
    // Everything the first conchd's model had not read, once, in order.
    const seen = `${textOf(writing)}\n${text}`;
    const ticks = [...seen.matchAll(/^tick-(\d+)\r?$/gm)].map((match) => Number(match[1]));
    expect(ticks).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(text).toContain("done-42");
    // The same shell: its variables are still there.
    await second.callTool("write_stdin", { session_id: sessionId, chars: "X=kept\n", yield_time_ms: 500 });
    const again = await second.callTool("write_stdin", {
      session_id: sessionId,
      chars: "echo value-$X\n",
      yield_time_ms: 1000,
    });
    expect(textOf(again)).toContain("value-kept");
    // The audit log's ranges of this process cover every sequence number from 1 on, without a gap.
    const ranges = auditLines()
      .filter((line) => line.type === "output" && line.sessionId === sessionId)
      .map((line) => [line.fromSeq as number, line.toSeq as number] as const);
    expect(ranges.length).toBeGreaterThan(2);
    const processIds = new Set(
      auditLines()
        .filter((line) => line.type === "output" && line.sessionId === sessionId)
        .map((line) => line.processId),
    );
    expect(processIds.size).toBe(1);
    let covered = 0;
    for (const [from, to] of [...ranges].sort((a, b) => a[0] - b[0])) {
      expect(from).toBeLessThanOrEqual(covered + 1);
      covered = Math.max(covered, to);
    }
    expect(covered).toBeGreaterThan(12);
  }, 120_000);

  it("lets a terminal session go at a graceful stop, for the next conchd to find", async () => {
    const first = await conchd();
    const sessionId = await openShell(first);
    await first.callTool("write_stdin", { session_id: sessionId, chars: "W=graceful\n", yield_time_ms: 500 });
    // The client goes: conchd shuts down on its own (stdin closed), not killed.
    await stopGracefully(first);
    const second = await conchd();
    expect(await typeUntil(second, sessionId, "echo kept-$W\n", "kept-graceful")).toContain("kept-graceful");
  }, 60_000);

  it("speaks to an agent over a command's stdio (remote_command): ssh's shape, here a local process", async () => {
    const config = join(workspace.env.XDG_CONFIG_HOME as string, "conch", "config.toml");
    const key = join(workspace.env.XDG_STATE_HOME as string, "conch/remote/binding.pub");
    writeFileSync(
      config,
      [
        'approval_policy = "never"',
        'remote = "agent"',
        `remote_command = ${JSON.stringify([process.execPath, AGENT, "--stdio", "--agent-id", "t1", "--binding-key", key])}`,
        'remote_agent_id = "t1"',
      ].join("\n"),
    );
    const daemon = await conchd();
    const ran = await daemon.callTool("shell_command", { command: "echo over-stdio-$((40+2))" });
    expect(textOf(ran)).toContain("over-stdio-42");
    expect(textOf(ran)).toContain("Ran on agent t1 at `");
    expect(ran.structuredContent).toMatchObject({ sandbox: "agent", exit_code: 0 });
  }, 60_000);

  it("conch sandbox --check says where commands run, and that nothing runs here", () => {
    const check = (): { status: number | null; stdout: string; stderr: string } =>
      spawnSync(process.execPath, [CONCH, "sandbox", "--check"], {
        cwd: workspace.cwd,
        env: workspace.env,
        encoding: "utf8",
        timeout: 60_000,
      });
    const ok = check();
    expect(ok.status, ok.stderr).toBe(0);
    expect(ok.stdout).toContain(
      `conch sandbox: commands run on the agent t1 at unix:${socket} (remote = "agent" in the user config); none run here`,
    );
    expect(ok.stdout).toMatch(/the agent t1 at unix:\S+ answers this conchd and has pty, bwrap/);
    expect(ok.stdout).not.toContain("runs commands here");
    agent?.kill("SIGKILL");
    agent = null;
    const gone = check();
    expect(gone.status).toBe(3);
    expect(gone.stderr).toContain("cannot be reached");
  }, 60_000);

  it("checks the repository after a remote command: a git control file it made is moved aside", async () => {
    execFileSync("git", ["init", "-q", workspace.cwd]);
    const daemon = await conchd();
    const ran = await daemon.callTool("shell_command", { command: "echo ../evil > .git/commondir" });
    expect(textOf(ran)).toMatch(/Conch moved \.git\/commondir, which this command made, aside/);
    expect(existsSync(join(workspace.cwd, ".git", "commondir"))).toBe(false);
  }, 60_000);

  it("keeps each workspace's sessions its own when two share the agent", async () => {
    const first = await conchd();
    const sessionId = await openShell(first);
    await first.callTool("write_stdin", { session_id: sessionId, chars: "V=mine\n", yield_time_ms: 500 });
    await stopGracefully(first);
    // Another workspace, the same user and agent: it sees none of the first one's sessions.
    const other = join(dirname(workspace.cwd), "other");
    mkdirSync(other);
    const second = await connect("v2 (2025-11-25)", { ...workspace, cwd: other }, [], { timeoutMs: 60_000 });
    daemons.push(second);
    const listed = await second.callTool("write_stdin", {
      session_id: sessionId,
      chars: "echo $V\n",
      yield_time_ms: 500,
    });
    expect(textOf(listed)).toMatch(/^Unknown process id/);
    await stopGracefully(second);
    // Nor did it end them: the first workspace's conchd finds its shell again.
    const third = await conchd();
    expect(await typeUntil(third, sessionId, "echo still-$V\n", "still-mine")).toContain("still-mine");
  }, 90_000);

  it("refuses an escalation before asking anyone, and a denial's hint offers none", async () => {
    const config = join(workspace.env.XDG_CONFIG_HOME as string, "conch", "config.toml");
    writeFileSync(
      config,
      readFileSync(config, "utf8").replace('approval_policy = "never"', 'approval_policy = "on-request"'),
    );
    let asked = 0;
    const daemon = await connect("v2 (2025-11-25)", workspace, [], {
      timeoutMs: 60_000,
      elicit: async () => {
        asked++;
        return { action: "accept", content: { decision: "approved" } };
      },
    });
    daemons.push(daemon);
    const outside = join(dirname(workspace.cwd), "escalated");
    const escalated = await daemon.callTool("shell_command", {
      command: `touch ${outside}`,
      sandbox_permissions: "require_escalated",
      justification: "to write outside",
    });
    expect(textOf(escalated)).toContain(
      'sandbox_permissions "require_escalated" would run this one on conchd\'s own machine',
    );
    expect(asked).toBe(0);
    expect(existsSync(outside)).toBe(false);
    const denied = await daemon.callTool("shell_command", { command: `touch ${outside}` });
    expect(denied.structuredContent).toMatchObject({ denied: true });
    expect(textOf(denied)).not.toContain("require_escalated");
    expect(existsSync(outside)).toBe(false);
  }, 60_000);

  it("ends a session whose agent is gone, saying so", async () => {
    const daemon = await conchd();
    const sessionId = await openShell(daemon);
    agent?.kill("SIGKILL");
    let text = "";
    let exitCode: unknown = null;
    for (let round = 0; round < 10 && exitCode === null; round++) {
      const polled = await daemon.callTool("write_stdin", {
        session_id: sessionId,
        chars: "",
        yield_time_ms: 1000,
      });
      text += textOf(polled);
      exitCode = polled.structuredContent?.exit_code ?? null;
    }
    expect(text).toContain("[conch: lost the agent t1 at unix:");
    expect(exitCode).toBe(255);
    // And a new command says the agent cannot be reached, running nothing here.
    const refused = await daemon.callTool("shell_command", { command: "true" });
    expect(textOf(refused)).toContain("cannot be reached");
  }, 60_000);
});
