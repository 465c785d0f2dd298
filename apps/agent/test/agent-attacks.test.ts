// What a red-team review of conch-agent tried, each attempted for real and checked on the host: a cwd
// outside the workspace made writable, a workspace through a symlink, conchd's hidden and read-only
// paths, loader variables reaching the launcher outside the sandbox, a token valid for a year, a token
// used twice, garbage before initialize, a signal name from Object's prototype.
import { type ChildProcess, spawn } from "node:child_process";
import { generateKeyPairSync, sign } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describeWith } from "@conch/test-config";
import { afterAll, beforeAll, expect, it } from "vitest";
import { WebSocket } from "ws";

const BIN = fileURLToPath(new URL("../dist/bin.js", import.meta.url));

interface Reply {
  result?: Record<string, unknown>;
  error?: { message: string; data?: { code: string } };
}

describeWith(["linux", "bwrap", "bash"], "conch-agent, attacked", () => {
  let root: string;
  let ws: string;
  let outside: string;
  let agent: ChildProcess;
  let url: string;
  const conchd = generateKeyPairSync("ed25519");

  const token = (exp = Date.now() + 60_000): string => {
    const payload = Buffer.from(JSON.stringify({ agent: "a1", exp }));
    return `${payload.toString("base64url")}.${sign(null, payload, conchd.privateKey).toString("base64url")}`;
  };

  /** A raw connection: calls by id, and whether the agent closed it. */
  async function open() {
    const socket = new WebSocket(url);
    await new Promise((resolve, reject) => {
      socket.once("open", resolve);
      socket.once("error", reject);
    });
    const replies = new Map<number, (reply: Reply) => void>();
    let closed = false;
    socket.on("message", (data) => {
      const message = JSON.parse(data.toString()) as Reply & { id?: number };
      if (typeof message.id === "number") replies.get(message.id)?.(message);
    });
    socket.on("close", () => {
      closed = true;
    });
    let next = 1;
    const call = (method: string, params: object): Promise<Reply> =>
      new Promise((resolve) => {
        const id = next++;
        replies.set(id, resolve);
        socket.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
      });
    const close = async (): Promise<void> => {
      if (closed) return;
      const done = new Promise((resolve) => socket.once("close", resolve));
      socket.close();
      await done;
    };
    return { socket, call, close, closed: () => closed };
  }

  async function initialized() {
    const connection = await open();
    const init = await connection.call("initialize", {
      clientName: "t",
      protocolVersion: "conch-exec/1",
      binding: token(),
    });
    expect(init.error).toBeUndefined();
    return connection;
  }

  async function exitOf(call: (method: string, params: object) => Promise<Reply>, processId: string) {
    let afterSeq = 0;
    for (let round = 0; round < 40; round++) {
      const read = await call("process/read", { processId, afterSeq, waitMs: 2000 });
      if (read.result?.exited === true) return read.result;
      afterSeq = ((read.result?.nextSeq as number | undefined) ?? 1) - 1;
      if (read.error !== undefined) throw new Error(`${processId}: ${read.error.message}`);
    }
    throw new Error(`${processId} did not exit`);
  }

  beforeAll(async () => {
    root = realpathSync(mkdtempSync("/var/tmp/conch-agent-attack-"));
    ws = join(root, "ws");
    outside = join(root, "outside");
    for (const dir of [ws, outside]) mkdirSync(dir);
    const keyFile = join(root, "conchd.pub");
    writeFileSync(keyFile, conchd.publicKey.export({ type: "spki", format: "pem" }));
    agent = spawn(
      process.execPath,
      [BIN, "--listen", "ws://127.0.0.1:0", "--agent-id", "a1", "--binding-key", keyFile],
      {
        stdio: ["ignore", "ignore", "pipe"],
      },
    );
    url = await new Promise((resolve, reject) => {
      let said = "";
      agent.stderr?.on("data", (chunk: Buffer) => {
        said += chunk.toString();
        const match = /listening on (\S+)/.exec(said);
        if (match !== null) resolve(match[1] as string);
      });
      agent.once("exit", (code) => reject(new Error(`agent exited ${code}: ${said}`)));
    });
  });
  afterAll(() => {
    agent.kill("SIGKILL");
    rmSync(root, { recursive: true, force: true });
  });

  it("a cwd outside the workspace only says where the command starts: it is not writable", async () => {
    const { call, close } = await initialized();
    const start = await call("process/start", {
      processId: "cwd",
      argv: ["sh", "-c", "echo x > escaped"],
      cwd: outside,
      tty: false,
      sandbox: { mode: "workspace-write", workspace: ws, network: false },
    });
    expect(start.error).toBeUndefined();
    expect(await exitOf(call, "cwd")).toMatchObject({ exited: true, sandboxDenied: true });
    expect(existsSync(join(outside, "escaped"))).toBe(false);
    await close();
  });

  it("refuses a workspace named through a symlink", async () => {
    const { call, close } = await initialized();
    const link = join(root, "link");
    symlinkSync(outside, link);
    const start = await call("process/start", {
      processId: "link",
      argv: ["sh", "-c", "echo x > escaped"],
      cwd: link,
      tty: false,
      sandbox: { mode: "workspace-write", workspace: link, network: false },
    });
    expect(start.error?.data?.code).toBe("invalid_params");
    expect(existsSync(join(outside, "escaped"))).toBe(false);
    await close();
  });

  it("keeps conchd's hidden paths unreadable and its protected paths read-only", async () => {
    const { call, close } = await initialized();
    const secret = join(outside, "secret.txt");
    writeFileSync(secret, "TOP-SECRET\n");
    const kept = join(ws, "kept.txt");
    writeFileSync(kept, "original\n");
    const start = await call("process/start", {
      processId: "hidden",
      argv: ["sh", "-c", `cat ${secret}; echo changed > ${kept}`],
      cwd: ws,
      tty: false,
      sandbox: {
        mode: "workspace-write",
        workspace: ws,
        network: false,
        denyRead: [secret],
        protect: [kept],
      },
    });
    expect(start.error).toBeUndefined();
    await exitOf(call, "hidden");
    const read = await call("process/read", { processId: "hidden", afterSeq: 0 });
    const text = ((read.result?.chunks ?? []) as { data: string }[])
      .map((c) => Buffer.from(c.data, "base64"))
      .join("");
    expect(text).not.toContain("TOP-SECRET");
    expect(readFileSync(kept, "utf8")).toBe("original\n");
    await close();
  });

  it("refuses loader variables, which would reach the launcher outside the sandbox", async () => {
    const { call, close } = await initialized();
    const marker = join(outside, "preloaded");
    for (const name of ["LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "GCONV_PATH", "GLIBC_TUNABLES"]) {
      const start = await call("process/start", {
        processId: `env-${name}`,
        argv: ["touch", marker],
        cwd: ws,
        env: { [name]: join(ws, "evil.so") },
        tty: false,
        sandbox: { mode: "read-only", workspace: ws, network: false },
      });
      expect(start.error?.data?.code, name).toBe("invalid_params");
    }
    expect(existsSync(marker)).toBe(false);
    await close();
  });

  it("refuses a token valid for a year and a token used twice", async () => {
    const long = await open();
    const refused = await long.call("initialize", {
      clientName: "t",
      protocolVersion: "conch-exec/1",
      binding: token(Date.now() + 365 * 24 * 3600 * 1000),
    });
    expect(refused.error?.message).toBe("binding: valid for longer than 10 minutes (conchd's are valid 5)");
    const once = token();
    const first = await open();
    expect(
      (await first.call("initialize", { clientName: "t", protocolVersion: "conch-exec/1", binding: once }))
        .error,
    ).toBeUndefined();
    await first.close();
    const replay = await open();
    const again = await replay.call("initialize", {
      clientName: "t",
      protocolVersion: "conch-exec/1",
      binding: once,
    });
    expect(again.error?.message).toBe(
      "binding: this token was used already (each connection presents a fresh one)",
    );
  });

  it("closes a connection that sends anything but a valid initialize first", async () => {
    const garbage = await open();
    garbage.socket.send("{}");
    const before = await open();
    await before.call("process/list", {});
    for (let round = 0; round < 40 && !(garbage.closed() && before.closed()); round++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect([garbage.closed(), before.closed()]).toEqual([true, true]);
  });

  it("takes only the signals it names, not a name from Object's prototype", async () => {
    const { call, close } = await initialized();
    await call("process/start", {
      processId: "sig",
      argv: ["sleep", "5"],
      cwd: ws,
      tty: false,
      sandbox: { mode: "read-only", workspace: ws, network: false },
    });
    const bad = await call("process/signal", { processId: "sig", signal: "constructor" });
    expect(bad.error?.data?.code).toBe("invalid_params");
    await call("process/terminate", { processId: "sig" });
    await close();
  });
});
