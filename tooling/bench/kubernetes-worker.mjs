// `pnpm bench`'s Kubernetes rows (issue 29), in a process of their own: from asking for a sandbox to a
// command's first output, (a) through a SandboxClaim adopting a warm pod, (b) through a claim that
// cold-starts its pod, against (c) a podman container started alone. The API server is the tests' fake
// (tooling/test-config/src/fake-kube.ts, agent-sandbox's CRD schemas and claim controller), the pods
// podman containers running conch-agent on 127.0.0.1: the cluster's own latencies (scheduling, image
// pulls, the controller's queue) are not in these numbers. Prints one JSON line: medians in ms.
import { execFile } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, connect as tcpConnect } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { createSandboxWorkspace } from "@conch/sandbox-core";
import { kubernetesSandbox } from "@conch/sandbox-kubernetes";
import { createAgentBackend } from "@conch/sandbox-remote";
import ts from "typescript";

const run = promisify(execFile);
const AGENT = fileURLToPath(new URL("../../apps/agent/dist/bin.js", import.meta.url));
const REPO = fileURLToPath(new URL("../..", import.meta.url));
const ROUNDS = Number(process.argv[2] ?? 5);
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

// The fake is TypeScript (the tests'): compiled beside its source, so that its imports resolve there.
const fakeSource = fileURLToPath(new URL("../test-config/src/fake-kube.ts", import.meta.url));
const fakeCompiled = join(dirname(fakeSource), `.fake-kube-bench-${process.pid}.mjs`);
writeFileSync(
  fakeCompiled,
  ts.transpileModule(readFileSync(fakeSource, "utf8"), {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  }).outputText,
);
const { startFakeKube } = await import(pathToFileURL(fakeCompiled).href);
rmSync(fakeCompiled);

const work = mkdtempSync("/var/tmp/conch-bench-k8s-");
const ws = join(work, "ws");
mkdirSync(ws);
const rootfs = join(work, "rootfs");
for (const sub of ["usr", "etc", "tmp", "proc", "dev", "sys", "run", "var/tmp", "root"])
  mkdirSync(join(rootfs, sub), { recursive: true });
for (const link of ["bin", "lib", "lib64", "sbin"]) symlinkSync(`usr/${link}`, join(rootfs, link));
for (const file of ["passwd", "group"])
  writeFileSync(join(rootfs, "etc", file), readFileSync(`/etc/${file}`));
const { privateKey, publicKey } = generateKeyPairSync("ed25519");
const pub = join(work, "conchd.pub");
writeFileSync(pub, publicKey.export({ type: "spki", format: "pem" }));
const rules = createSandboxWorkspace({ mode: "workspace-write" }, { cwd: ws }).rules();
const limits = readFileSync("/proc/self/limits", "utf8");
const hard = (label) =>
  Number(
    limits
      .split("\n")
      .find((line) => line.startsWith(label))
      ?.slice(label.length)
      .trim()
      .split(/\s+/)[1],
  );
const processes = Math.min(hard("Max processes"), Number(readFileSync("/proc/sys/kernel/pid_max", "utf8")));
const nodeHome = dirname(dirname(process.execPath));
const containers = new Set();

async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function listening(port) {
  for (;;) {
    const up = await new Promise((resolve) => {
      const socket = tcpConnect(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (up) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A pod: conch-agent in a podman container (host network, 127.0.0.1 only), as the tests make it. */
async function startPod(name) {
  const port = await freePort();
  const container = `conch-bench-k8s-${process.pid}-${name}`;
  containers.add(container);
  await run("podman", [
    "run",
    "-d",
    "--name",
    container,
    "--network",
    "host",
    "--security-opt",
    "unmask=ALL",
    "--security-opt",
    "seccomp=unconfined",
    "--security-opt",
    "label=disable",
    "--ulimit",
    `nofile=${hard("Max open files")}:${hard("Max open files")}`,
    "--ulimit",
    `nproc=${processes}:${processes}`,
    "-v",
    "/usr:/usr:ro",
    "-v",
    `${REPO}:${REPO}:ro`,
    ...(nodeHome === "/usr" ? [] : ["-v", `${nodeHome}:${nodeHome}:ro`]),
    "-v",
    `${pub}:/run/conch-key/binding.pub:ro`,
    "-v",
    `${ws}:${ws}`,
    "--rootfs",
    rootfs,
    process.execPath,
    AGENT,
    "--listen",
    `ws://127.0.0.1:${port}`,
    "--agent-id",
    name,
    "--binding-key",
    "/run/conch-key/binding.pub",
  ]);
  await listening(port);
  return {
    ip: "127.0.0.1",
    port,
    stop: async () => {
      containers.delete(container);
      await run("podman", ["rm", "-f", "-t", "0", container]).catch(() => {});
    },
  };
}

/** Starts `echo first` on `backend` and resolves at its first output. */
async function firstOutput(backend, round) {
  const process = await backend.host.start({
    id: `bench-${round}-${Date.now()}`,
    spec: { argv: ["echo", "first"], cwd: ws, env: {}, extraFds: [] },
    rules,
    workspace: ws,
    tty: false,
  });
  let next = 1;
  for (;;) {
    const read = await process.read(next, { waitMs: 5000 });
    if (read.chunks.some((chunk) => chunk.data.toString().includes("first"))) return;
    next = read.nextSeq;
    if (read.exit !== null) throw new Error("exited without output");
  }
}

/** Container alone: podman run, the agent listening, connected, first output. */
async function containerAlone(round) {
  const started = performance.now();
  const pod = await startPod(`alone-${round}`);
  const backend = createAgentBackend({
    endpoint: `ws://127.0.0.1:${pod.port}`,
    agentId: `alone-${round}`,
    bindingKey: privateKey,
  });
  try {
    await firstOutput(backend, round);
    return performance.now() - started;
  } finally {
    backend.close();
    await pod.stop();
  }
}

/** Through a claim on a pool of `replicas` warm pods (0: every claim cold-starts its pod). */
async function viaClaims(replicas) {
  const fake = await startFakeKube({
    namespace: "conch",
    pools: [{ name: "conch", replicas, template: "conch" }],
    startPod,
    token: "bench-token-0123456789",
  });
  const kubeconfig = join(work, `kubeconfig-${replicas}`);
  writeFileSync(kubeconfig, fake.kubeconfig);
  const times = [];
  try {
    // Round 0 is not timed: it loads @kubernetes/client-node (once per conchd).
    for (let round = 0; round <= ROUNDS; round++) {
      if (replicas > 0) await fake.untilWarm("conch", replicas);
      const started = performance.now();
      const sandbox = kubernetesSandbox({ kubeconfig, warmPool: "conch", owner: "bench", workspace: ws });
      const backend = createAgentBackend({ endpoint: sandbox, agentId: "pending", bindingKey: privateKey });
      try {
        await firstOutput(backend, round);
        if (round > 0) times.push(performance.now() - started);
      } finally {
        backend.close();
        await sandbox.release();
        sandbox.close();
      }
    }
  } finally {
    await fake.close();
  }
  return median(times);
}

let podman = true;
try {
  await run("podman", ["info"]);
} catch {
  podman = false;
}
try {
  if (!podman) {
    console.log("null");
    rmSync(work, { recursive: true, force: true });
    process.exit(0);
  }
  const alone = [];
  for (let round = 0; round < ROUNDS; round++) alone.push(await containerAlone(round));
  const warm = await viaClaims(1);
  const cold = await viaClaims(0);
  console.log(JSON.stringify({ container: median(alone), warm, cold }));
} finally {
  for (const container of containers) await run("podman", ["rm", "-f", "-t", "0", container]).catch(() => {});
  rmSync(work, { recursive: true, force: true });
}
