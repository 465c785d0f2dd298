// `pnpm bench` rows for conchd: a warm tools/call round trip over stdio (and over HTTP when conchd
// serves it), alternating with a raw spawn of exactly what conchd spawns for it (the baseline), and
// conchd's RSS idle and with 64 live sessions. Uses the MCP SDK's own client, from apps/daemon's
// dependencies. Prints one JSON object.
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { scratch } from "./scratch.mjs";

const daemonDir = fileURLToPath(new URL("../../apps/daemon/", import.meta.url));
const bin = join(daemonDir, "dist", "bin.js");
const requireFromDaemon = createRequire(join(daemonDir, "package.json"));
const load = (name) => import(pathToFileURL(requireFromDaemon.resolve(name)).href);
const { Client } = await load("@modelcontextprotocol/client");
const { StdioClientTransport } = await load("@modelcontextprotocol/client/stdio");

const [mode, iterationsArg] = process.argv.slice(2);
const iterations = Number(iterationsArg ?? "100");

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

function rssKiB(pid) {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return match === null ? null : Number(match[1]);
}

const { root, cwd, env } = scratch("conch-bench-daemon-");

async function httpClient() {
  const { StreamableHTTPClientTransport } = await load("@modelcontextprotocol/client");
  const child = spawn(process.execPath, [bin, "--cwd", cwd, "--http", "127.0.0.1:0"], {
    cwd,
    env,
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  const url = await new Promise((resolve, reject) => {
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
      const match = /listening on (http:\/\/\S+\/mcp)/.exec(stderr);
      if (match !== null) resolve(match[1]);
    });
    child.on("exit", () => reject(new Error(`conchd --http exited: ${stderr}`)));
  });
  const token = readFileSync(join(env.XDG_STATE_HOME, "conch", "conchd.token"), "utf8").trim();
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: "bench", version: "0" });
  await client.connect(transport);
  return {
    client,
    pid: child.pid,
    close: async () => {
      await client.close();
      child.kill("SIGTERM");
      await new Promise((resolve) => child.once("exit", resolve));
    },
  };
}

async function stdioClient() {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, "--cwd", cwd],
    env,
    cwd,
    stderr: "ignore",
  });
  const client = new Client({ name: "bench", version: "0" });
  await client.connect(transport);
  return { client, pid: transport.pid, close: () => client.close() };
}

/**
 * What conchd spawns for `shell_command true`: a runtime built here as conchd builds its own (same cwd,
 * same environment, hence the same config, sandbox, private /tmp and argv), its one spawn captured.
 * Returns a function that spawns that raw and fails unless it succeeds.
 */
async function conchdSpawn() {
  for (const name of Object.keys(process.env)) delete process.env[name];
  Object.assign(process.env, env);
  const { run } = await import("@conch/exec-core");
  const { createRuntime } = await import("@conch/orchestrator");
  let spawned = null;
  const runtime = await createRuntime({
    cwd,
    execute: (request, options) =>
      run(request, {
        ...options,
        prepare: async (spec) => (spawned ??= await options.prepare(spec)),
      }),
  });
  const set = await runtime.toolSet();
  const { result } = await set.call("shell_command", { command: "true" });
  if (result.exit_code !== 0 || spawned === null)
    throw new Error(`baseline capture: ${JSON.stringify(result)}`);
  await runtime.close();
  const spec = spawned;
  const raw = () =>
    new Promise((resolve, reject) => {
      const [file, ...args] = spec.argv;
      // The command's cgroups, which the helper removed after the last run: made again, as Conch makes them.
      for (const [index, arg] of spec.argv.entries()) {
        if (arg === "--cgroup") mkdirSync(spec.argv[index + 1], { recursive: true });
      }
      const child = spawn(file, args, {
        cwd: spec.cwd,
        env: spec.env,
        // And the report descriptor a one-shot's helper writes to, where the spec has one.
        stdio: [
          "ignore",
          "pipe",
          "pipe",
          ...spec.extraFds.map(() => "pipe"),
          ...(spec.reportFd === undefined ? [] : ["pipe"]),
        ],
      });
      for (const [index, data] of spec.extraFds.entries()) child.stdio[3 + index].end(data);
      if (spec.reportFd !== undefined) child.stdio[spec.reportFd].on("error", () => {}).resume();
      let stderr = "";
      child.stdout.resume();
      child.stderr.on("data", (chunk) => {
        stderr += chunk;
      });
      child.on("error", reject);
      child.on("close", (code) =>
        code === 0 ? resolve() : reject(new Error(`baseline exited ${code}: ${stderr}`)),
      );
    });
  return { raw, command: spec.argv.slice(spec.argv.lastIndexOf("conch") + 1).join(" ") };
}

try {
  const { client, pid, close } = mode === "http" ? await httpClient() : await stdioClient();
  const baseline = await conchdSpawn();
  const call = async () => {
    const result = await client.callTool({ name: "shell_command", arguments: { command: "true" } });
    if (result.structuredContent?.exit_code !== 0)
      throw new Error(`shell_command true: ${JSON.stringify(result)}`);
  };
  for (let i = 0; i < 10; i++) {
    await baseline.raw();
    await call();
  }
  const times = [];
  const raws = [];
  // Alternating, so that machine noise falls on both alike.
  for (let i = 0; i < iterations; i++) {
    let started = performance.now();
    await baseline.raw();
    raws.push(performance.now() - started);
    started = performance.now();
    await call();
    times.push(performance.now() - started);
  }
  const out = { medianMs: median(times), baselineMs: median(raws), spawned: baseline.command };
  if (mode === "stdio") {
    out.idleRssKiB = rssKiB(pid);
    for (let i = 0; i < 64; i++) {
      const started = await client.callTool({
        name: "exec_command",
        arguments: { cmd: "bash -i", tty: true, yield_time_ms: 250 },
      });
      if (started.structuredContent?.running !== true)
        throw new Error(`session ${i}: ${JSON.stringify(started)}`);
    }
    out.sessionsRssKiB = rssKiB(pid);
  }
  await close();
  process.stdout.write(`${JSON.stringify(out)}\n`);
} finally {
  rmSync(root, { recursive: true, force: true });
}
