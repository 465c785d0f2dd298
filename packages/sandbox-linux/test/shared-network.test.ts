// The network namespace a backend's commands share when the network is not the host's: a server one
// command starts answers another command, the host's listeners stay out of reach, nothing routes out,
// and `listenInside` hands this process a listener there (the way to the proxy). Real bwrap, real
// sockets on loopback only; as root and as uid 65534.
import type { ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { describeWith } from "@conch/test-config";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createLinuxBackend } from "../src/index.js";
import { rules, runSandboxed, start, writableRoots } from "./sandbox-helpers.js";

const backend = createLinuxBackend();
let base: string;
let ws: string;
let host: Server;
let hostPort: number;

beforeAll(async () => {
  base = mkdtempSync("/var/tmp/conch-shared-net-");
  ws = join(base, "ws");
  mkdirSync(ws);
  host = createServer((socket) => socket.end("the host's own listener\n"));
  await new Promise<void>((resolve) => host.listen(0, "127.0.0.1", resolve));
  hostPort = (host.address() as { port: number }).port;
});
afterAll(async () => {
  rmSync(base, { recursive: true, force: true });
  await new Promise((resolve) => host.close(resolve));
});

const offline = () => rules({ writableRoots: writableRoots(ws), network: false });

/** A sandboxed command left running (a server), killed by the caller. */
async function background(script: string): Promise<ChildProcess> {
  const spec = await backend.transform(
    { argv: ["bash", "-c", script], cwd: ws, env: { PATH: process.env.PATH ?? "" }, extraFds: [] },
    offline(),
  );
  return start(spec);
}

const sh = (script: string) => runSandboxed(backend, offline(), ws, ["bash", "-c", script]);

describeWith("bwrap", "the shared network namespace", () => {
  it("a server one command starts answers another command", async () => {
    const server = await background(
      "exec python3 -c \"import socket; s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(('127.0.0.1', 18765)); s.listen(); c, _ = s.accept(); c.sendall(b'from the other command\\n'); c.close()\"",
    );
    try {
      let answer = { code: 1 as number | null, output: "" };
      // Bounded: the server needs a moment to listen.
      for (let tries = 0; tries < 50 && answer.code !== 0; tries++) {
        answer = await sh("exec 3<>/dev/tcp/127.0.0.1/18765 && cat <&3");
        if (answer.code !== 0) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(answer).toEqual({ code: 0, output: "from the other command\n" });
    } finally {
      server.kill("SIGKILL");
    }
  });

  it("the host's listeners are out of reach, and nothing routes out", async () => {
    const local = await sh(`exec 3<>/dev/tcp/127.0.0.1/${hostPort} && cat <&3`);
    expect(local.code).not.toBe(0);
    expect(local.output).toMatch(/Connection refused/);
    const out = await sh("exec 3<>/dev/tcp/192.0.2.1/80");
    expect(out.code).not.toBe(0);
    expect(out.output).toMatch(/Network is unreachable/);
    const dns = await sh("getent hosts example.com");
    expect(dns.code).not.toBe(0);
  });

  it("listenInside: a listener there, accepted by this process, that sandboxed commands reach", async () => {
    const listen = backend.listenInside;
    expect(listen).toBeDefined();
    const server = await (listen as () => Promise<Server>).call(backend);
    server.on("connection", (socket) => socket.end("the proxy's endpoint\n"));
    const { port } = server.address() as { port: number };
    try {
      const reached = await sh(`exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3`);
      expect(reached).toEqual({ code: 0, output: "the proxy's endpoint\n" });
    } finally {
      server.close();
    }
  });

  it("a command outside it (network on) reaches the host as before", async () => {
    const result = await runSandboxed(backend, { ...offline(), network: true }, ws, [
      "bash",
      "-c",
      `exec 3<>/dev/tcp/127.0.0.1/${hostPort} && cat <&3`,
    ]);
    expect(result).toEqual({ code: 0, output: "the host's own listener\n" });
  });
});
