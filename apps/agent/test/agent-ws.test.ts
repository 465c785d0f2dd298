// conch-agent over WebSocket (loopback TCP and a unix socket), driven by conchd's own client
// (@conch/sandbox-remote's backend), with real bwrap: the sandbox intent of the rules, processes kept
// after the connection goes and found again by a new connection (its output from where it was read,
// its writes still idempotent), a second connection refused while one is attached, a session that
// expired said as such, a binding from another conchd refused, notifications numbered as reads are.
import { type ChildProcess, spawn } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import {
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createSandboxWorkspace, type HostProcess, type SandboxRules } from "@conch/sandbox-core";
import { createAgentBackend, signBinding } from "@conch/sandbox-remote";
import { describeWith } from "@conch/test-config";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { WebSocket } from "ws";

const BIN = fileURLToPath(new URL("../dist/bin.js", import.meta.url));

/** The pids of this test's sleeper (its own argument), however deep in a sandbox it runs. */
function sleeping(): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, "utf8") === "sleep\u000061.234\u0000";
      } catch {
        return false;
      }
    })
    .map(Number);
}

async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
}

describeWith(["linux", "bwrap", "pty", "bash"], "conch-agent over WebSocket", () => {
  let dir: string;
  let ws: string;
  let keyFile: string;
  let rules: SandboxRules;
  const conchd = generateKeyPairSync("ed25519");
  const other = generateKeyPairSync("ed25519");
  const agents: ChildProcess[] = [];

  /** Starts an agent on `listen` and resolves with the URL it says it listens on. */
  async function startAgent(listen: string, keepMs = 60_000): Promise<string> {
    const child = spawn(
      process.execPath,
      [BIN, "--listen", listen, "--agent-id", "a1", "--binding-key", keyFile, "--keep-ms", String(keepMs)],
      { stdio: ["ignore", "ignore", "pipe"] },
    );
    agents.push(child);
    return new Promise((resolve, reject) => {
      let said = "";
      child.stderr?.on("data", (chunk: Buffer) => {
        said += chunk.toString();
        const match = /listening on (\S+)/.exec(said);
        if (match !== null) resolve(match[1] as string);
      });
      child.once("exit", (code) => reject(new Error(`agent exited ${code}: ${said}`)));
    });
  }

  async function readUntil(process: HostProcess, from: number, done: (text: string) => boolean) {
    let text = "";
    let next = from;
    for (let round = 0; round < 40; round++) {
      const read = await process.read(next, { waitMs: 2000 });
      for (const chunk of read.chunks) text += Buffer.from(chunk.data).toString("utf8");
      next = read.nextSeq;
      if (done(text) || read.exit !== null) return { text, next, exit: read.exit };
    }
    throw new Error(`not seen: ${text}`);
  }

  beforeAll(() => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), "conch-agent-ws-")));
    ws = realpathSync(mkdtempSync("/var/tmp/conch-agent-wsw-"));
    keyFile = join(dir, "conchd.pub");
    writeFileSync(keyFile, conchd.publicKey.export({ type: "spki", format: "pem" }));
    rules = createSandboxWorkspace({ mode: "workspace-write" }, { cwd: ws }).rules();
  });
  afterEach(() => {
    for (const child of agents.splice(0)) child.kill("SIGKILL");
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
    rmSync(ws, { recursive: true, force: true });
  });

  it("runs a terminal session for a connection, and keeps it for the next one after that one goes", async () => {
    const url = await startAgent("ws://127.0.0.1:0");
    expect(url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+$/);
    const sessions: string[] = [];
    const first = createAgentBackend({
      endpoint: url,
      agentId: "a1",
      bindingKey: conchd.privateKey,
      onSession: (id) => sessions.push(id),
    });
    expect(await first.available()).toEqual({ available: true });
    expect(first.host.where).toBe(`agent a1 at ${url}`);
    const spec = {
      argv: ["bash", "--norc"],
      cwd: ws,
      env: { TERM: "dumb", PS1: "$ " },
      extraFds: [],
    };
    const shell = await first.host.start({
      id: "s1",
      spec,
      rules,
      workspace: ws,
      tty: true,
      size: { cols: 80, rows: 24 },
    });
    await shell.write(Buffer.from("Y=kept; echo one-$((1+1))\n"), "c1:1");
    const seen = await readUntil(shell, 1, (text) => text.includes("one-2"));
    await shell.ack(seen.next - 1);
    // A long poll still waiting on the agent must not keep the closed connection attached.
    const waiting = shell.read(seen.next, { waitMs: 20_000 }).catch(() => null);
    first.close();
    await waiting;

    // A new conchd (a new backend) resumes the agent's session: same shell, read on from where it was.
    const second = createAgentBackend({
      endpoint: url,
      agentId: "a1",
      bindingKey: conchd.privateKey,
      resumeSessionId: sessions[0] as string,
    });
    const again = await second.host.attach("s1");
    expect(again).not.toBeNull();
    expect(await second.host.list()).toEqual([{ id: "s1", running: true, workspace: ws }]);
    await again?.write(Buffer.from("echo two-$Y\n"), "c2:1");
    // The first conchd's write id, sent again (a retry after a lost connection), is typed once.
    await again?.write(Buffer.from("echo one-$((1+1))\n"), "c1:1");
    await again?.write(Buffer.from("exit 4\n"), "c2:2");
    const rest = await readUntil(again as HostProcess, seen.next, () => false);
    expect(rest.text).toContain("two-kept");
    expect(rest.text).not.toContain("one-2");
    expect(rest.exit).toMatchObject({ exitCode: 4, sandboxDenied: false });
    second.close();
  }, 60_000);

  it("loses no output nobody reads for a while: the process waits once the ring is full", async () => {
    const url = await startAgent("ws://127.0.0.1:0");
    const backend = createAgentBackend({ endpoint: url, agentId: "a1", bindingKey: conchd.privateKey });
    const bytes = 12 * 1024 * 1024;
    const flood = await backend.host.start({
      id: "flood",
      spec: {
        argv: ["sh", "-c", `head -c ${bytes} /dev/zero | tr '\\0' a; echo END`],
        cwd: ws,
        env: {},
        extraFds: [],
      },
      rules,
      workspace: ws,
      tty: false,
    });
    // Three times the ring, and nobody reading.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    let total = 0;
    let dropped = 0;
    let tail = "";
    let next = 1;
    for (let round = 0; round < 400; round++) {
      const read = await flood.read(next, { waitMs: 2000 });
      for (const chunk of read.chunks) {
        total += chunk.data.length;
        tail = (tail + Buffer.from(chunk.data).toString("latin1")).slice(-8);
      }
      dropped = Math.max(dropped, read.droppedBytes);
      next = read.nextSeq;
      if (read.chunks.length > 0) await flood.ack(next - 1);
      if (read.exit !== null) break;
    }
    expect({ total, dropped, tail }).toEqual({ total: bytes + 4, dropped: 0, tail: "aaaaEND\n" });
    backend.close();
  }, 60_000);

  it("refuses a second connection while one is attached, and says when a session has expired", async () => {
    const url = await startAgent("ws://127.0.0.1:0", 300);
    const first = createAgentBackend({ endpoint: url, agentId: "a1", bindingKey: conchd.privateKey });
    expect(await first.available()).toEqual({ available: true });
    const busy = createAgentBackend({ endpoint: url, agentId: "a1", bindingKey: conchd.privateKey });
    const refused = await busy.available();
    expect(refused.available).toBe(false);
    expect(refused.available === false && refused.reason).toContain(
      "another connection is attached to this agent's session",
    );
    const sleeper = await first.host.start({
      id: "gone",
      spec: { argv: ["sleep", "61.234"], cwd: ws, env: {}, extraFds: [] },
      rules,
      workspace: ws,
      tty: false,
    });
    expect(sleeper.id).toBe("gone");
    await until(() => sleeping().length === 1);
    first.close();
    // Past the keep time, the session and its processes are gone; a conchd resuming it is told.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const late = createAgentBackend({
      endpoint: url,
      agentId: "a1",
      bindingKey: conchd.privateKey,
      resumeSessionId: "an-old-session",
    });
    // A new session is made at once; the old processes are not in it.
    expect(await late.available()).toEqual({ available: true });
    expect(await late.host.list()).toEqual([]);
    expect(await late.host.attach("gone")).toBeNull();
    // Ended on the host, not only forgotten.
    await until(() => sleeping().length === 0);
    expect(sleeping()).toEqual([]);
    late.close();
  }, 30_000);

  it("on a unix socket only its owner can open; refuses another conchd's binding", async () => {
    const path = join(dir, "agent.sock");
    const url = await startAgent(`unix:${path}`);
    expect(url).toBe(`unix:${path}`);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const stranger = createAgentBackend({ endpoint: url, agentId: "a1", bindingKey: other.privateKey });
    const refused = await stranger.available();
    expect(refused.available === false && refused.reason).toContain(
      "binding: not signed by the conchd this agent belongs to",
    );
    // Nor does a token for another agent id bind this one.
    const wrongId = createAgentBackend({ endpoint: url, agentId: "a2", bindingKey: conchd.privateKey });
    const wrong = await wrongId.available();
    expect(wrong.available === false && wrong.reason).toContain('binding: for agent "a2", not "a1"');
  }, 30_000);

  it("sends numbered notifications to a connection that asks for them, as reads number them", async () => {
    const url = await startAgent("ws://127.0.0.1:0");
    const socket = new WebSocket(url);
    await new Promise((resolve, reject) => {
      socket.once("open", resolve);
      socket.once("error", reject);
    });
    const messages: Record<string, unknown>[] = [];
    socket.on("message", (data) => messages.push(JSON.parse(data.toString()) as Record<string, unknown>));
    const send = (id: number, method: string, params: object): void =>
      socket.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    const reply = async (id: number) => {
      for (let round = 0; round < 200; round++) {
        const found = messages.find((message) => message.id === id);
        if (found !== undefined) return found;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      throw new Error(`no reply ${id}`);
    };
    send(1, "initialize", {
      clientName: "t",
      protocolVersion: "conch-exec/1",
      binding: signBinding(conchd.privateKey, "a1"),
    });
    expect(((await reply(1)).result as Record<string, unknown>).resumed).toBe(false);
    send(2, "process/start", {
      processId: "n1",
      argv: ["sh", "-c", "echo a; sleep 0.1; echo b"],
      cwd: ws,
      tty: false,
      sandbox: { mode: "workspace-write", workspace: ws, network: false },
    });
    await reply(2);
    for (let round = 0; round < 200 && !messages.some((m) => m.method === "process/exited"); round++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const output = messages
      .filter((message) => message.method === "process/output")
      .map((message) => message.params as { seq: number; data: string });
    expect(output.map((chunk) => chunk.seq)).toEqual(output.map((_, index) => index + 1));
    expect(output.map((chunk) => Buffer.from(chunk.data, "base64").toString()).join("")).toBe("a\nb\n");
    const exited = messages.find((message) => message.method === "process/exited")?.params;
    expect(exited).toEqual({
      processId: "n1",
      exitCode: 0,
      nextSeq: output.length + 1,
      sandboxDenied: false,
    });
    // A bad request names the field it got wrong.
    send(3, "process/start", { processId: "n2", argv: "ls", cwd: ws, tty: false, sandbox: {} });
    expect((await reply(3)).error).toMatchObject({
      message: 'argv: expected a non-empty array of strings, received "ls"',
      data: { code: "invalid_params" },
    });
    socket.close();
  }, 30_000);
});
