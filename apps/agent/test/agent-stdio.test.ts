// conch-agent as a real process over stdio (conch-exec/1), with real bwrap: initialize with a binding
// signed by "conchd" (and one from another key, refused), a terminal session read by sequence number
// with a long poll, a write sent twice typed once, the exit, a write outside the workspace refused by
// the sandbox and reported as sandboxDenied, an intent it cannot enforce refused before anything runs.
import { type ChildProcess, spawn } from "node:child_process";
import { generateKeyPairSync, sign } from "node:crypto";
import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { describeWith } from "@conch/test-config";
import { afterAll, beforeAll, expect, it } from "vitest";

const BIN = fileURLToPath(new URL("../dist/bin.js", import.meta.url));

interface Reply {
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: { code: string } };
}

describeWith(["linux", "bwrap", "pty", "bash"], "conch-agent over stdio", () => {
  let dir: string;
  let ws: string;
  let agent: ChildProcess;
  let next = 1;
  const waiting = new Map<number, (reply: Reply) => void>();
  const conchd = generateKeyPairSync("ed25519");
  const other = generateKeyPairSync("ed25519");
  const token = (key: typeof conchd.privateKey): string => {
    const payload = Buffer.from(JSON.stringify({ agent: "a1", exp: Date.now() + 60_000 }));
    return `${payload.toString("base64url")}.${sign(null, payload, key).toString("base64url")}`;
  };
  const call = (method: string, params: object): Promise<Reply> =>
    new Promise((resolve) => {
      const id = next++;
      waiting.set(id, resolve);
      agent.stdin?.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    });
  const result = async (method: string, params: object): Promise<Record<string, unknown>> => {
    const reply = await call(method, params);
    if (reply.result === undefined) throw new Error(`${method}: ${JSON.stringify(reply.error)}`);
    return reply.result;
  };
  /** Reads a process's output from `afterSeq` until `done` holds of it (bounded), as conchd would. */
  const readUntil = async (
    processId: string,
    done: (text: string, reply: Record<string, unknown>) => boolean,
  ) => {
    let text = "";
    let afterSeq = 0;
    for (let round = 0; round < 50; round++) {
      const reply = await result("process/read", { processId, afterSeq, waitMs: 2000 });
      for (const chunk of reply.chunks as { seq: number; data: string }[]) {
        text += Buffer.from(chunk.data, "base64").toString("utf8");
      }
      afterSeq = (reply.nextSeq as number) - 1;
      if (done(text, reply)) return { text, reply };
    }
    throw new Error(`not seen: ${text}`);
  };

  beforeAll(() => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), "conch-agent-")));
    ws = mkdtempSync("/var/tmp/conch-agent-ws-");
    const keyFile = join(dir, "conchd.pub");
    writeFileSync(keyFile, conchd.publicKey.export({ type: "spki", format: "pem" }));
    agent = spawn(process.execPath, [BIN, "--stdio", "--agent-id", "a1", "--binding-key", keyFile], {
      stdio: ["pipe", "pipe", "inherit"],
    });
    createInterface({ input: agent.stdout as NodeJS.ReadableStream }).on("line", (line) => {
      const reply = JSON.parse(line) as Reply & { id: number };
      waiting.get(reply.id)?.(reply);
      waiting.delete(reply.id);
    });
  });

  afterAll(async () => {
    agent.stdin?.end();
    await new Promise((resolve) => agent.once("exit", resolve));
    rmSync(dir, { recursive: true, force: true });
    rmSync(ws, { recursive: true, force: true });
  });

  it("refuses a binding from another conchd, and anything before initialize", async () => {
    expect((await call("process/list", {})).error?.data?.code).toBe("not_initialized");
    const refused = await call("initialize", {
      clientName: "t",
      protocolVersion: "conch-exec/1",
      binding: token(other.privateKey),
    });
    expect(refused.error?.data?.code).toBe("binding_refused");
    expect(refused.error?.message).toBe("binding: not signed by the conchd this agent belongs to");
  });

  it("initializes with its conchd's binding and says what it can enforce", async () => {
    const init = await result("initialize", {
      clientName: "t",
      protocolVersion: "conch-exec/1",
      binding: token(conchd.privateKey),
    });
    expect(init.capabilities).toMatchObject({ pty: true, bwrap: true, seccomp: true });
    expect(typeof init.sessionId).toBe("string");
  });

  it("a terminal session under bwrap: numbered output, a write sent twice typed once, the exit", async () => {
    await result("process/start", {
      processId: "p1",
      argv: ["bash", "--norc", "-c", "echo ready; read line; echo got-$line; read again; echo got-$again"],
      cwd: ws,
      env: { TERM: "dumb" },
      tty: true,
      sandbox: { mode: "workspace-write", workspace: ws, network: false },
    });
    await readUntil("p1", (text) => text.includes("ready"));
    const data = Buffer.from("one\n").toString("base64");
    expect(await result("process/write", { processId: "p1", data, writeId: "w1" })).toEqual({
      status: "accepted",
    });
    expect(await result("process/write", { processId: "p1", data, writeId: "w1" })).toEqual({
      status: "duplicate",
    });
    await result("process/write", {
      processId: "p1",
      data: Buffer.from("two\n").toString("base64"),
      writeId: "w2",
    });
    const { text, reply } = await readUntil("p1", (_, r) => r.exited === true);
    expect(text).toContain("got-one");
    expect(text).toContain("got-two");
    expect(text.match(/got-one/g)).toHaveLength(1);
    expect(reply).toMatchObject({ exited: true, exitCode: 0, sandboxDenied: false, droppedBytes: 0 });
    // Read again from the start: what was not acknowledged is still there (a conchd that reconnects).
    const again = await result("process/read", { processId: "p1", afterSeq: 0 });
    expect((again.chunks as unknown[]).length).toBeGreaterThan(0);
    await result("process/ack", { processId: "p1", seq: (again.nextSeq as number) - 1 });
    expect((await result("process/read", { processId: "p1", afterSeq: 0 })).chunks).toEqual([]);
    expect((await result("process/list", {})).processes).toEqual([
      { processId: "p1", workspace: ws, tty: true, running: false, exitCode: 0, nextSeq: again.nextSeq },
    ]);
  });

  it("a write outside the workspace is refused by the sandbox and reported as sandboxDenied", async () => {
    // Outside the workspace and not under /tmp (which the sandbox replaces with its own).
    const outsideDir = mkdtempSync("/var/tmp/conch-agent-out-");
    const outside = join(outsideDir, "outside.txt");
    await result("process/start", {
      processId: "p2",
      argv: ["bash", "-c", `echo x > ${outside}`],
      cwd: ws,
      tty: false,
      sandbox: { mode: "workspace-write", workspace: ws, network: false },
    });
    const { text, reply } = await readUntil("p2", (_, r) => r.exited === true);
    expect(reply, text).toMatchObject({ exited: true, sandboxDenied: true });
    expect(reply.exitCode).not.toBe(0);
    expect(existsSync(outside)).toBe(false);
    rmSync(outsideDir, { recursive: true, force: true });
  });

  it("with the pod as fallback, still runs under bwrap where bwrap works, and says so", async () => {
    const started = await result("process/start", {
      processId: "p-fallback",
      argv: ["bash", "-c", "echo in=$CONCH_SANDBOX"],
      cwd: ws,
      tty: false,
      sandbox: { mode: "workspace-write", workspace: ws, network: false, fallback: "pod" },
    });
    expect(started).toEqual({ processId: "p-fallback", sandbox: "bwrap" });
    const { text } = await readUntil("p-fallback", (_, r) => r.exited === true);
    expect(text).toContain("in=bwrap");
  });

  it("an intent it cannot enforce is refused before anything runs; an unknown process is named", async () => {
    // A writable root that holds the home directory: the agent's sandbox refuses it, as conchd's does.
    const refused = await call("process/start", {
      processId: "p3",
      argv: ["touch", join(ws, "ran")],
      cwd: ws,
      tty: false,
      sandbox: { mode: "workspace-write", workspace: ws, writableRoots: ["/"], network: false },
    });
    expect(refused.error?.data?.code).toBe("sandbox_unavailable");
    // The pod as the sandbox is a fallback for hosts that can sandbox nothing, never a way around a
    // refusal where a sandbox runs.
    const podFallback = await call("process/start", {
      processId: "p3b",
      argv: ["touch", join(ws, "ran")],
      cwd: ws,
      tty: false,
      sandbox: {
        mode: "workspace-write",
        workspace: ws,
        writableRoots: ["/"],
        network: false,
        fallback: "pod",
      },
    });
    expect(podFallback.error?.data?.code).toBe("sandbox_unavailable");
    const badFallback = await call("process/start", {
      processId: "p3c",
      argv: ["true"],
      cwd: ws,
      tty: false,
      sandbox: { mode: "workspace-write", workspace: ws, network: false, fallback: "none" },
    });
    expect(badFallback.error?.message).toBe('sandbox.fallback: expected "pod" or nothing, received "none"');
    const missing = await call("process/start", {
      processId: "p4",
      argv: ["touch", join(ws, "ran")],
      cwd: ws,
      tty: false,
      sandbox: { mode: "workspace-write", workspace: join(ws, "missing"), network: false },
    });
    expect(missing.error).toMatchObject({
      message: `sandbox.workspace: expected an existing directory named by its canonical path (no symlink, no ..), received ${JSON.stringify(join(ws, "missing"))}`,
      data: { code: "invalid_params" },
    });
    expect(existsSync(join(ws, "ran"))).toBe(false);
    expect((await call("process/read", { processId: "nope", afterSeq: 0 })).error?.message).toBe(
      'processId: no process "nope"',
    );
  });
});
