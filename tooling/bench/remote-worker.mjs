// `pnpm bench`'s remote rows (issue 28), in a process of their own: a terminal session's start, a
// write's round trip and output throughput, under bwrap here (unified-exec, exec-core) and through a
// conch-agent on loopback (conch-exec/1 over WebSocket, bwrap there), and a session's start in a
// podman container made from a local root file system. Prints one JSON line: medians in ms, MB/s.
import { execFileSync, spawn } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { run } from "@conch/exec-core";
import { createSandboxRegistry, createSandboxWorkspace, prepareSandbox } from "@conch/sandbox-core";
import { createLinuxBackend } from "@conch/sandbox-linux";
import { createAgentBackend } from "@conch/sandbox-remote";
import { SessionStore } from "@conch/unified-exec";

const AGENT = fileURLToPath(new URL("../../apps/agent/dist/bin.js", import.meta.url));
const REPO = fileURLToPath(new URL("../..", import.meta.url));
const ROUNDS = Number(process.argv[2] ?? 15);
const BYTES = 32 * 1024 * 1024;

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

const work = mkdtempSync("/var/tmp/conch-bench-remote-");
const ws = join(work, "ws");
mkdirSync(ws);
const { privateKey, publicKey } = generateKeyPairSync("ed25519");
const pub = join(work, "conchd.pub");
writeFileSync(pub, publicKey.export({ type: "spki", format: "pem" }));
const rules = createSandboxWorkspace({ mode: "workspace-write" }, { cwd: ws }).rules();

function startAgent(args) {
  const child = spawn(process.execPath, [AGENT, ...args, "--agent-id", "bench", "--binding-key", pub], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  return new Promise((resolve, reject) => {
    let said = "";
    child.stderr.on("data", (chunk) => {
      said += chunk;
      const match = /listening on (\S+)/.exec(said);
      if (match) resolve({ child, url: match[1] });
    });
    child.once("exit", (code) => reject(new Error(`agent exited ${code}: ${said}`)));
  });
}

/** Reads `process` from `from` until `text` is seen; the next sequence number. */
async function readUntil(process, from, text) {
  let seen = "";
  let next = from;
  for (;;) {
    const read = await process.read(next, { waitMs: 5000 });
    for (const chunk of read.chunks) seen += Buffer.from(chunk.data).toString("latin1");
    next = read.nextSeq;
    if (seen.includes(text) || read.exit !== null) return next;
  }
}

async function remoteRows(url) {
  const backend = createAgentBackend({ endpoint: url, agentId: "bench", bindingKey: privateKey });
  const ready = await backend.available();
  if (!ready.available) throw new Error(ready.reason);
  const starts = [];
  const trips = [];
  for (let i = 0; i < ROUNDS; i++) {
    const spec = { argv: ["sh", "-c", "echo ready; exec cat"], cwd: ws, env: {}, extraFds: [] };
    const started = performance.now();
    const process = await backend.host.start({
      id: `s${i}-${Date.now()}`,
      spec,
      rules,
      workspace: ws,
      tty: true,
      size: { cols: 80, rows: 24 },
    });
    let next = await readUntil(process, 1, "ready");
    starts.push(performance.now() - started);
    for (let j = 0; j < 5; j++) {
      // A read waits on the agent (as conchd's pump always has one waiting), then the write.
      const at = performance.now();
      const reading = readUntil(process, next, `w${j}`);
      await process.write(Buffer.from(`w${j}\n`), `b${i}:${j}`);
      next = await reading;
      trips.push(performance.now() - at);
    }
    await process.terminate();
    // Acknowledged to its end after the exit: the agent forgets it.
    await process.ack(next + 10).catch(() => {});
  }
  backend.close();
  return { start: median(starts), trip: median(trips) };
}

async function remoteThroughput(url) {
  const backend = createAgentBackend({ endpoint: url, agentId: "bench", bindingKey: privateKey });
  const spec = {
    argv: ["sh", "-c", `head -c ${BYTES} /dev/zero | tr '\\0' a`],
    cwd: ws,
    env: {},
    extraFds: [],
  };
  const started = performance.now();
  const process = await backend.host.start({ id: `t-${Date.now()}`, spec, rules, workspace: ws, tty: false });
  let bytes = 0;
  let next = 1;
  for (;;) {
    const read = await process.read(next, { waitMs: 5000 });
    for (const chunk of read.chunks) bytes += chunk.data.length;
    next = read.nextSeq;
    if (read.chunks.length > 0) await process.ack(next - 1);
    if (read.exit !== null) break;
  }
  const seconds = (performance.now() - started) / 1000;
  backend.close();
  if (bytes !== BYTES) throw new Error(`read ${bytes} of ${BYTES} bytes through the agent`);
  return bytes / 1e6 / seconds;
}

async function localRows() {
  const sandbox = await prepareSandbox(
    { mode: "workspace-write" },
    ws,
    createSandboxRegistry([createLinuxBackend({ sharedNetwork: false })]),
  );
  const store = new SessionStore();
  const starts = [];
  const trips = [];
  for (let i = 0; i < ROUNDS; i++) {
    let seen = "";
    let wake = () => {};
    const stop = store.observe((event) => {
      if (event.type === "output") {
        seen += event.data.toString("latin1");
        wake();
      }
    });
    const until = (text) =>
      new Promise((resolve) => {
        wake = () => seen.includes(text) && resolve();
        wake();
      });
    const started = performance.now();
    const response = await store.start(
      {
        argv: ["sh", "-c", "echo ready; exec cat"],
        command: "cat",
        cwd: ws,
        tty: true,
        prepare: sandbox.spawnHook({ tty: true }),
        wrapped: true,
        render: false,
      },
      0,
      { unclampedYield: true, settle: false },
    );
    await until("ready");
    starts.push(performance.now() - started);
    for (let j = 0; j < 5; j++) {
      const at = performance.now();
      store.send(response.sessionId, `w${j}\n`);
      await until(`w${j}`);
      trips.push(performance.now() - at);
    }
    stop();
    await store.close(response.sessionId);
  }
  await store.terminateAll();
  const prepare = sandbox.spawnHook();
  const started = performance.now();
  let bytes = 0;
  await run(
    { argv: ["sh", "-c", `head -c ${BYTES} /dev/zero | tr '\\0' a`], cwd: ws },
    {
      prepare,
      buffer: false,
      onOutput: ({ data }) => {
        bytes += data.length;
      },
    },
  );
  const throughput = bytes / 1e6 / ((performance.now() - started) / 1000);
  return { start: median(starts), trip: median(trips), throughput };
}

/** The agent in a podman container from a local root file system (as `remote = "podman"` makes it). */
async function containerRows() {
  try {
    execFileSync("podman", ["info"], { stdio: "ignore" });
  } catch {
    return null;
  }
  const rootfs = join(work, "rootfs");
  for (const sub of ["usr", "etc", "tmp", "proc", "dev", "sys", "run", "var/tmp", "root"])
    mkdirSync(join(rootfs, sub), { recursive: true });
  for (const link of ["bin", "lib", "lib64", "sbin"]) symlinkSync(`usr/${link}`, join(rootfs, link));
  for (const file of ["passwd", "group"])
    writeFileSync(join(rootfs, "etc", file), readFileSync(`/etc/${file}`));
  const sockets = join(work, "sock");
  mkdirSync(sockets);
  const nodeHome = dirname(dirname(process.execPath));
  const name = `conch-bench-${process.pid}`;
  const limits = readFileSync("/proc/self/limits", "utf8");
  const hard = (label) =>
    limits
      .split("\n")
      .find((line) => line.startsWith(label))
      ?.slice(label.length)
      .trim()
      .split(/\s+/)[1];
  const pidMax = Number(readFileSync("/proc/sys/kernel/pid_max", "utf8"));
  const started = performance.now();
  execFileSync(
    "podman",
    [
      "run",
      "-d",
      "--name",
      name,
      "--network",
      "none",
      "--security-opt",
      "unmask=ALL",
      "--security-opt",
      "seccomp=unconfined",
      "--security-opt",
      "label=disable",
      "--ulimit",
      `nofile=${hard("Max open files")}:${hard("Max open files")}`,
      "--ulimit",
      `nproc=${Math.min(Number(hard("Max processes")), pidMax)}:${Math.min(Number(hard("Max processes")), pidMax)}`,
      "-v",
      "/usr:/usr:ro",
      "-v",
      `${REPO}:${REPO}:ro`,
      ...(nodeHome === "/usr" ? [] : ["-v", `${nodeHome}:${nodeHome}:ro`]),
      "-v",
      `${sockets}:/run/conch`,
      "-v",
      `${pub}:/run/conch-key/binding.pub:ro`,
      "-v",
      `${ws}:${ws}`,
      "-w",
      ws,
      "--rootfs",
      rootfs,
      process.execPath,
      AGENT,
      "--listen",
      "unix:/run/conch/agent.sock",
      "--agent-id",
      "bench",
      "--binding-key",
      "/run/conch-key/binding.pub",
    ],
    { stdio: "ignore" },
  );
  try {
    while (!existsSync(join(sockets, "agent.sock"))) await new Promise((resolve) => setTimeout(resolve, 5));
    const cold = performance.now() - started;
    const rows = await remoteRows(`unix:${join(sockets, "agent.sock")}`);
    return { cold, ...rows };
  } finally {
    execFileSync("podman", ["rm", "-f", "-t", "0", name], { stdio: "ignore" });
  }
}

try {
  const local = await localRows();
  const { child, url } = await startAgent(["--listen", "ws://127.0.0.1:0"]);
  let agent;
  let throughput;
  try {
    agent = await remoteRows(url);
    throughput = await remoteThroughput(url);
  } finally {
    child.kill("SIGKILL");
  }
  const container = await containerRows();
  console.log(JSON.stringify({ local, agent: { ...agent, throughput }, container }));
} finally {
  rmSync(work, { recursive: true, force: true });
}
