// `pnpm bench`: medians and ratios against a baseline measured in the same run. Not a test: nothing here
// is asserted, the numbers are printed for people to read.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { run } from "@conch/exec-core";
import { createAuditLog, createSpillStore, createToolSet, ToolOrchestrator } from "@conch/orchestrator";
import {
  createSandboxRegistry,
  createSandboxWorkspace,
  prepareSandbox,
  resolveSandboxPolicy,
} from "@conch/sandbox-core";
import {
  buildSeccompFilter,
  createLandlockBackend,
  createLinuxBackend,
  seccompArchOf,
} from "@conch/sandbox-linux";

const here = fileURLToPath(new URL(".", import.meta.url));
const cliBin = fileURLToPath(new URL("../../apps/cli/dist/bin.js", import.meta.url));

/**
 * Runs a worker script of this directory in a node of its own and returns the JSON value its last
 * line prints; `nodeArgs` go before the script, `env` replaces the environment.
 */
function jsonWorker(script, args, { timeout, env, nodeArgs = [] } = {}) {
  const out = spawnSync(process.execPath, [...nodeArgs, `${here}/${script}`, ...args], {
    encoding: "utf8",
    timeout,
    env,
  });
  if (out.status !== 0)
    throw new Error(`${script} ${args.join(" ")} failed (${out.signal ?? out.status}): ${out.stderr}`);
  return JSON.parse(out.stdout.trim().split("\n").at(-1));
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

function rawSpawn(argv) {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0], argv.slice(1), { stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.resume();
    child.stderr.resume();
    child.on("error", reject);
    child.on("close", resolve);
  });
}

/**
 * A prepared spawn (argv, cwd, env, extra descriptors) run raw with child_process.spawn: the baseline of
 * a sandboxed command. It must succeed: a baseline that fails (bwrap refusing its cwd, say) would time an
 * error instead of the command.
 */
function rawSpec(spec) {
  return () =>
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
      child.on("close", (code) => {
        if (code === 0) resolve();
        else reject(new Error(`baseline ${file} exited ${code}: ${stderr}`));
      });
    });
}

async function time(fn) {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

/** Alternates the two so that machine noise falls on both alike. */
async function compare(iterations, baseline, subject) {
  const a = [];
  const b = [];
  for (let i = 0; i < iterations; i++) {
    a.push(await time(baseline));
    b.push(await time(subject));
  }
  return { baseline: median(a), subject: median(b) };
}

const rows = [];
const row = (name, baselineName, result, unit, target) =>
  rows.push({
    benchmark: name,
    baseline: `${baselineName}: ${result.baseline.toFixed(2)} ${unit}`,
    conch: `${result.subject.toFixed(2)} ${unit}`,
    ratio: `${(result.subject / result.baseline).toFixed(2)}x`,
    target,
  });

// 1. A warm in-process `true`.
await compare(
  20,
  () => rawSpawn(["true"]),
  () => run({ argv: ["true"], cwd: "/" }),
);
row(
  "run() of `true`, warm, in-process (median of 200)",
  "child_process.spawn",
  await compare(
    200,
    () => rawSpawn(["true"]),
    () => run({ argv: ["true"], cwd: "/" }),
  ),
  "ms",
  "<= 1.3x",
);

// 2. 200 MiB of output, each run in its own process for its peak RSS.
function worker(mode) {
  return jsonWorker(mode === "analyze" ? "analyze-worker.mjs" : "output-worker.mjs", [mode]);
}
const raws = [];
const runs = [];
for (let i = 0; i < 5; i++) {
  raws.push(worker("raw"));
  runs.push(worker("run"));
}
row(
  "200 MiB output, time (median of 5)",
  "raw bounded reader",
  { baseline: median(raws.map((r) => r.ms)), subject: median(runs.map((r) => r.ms)) },
  "ms",
  "<= 1.1x",
);
row(
  "200 MiB output, peak RSS of the process (median of 5)",
  "raw bounded reader",
  { baseline: median(raws.map((r) => r.rssMiB)), subject: median(runs.map((r) => r.rssMiB)) },
  "MiB",
  "<= 100 MiB",
);

// 3. Whole-process start-up of the CLI, as issue 21 measures it: a one-shot `conch run` of `true` in the
// sandbox against a bare node that spawns `true` (Codex's native binary is 2.0x that here).
const processTime = (args) => time(() => rawSpawn([process.execPath, ...args]));
const bareSpawn = ["-e", "require('node:child_process').spawnSync('true')"];
const conchTrue = [cliBin, "run", "--approval", "never", "--sandbox", "workspace-write", "--", "true"];
await compare(
  3,
  () => processTime(bareSpawn),
  () => processTime(conchTrue),
);
row(
  "`conch run --approval never --sandbox workspace-write -- true`, whole process (median of 20)",
  "node -e spawnSync('true')",
  await compare(
    20,
    () => processTime(bareSpawn),
    () => processTime(conchTrue),
  ),
  "ms",
  "<= 2.0x",
);

// 4. 200 MiB through whole processes: `conch run` streaming to stdout and a `shell_command` tool call
// (model text and spill file) against a Node process that reads the same command's output, keeping at
// most 1 MiB of it. stdout goes to /dev/null.
const STREAM = "head -c 200M /dev/zero | tr '\\0' a";
const reader = [
  "-e",
  `const c=require('node:child_process').spawn('sh',['-c',${JSON.stringify(STREAM)}],{stdio:['ignore','pipe','inherit']});let kept=0;const keep=[];c.stdout.on('data',(d)=>{if(kept<1<<20){keep.push(d);kept+=d.length}})`,
];
const streamHome = mkdtempSync(join(tmpdir(), "conch-bench-stream-"));
const streamEnv = { ...process.env, XDG_STATE_HOME: join(streamHome, "state") };
// Each process says its own peak RSS as it exits (a preload writes it to descriptor 3), so that the
// rows below can say the whole process's memory too.
const peakRss = join(streamHome, "peak-rss.cjs");
writeFileSync(
  peakRss,
  'process.on("exit", () => require("node:fs").writeSync(3, String(process.resourceUsage().maxRSS)));\n',
);
const nullRun = (args, into) =>
  time(
    () =>
      new Promise((resolve, reject) => {
        const child = spawn(process.execPath, ["--require", peakRss, ...args], {
          stdio: ["ignore", "ignore", "pipe", "pipe"],
          env: streamEnv,
          cwd: streamHome,
        });
        let stderr = "";
        let peak = "";
        child.stderr.on("data", (chunk) => {
          stderr += chunk;
        });
        child.stdio[3].on("data", (chunk) => {
          peak += chunk;
        });
        child.on("error", reject);
        child.on("close", (code) => {
          into?.push(Number(peak) / 1024);
          return code === 0 ? resolve() : reject(new Error(`${args.join(" ")}: ${code} ${stderr}`));
        });
      }),
  );
const conchStream = [cliBin, "run", "--approval", "never", "--", "sh", "-c", STREAM];
const toolStream = [cliBin, "tool", "call", "shell_command", JSON.stringify({ command: STREAM })];
for (const [name, args] of [
  ["`conch run` of 200 MiB to /dev/null", conchStream],
  ["`conch tool call shell_command` of 200 MiB (model text, spill file)", toolStream],
]) {
  // One of each first, unmeasured: the first call in a new state dir also captures the shell snapshot
  // and probes bwrap, once for all the calls after it.
  await compare(
    1,
    () => nullRun(reader),
    () => nullRun(args),
  );
  const peaks = { baseline: [], subject: [] };
  row(
    `${name}, whole process (median of 9)`,
    "node bounded reader",
    await compare(
      9,
      () => nullRun(reader, peaks.baseline),
      () => nullRun(args, peaks.subject),
    ),
    "ms",
    name.startsWith("`conch run`") ? "<= 1.2x" : "<= 1.5x",
  );
  row(
    `${name}, peak RSS of the whole process (median of 9)`,
    "node bounded reader",
    { baseline: median(peaks.baseline), subject: median(peaks.subject) },
    "MiB",
    "<= 100 MiB",
  );
}
rmSync(streamHome, { recursive: true, force: true });

// 5. `true` in the Linux sandbox: through exec-core's prepare hook vs the same bwrap command spawned raw.
const backend = createLinuxBackend();
if (process.platform === "linux" && (await backend.available()).available) {
  const rules = resolveSandboxPolicy({ mode: "workspace-write" }, { cwd: process.cwd() });
  const prepare = (spec) => backend.transform(spec, rules);
  const wrapped = await prepare({
    argv: ["true"],
    cwd: process.cwd(),
    env: { PATH: process.env.PATH },
    extraFds: [],
  });
  const rawBwrap = rawSpec({ ...wrapped, cwd: process.cwd() });
  const sandboxed = () => run({ argv: ["true"], cwd: process.cwd() }, { prepare });
  await compare(10, rawBwrap, sandboxed);
  row(
    "`true` under workspace-write, warm (median of 100)",
    "raw bwrap + seccomp",
    await compare(100, rawBwrap, sandboxed),
    "ms",
    "<= 1.3x",
  );

  // 5b. The Landlock backend (where bwrap cannot run) against bwrap, both without limits: a warm run() of
  // `true` through each backend's prepare hook, and the one-shot spawn of each transformed command.
  // A workspace of its own: the helper may not lie inside a writable root (the repository's would).
  const landlock = createLandlockBackend();
  const landlockHome = mkdtempSync(join(tmpdir(), "conch-bench-landlock-"));
  if ((await landlock.available()).available) {
    const landlockRules = resolveSandboxPolicy({ mode: "workspace-write" }, { cwd: landlockHome });
    const bwrapRules = resolveSandboxPolicy({ mode: "workspace-write" }, { cwd: landlockHome });
    const landlockPrepare = (spec) => landlock.transform(spec, landlockRules);
    const viaLandlock = () => run({ argv: ["true"], cwd: landlockHome }, { prepare: landlockPrepare });
    const viaBwrap = () =>
      run({ argv: ["true"], cwd: landlockHome }, { prepare: (spec) => backend.transform(spec, bwrapRules) });
    await compare(10, viaBwrap, viaLandlock);
    row(
      "`true` under workspace-write, warm run(), Landlock vs bwrap (median of 100)",
      "bwrap",
      await compare(100, viaBwrap, viaLandlock),
      "ms",
      "faster than bwrap",
    );
    const spec = { argv: ["true"], cwd: landlockHome, env: { PATH: process.env.PATH }, extraFds: [] };
    const rawLandlock = rawSpec(await landlockPrepare(spec));
    const rawBwrapHere = rawSpec(await backend.transform(spec, bwrapRules));
    await compare(10, rawBwrapHere, rawLandlock);
    row(
      "`true` one-shot spawn, Landlock helper vs bwrap (median of 100)",
      "bwrap + seccomp",
      await compare(100, rawBwrapHere, rawLandlock),
      "ms",
      "faster than bwrap",
    );
  }
  rmSync(landlockHome, { recursive: true, force: true });

  // 6. A whole tool call through the orchestrator: validation, approval requirement (tree-sitter),
  // sandbox, run, formatting, audit line. HOME is an empty dir so that the login shell reads no user
  // profile (this machine's pyenv init alone costs ~110 ms per login shell).
  // A home of its own beside the workspace (a home that is or holds the workspace is refused).
  const scratch = mkdtempSync(join(tmpdir(), "conch-bench-"));
  const emptyHome = mkdtempSync(join(tmpdir(), "conch-bench-home-"));
  process.env.HOME = emptyHome;
  const sessionSandbox = prepareSandbox(
    { mode: "workspace-write" },
    scratch,
    createSandboxRegistry([backend]),
  );
  // What the tool call spawns, as it spawns it (bwrap's argv, env, cwd, seccomp fd): the baseline runs
  // exactly this, raw.
  let spawned = null;
  const orchestrator = new ToolOrchestrator({
    cwd: scratch,
    approvalPolicy: "on-request",
    sandbox: { mode: "workspace-write" },
    // The session's sandbox, prepared once, as createRuntime does.
    sessionSandbox: () => sessionSandbox,
    audit: createAuditLog({ path: join(scratch, "audit.jsonl") }),
    spill: createSpillStore({ dir: join(scratch, "spill") }),
    execute: (request, options) =>
      run(request, {
        ...options,
        prepare: async (spec) => {
          const prepared = await options.prepare(spec);
          spawned ??= prepared;
          return prepared;
        },
      }),
  });
  const tools = await createToolSet({ profile: "codex", orchestrator });
  const toolCall = async () => {
    const { result } = await tools.call("shell_command", { command: "true" });
    if (result.exit_code !== 0) throw new Error(`shell_command true: ${JSON.stringify(result)}`);
  };
  await toolCall();
  const rawSpawned = rawSpec(spawned);
  await compare(10, rawBwrap, toolCall);
  row(
    'tool call shell_command {"command":"true"}, on-request + workspace-write, warm (median of 100)',
    "raw bwrap + seccomp `true`",
    await compare(100, rawBwrap, toolCall),
    "ms",
    "report",
  );
  row(
    "  the same tool call vs what it spawns (bwrap, the same argv, env and seccomp fd) spawned raw",
    `raw \`${spawned.argv
      .slice(spawned.argv.indexOf("--") + 1)
      .slice(-3)
      .join(" ")}\``,
    await compare(100, rawSpawned, toolCall),
    "ms",
    "<= 1.3x",
  );

  // 6a. The same call through conchd (issue 13), a process of its own, over stdio and over HTTP, each
  // against a raw spawn of exactly what that conchd spawns (measured by the worker, alternating); and
  // conchd's RSS idle and with 64 live PTY sessions.
  const daemonCase = (mode) => jsonWorker("daemon-worker.mjs", [mode, "100"]);
  const stdio = daemonCase("stdio");
  const http = daemonCase("http");
  row(
    'conchd tools/call shell_command {"command":"true"} over stdio, workspace-write, warm (median of 100)',
    `raw spawn of what conchd spawns (\`${stdio.spawned}\`)`,
    { baseline: stdio.baselineMs, subject: stdio.medianMs },
    "ms",
    "<= 1.5x",
  );
  row(
    "  the same over Streamable HTTP (bearer token, SSE)",
    "raw spawn of what conchd spawns",
    { baseline: http.baselineMs, subject: http.medianMs },
    "ms",
    "<= 2x",
  );
  rows.push({
    benchmark: "conchd RSS: idle after 110 calls / with 64 live PTY sessions (bash -i)",
    baseline: "-",
    conch: `${(stdio.idleRssKiB / 1024).toFixed(1)} MiB / ${(stdio.sessionsRssKiB / 1024).toFixed(1)} MiB`,
    ratio: "-",
    target: "report",
  });

  // 6b. Shell snapshots (issue 11): the same call with this machine's real profile (its home), captured
  // once, vs an empty profile; and the login shell per command the snapshot replaces. Each case runs in
  // a process of its own, whose HOME is the profile its commands see.
  const snapshotCase = (mode, home, iterations) =>
    jsonWorker("snapshot-worker.mjs", [mode, String(iterations)], { env: { ...process.env, HOME: home } });
  const realHome = userInfo().homedir;
  const empty = snapshotCase("snapshot", emptyHome, 100);
  row(
    `tool call shell_command true with this machine's profile (${realHome}), snapshot (median of 100)`,
    "the same call, empty profile",
    { baseline: empty, subject: snapshotCase("snapshot", realHome, 100) },
    "ms",
    "<= 1.2x",
  );
  row(
    "  the same profile as a login shell per command (shell_snapshot = false)",
    "the same call, empty profile",
    { baseline: empty, subject: snapshotCase("login", realHome, 30) },
    "ms",
    "report",
  );
  rmSync(emptyHome, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });

  const builds = [];
  for (let i = 0; i < 2000; i++) {
    const t = performance.now();
    buildSeccompFilter({ arch: seccompArchOf(process.arch), network: false });
    builds.push(performance.now() - t);
  }
  // The per-command sandbox checks (DESIGN.md §5): each root's identity, the protected paths (.git and
  // its gitdir, .conch, .agents) and the hidden paths (the default deny list, one readdir of the home),
  // found afresh for every command, in a git repository, with this machine's home.
  const repo = mkdtempSync(join(tmpdir(), "conch-bench-rules-"));
  spawnSync("git", ["init", "-q", repo]);
  const workspace = createSandboxWorkspace(
    { mode: "workspace-write" },
    { cwd: repo, env: { ...process.env, HOME: userInfo().homedir }, tmpDir: join(repo, ".tmp-private") },
  );
  const checks = [];
  for (let i = 0; i < 2000; i++) {
    const t = performance.now();
    workspace.rules();
    checks.push(performance.now() - t);
  }
  rmSync(repo, { recursive: true, force: true });
  rows.push({
    benchmark: "per-command sandbox checks: root identity, protected and hidden paths (median of 2000)",
    baseline: "-",
    conch: `${(median(checks) * 1000).toFixed(1)} µs`,
    ratio: "-",
    target: "<= 0.5 ms",
  });
  rows.push({
    benchmark: "seccomp filter build (median of 2000)",
    baseline: "-",
    conch: `${(median(builds) * 1000).toFixed(1)} µs`,
    ratio: "-",
    target: "report",
  });
}

// 4. Command analysis (tree-sitter), each run in a fresh process for its cold start and RSS.
const analyses = [0, 1, 2].map(() => worker("analyze"));
const pick = (key) => median(analyses.map((a) => a[key]));
rows.push({
  benchmark: `analyze() + isKnownSafeCommand, warm, scripts/s (100k, mean ${pick("meanScriptChars").toFixed(0)} chars)`,
  baseline: `bare tree-sitter parse: ${pick("rawPerSecond").toFixed(0)}/s`,
  conch: `${pick("perSecond").toFixed(0)}/s`,
  ratio: `${(pick("rawPerSecond") / pick("perSecond")).toFixed(2)}x slower`,
  target: ">= 20,000/s",
});
rows.push({
  benchmark: "analysis cold start: import + wasm init + first analyze (median of 3)",
  baseline: "-",
  conch: `${pick("coldMs").toFixed(1)} ms`,
  ratio: "-",
  target: "<= 150 ms",
});
rows.push({
  benchmark: "RSS after 200k analyses vs after 100k",
  baseline: `${pick("rssAfter100kMiB").toFixed(1)} MiB`,
  conch: `${pick("rssAfter200kMiB").toFixed(1)} MiB`,
  ratio: `${(pick("rssAfter200kMiB") / pick("rssAfter100kMiB")).toFixed(2)}x`,
  target: "no growth",
});

// 7. unified-exec sessions (DESIGN.md §3), each mode in a fresh process for its RSS and descriptors.
function sessionWorker(mode) {
  return jsonWorker("session-worker.mjs", [mode], { timeout: 180_000, nodeArgs: ["--expose-gc"] });
}
const leftBehind = [];
const sessions = (mode) => {
  const result = sessionWorker(mode);
  leftBehind.push(...result.leftBehind.map((name) => `${mode}: ${name}`));
  return result;
};
const mib = (value) => `${value.toFixed(1)} MiB`;

const trip = sessions("roundtrip");
for (const p of ["p50", "p99"]) {
  row(
    `PTY echo round trip through SessionStore send + read(id, 0) polling, ${p} (200 after 20 warmups)`,
    "raw node-pty onData",
    { baseline: trip.raw[p], subject: trip.conch[p] },
    "ms",
    p === "p50" ? "p50 <= 0.5 ms, <= 2x raw" : "report",
  );
}

for (const [mode, what] of [
  ["idle-pipes", "64 idle pipe sessions (`sleep 300`)"],
  ["idle-pty", "64 idle PTY sessions (`bash --norc --noprofile`)"],
]) {
  const idle = sessions(mode);
  rows.push({
    benchmark: `${what}: RSS of the process, before vs after`,
    baseline: `before: ${mib(idle.before.rssMiB)}, ${idle.before.fds} fds`,
    conch: `${mib(idle.after.rssMiB)}, ${idle.after.fds} fds`,
    ratio: `+${((idle.after.rssMiB - idle.before.rssMiB) / idle.live).toFixed(3)} MiB/session`,
    target: "report",
  });
}

const cyc = sessions("cycles");
const { start: cycStart, 1000: after1k, 10000: after10k, settled } = cyc.samples;
rows.push({
  benchmark: `10,000 start/exit cycles of \`true\` (pipes, 8 at a time, ${cyc.cycleMsEach.toFixed(2)} ms each): RSS`,
  baseline: `start ${mib(cycStart.rssMiB)}; after 1,000: ${mib(after1k.rssMiB)}`,
  conch: `after 10,000: ${mib(after10k.rssMiB)} (heap ${mib(after10k.heapMiB)} vs ${mib(after1k.heapMiB)})`,
  ratio: `${(after10k.rssMiB / after1k.rssMiB).toFixed(2)}x`,
  target: "no growth",
});
rows.push({
  benchmark: "  the same cycles: open descriptors in /proc/self/fd",
  baseline: `start ${cycStart.fds}; after 1,000: ${after1k.fds}`,
  conch: `after 10,000: ${after10k.fds}; settled: ${settled.fds}; sessions listed: ${settled.live}`,
  ratio: `+${after10k.fds - after1k.fds} fds`,
  target: "no fd leak",
});
rows.push({
  benchmark: `${cyc.live.sessions} \`sleep 300\` sessions, started 50 at once and closed (${cyc.live.msPerBatch.toFixed(0)} ms a batch)`,
  baseline: `before: ${cyc.live.before.fds} fds, ${mib(cyc.live.before.rssMiB)}`,
  conch: `after: ${cyc.live.after.fds} fds, ${mib(cyc.live.after.rssMiB)}, ${cyc.live.lost} lost, ${cyc.live.after.live} listed`,
  ratio: `+${cyc.live.after.fds - cyc.live.before.fds} fds`,
  target: "no fd leak",
});
rows.push({
  benchmark: "  processes the session workers found alive after terminateAll (then SIGKILLed)",
  baseline: "-",
  conch: leftBehind.length === 0 ? "none" : leftBehind.join(", "),
  ratio: "-",
  target: "none",
});

// 8. Settled returns (issue 15): a session call returns when its answer is there, not at its window.
// Each settle_ms in its own process; settle_ms = 0 is the fixed window, the behaviour before.
/** Runs one group of rows; a group that fails is a row saying so (and `pnpm bench` exits 1), not lost rows. */
async function group(name, rowsOf) {
  try {
    await rowsOf();
  } catch (error) {
    process.exitCode = 1;
    rows.push({
      benchmark: `${name}: FAILED`,
      baseline: "-",
      conch: String(error).slice(0, 300),
      ratio: "-",
      target: "-",
    });
  }
}

await group("settled returns", () => {
  const fixedWindow = jsonWorker("settle-worker.mjs", ["0"], { timeout: 600_000 });
  const settling = jsonWorker("settle-worker.mjs", ["100"], { timeout: 600_000 });
  const settleRow = (name, pick, target) =>
    row(name, "settle_ms = 0", { baseline: pick(fixedWindow), subject: pick(settling) }, "ms", target);
  settleRow(
    "write_stdin `echo hi` into a sandboxed `bash -i` (PTY), p50 (back at its prompt)",
    (r) => r.bash.p50,
    "p50 <= 20 ms",
  );
  settleRow("  the same, p99", (r) => r.bash.p99, "report");
  settleRow(
    "write_stdin `1+1` into a sandboxed `python3 -i` (PTY), p50 (output then quiet for settle_ms)",
    (r) => r.python.p50,
    "p50 <= settle_ms + 20 ms",
  );
  settleRow(
    "exec_command of a server whose banner comes at 100 ms (no yield_time_ms), p50",
    (r) => r.banner.p50,
    "<= 250 ms",
  );
});

// The agent's seven tasks (agent-tasks.jsonl), replayed before (settle_ms = 0) and after.
await group("agent tasks", () => {
  const tasks = jsonWorker("agent-tasks.mjs", ["--json"], { timeout: 900_000 });
  const share = (value) => `${(value * 100).toFixed(0)} %`;
  rows.push({
    benchmark: `${tasks.calls} calls of an agent's seven tasks (tooling/bench/agent-tasks.mjs): wall time`,
    baseline: `settle_ms = 0: ${(tasks.before.ms / 1000).toFixed(2)} s`,
    conch: `${(tasks.after.ms / 1000).toFixed(2)} s`,
    ratio: `${(tasks.after.ms / tasks.before.ms).toFixed(2)}x`,
    target:
      tasks.differences.length === 0 ? "same outputs" : `OUTPUTS DIFFER: ${tasks.differences.join(", ")}`,
  });
  rows.push({
    benchmark: "  idle (answer there, call waiting) / in calls that ended at their window",
    baseline: `${share(tasks.before.idleShare)} / ${share(tasks.before.windowBoundShare)}`,
    conch: `${share(tasks.after.idleShare)} / ${share(tasks.after.windowBoundShare)}`,
    ratio: "-",
    target: "report",
  });
});

// Ordinary git work (git-tasks.jsonl) under the default policy: what a person is asked.
await group("git work", () => {
  const git = jsonWorker("git-tasks.mjs", ["--json"], { timeout: 300_000 });
  rows.push({
    benchmark: `${git.calls} git calls (two commits, an amend, a rebase -i, a branch, a tag; tooling/bench/git-tasks.mjs): approvals`,
    baseline: "-",
    conch: `${git.approvals} asked, ${git.failed} failed${git.done ? "" : ", WORK MISSING"}`,
    ratio: "-",
    target: "0 approvals",
  });
});

// The field test's kind of Node work with network = "allowlist" (net-tasks.jsonl): what a person is asked,
// and how long npm install takes to fail with the network off.
await group("network work", () => {
  const net = jsonWorker("net-tasks.mjs", ["--json"], { timeout: 600_000 });
  rows.push({
    benchmark: `${net.calls} calls (npm install from an allowed registry, npm test, a dev server, curl from other calls; tooling/bench/net-tasks.mjs): approvals`,
    baseline: "-",
    conch: `${net.approvals} asked, ${net.failed} failed${net.done ? "" : ", WORK MISSING"}`,
    ratio: "-",
    target: "0 approvals",
  });
  // What was asked and what failed, when anything was: the run says it rather than hiding it.
  for (const line of [
    ...net.asked.map((what) => `asked: ${what}`),
    ...net.failures.map((what) => `failed: ${what}`),
  ]) {
    rows.push({ benchmark: `  ${line.slice(0, 300)}`, baseline: "-", conch: "-", ratio: "-", target: "-" });
  }
  for (const [how, off] of [
    ["a runtime (conchd's path)", net.offRuntime],
    ["conch run", net.offCli],
  ]) {
    rows.push({
      benchmark: `npm install with the network off, through ${how}: until it fails`,
      baseline: "70 s (field test)",
      conch: `${(off.ms / 1000).toFixed(2)} s${off.named ? ", host named" : ", HOST NOT NAMED"}`,
      ratio: "-",
      target: "<= 5 s, host named",
    });
  }
});

// 9. The web console (issue 14), in Debian's chromium; skipped, and said, when it is not installed.
await group("console", () => {
  if (existsSync(process.env.CONCH_CHROMIUM ?? "/usr/bin/chromium")) {
    const con = jsonWorker("console-worker.mjs", [], { timeout: 900_000 });
    for (const p of ["p50", "p99"]) {
      rows.push({
        benchmark: `console: a PTY write (MCP write_stdin) to its text in the browser's terminal buffer, ${p} (${con.latency.lines} lines)`,
        baseline: "-",
        conch: `${con.latency[p].toFixed(2)} ms`,
        ratio: "-",
        target: p === "p50" ? "p50 <= 30 ms" : "report",
      });
    }
    const { none, open, slow } = con.streams;
    for (const [what, m] of [
      ["a tab open on each", open],
      ["each tab stopped reading, half closed midway", slow],
    ]) {
      rows.push({
        benchmark: `console: 8 PTY sessions printing 50 MB each, ${what}: slowest session; conchd CPU`,
        baseline: `no console: ${(none.slowestMs / 1000).toFixed(2)} s; ${(none.cpuMs / 1000).toFixed(2)} s CPU`,
        conch: `${(m.slowestMs / 1000).toFixed(2)} s; ${(m.cpuMs / 1000).toFixed(2)} s CPU`,
        ratio: `${(m.slowestMs / none.slowestMs).toFixed(2)}x`,
        target: "a tab never slows a session",
      });
    }
  } else {
    rows.push({
      benchmark: "console rows: skipped, /usr/bin/chromium is missing (apt-get install -y chromium)",
      baseline: "-",
      conch: "-",
      ratio: "-",
      target: "-",
    });
  }
});

// Issue 28: through a conch-agent (loopback WebSocket, bwrap there) and a podman container, against the
// same under bwrap here.
{
  const remote = jsonWorker("remote-worker.mjs", ["15"], { timeout: 300_000 });
  const ms = (value) => `${value.toFixed(2)} ms`;
  rows.push({
    benchmark: "terminal session start to first output (median of 15)",
    baseline: `bwrap here: ${ms(remote.local.start)}`,
    conch: `agent: ${ms(remote.agent.start)}${remote.container === null ? "" : `; podman: ${ms(remote.container.start)}`}`,
    ratio: `${(remote.agent.start / remote.local.start).toFixed(2)}x`,
    target: "-",
  });
  rows.push({
    benchmark: "write_stdin round trip, a line echoed by cat (median of 75)",
    baseline: `here: ${ms(remote.local.trip)}`,
    conch: `agent: ${ms(remote.agent.trip)}${remote.container === null ? "" : `; podman: ${ms(remote.container.trip)}`}`,
    ratio: `+${(remote.agent.trip - remote.local.trip).toFixed(2)} ms`,
    target: "<= +2 ms",
  });
  rows.push({
    benchmark: "output throughput, 32 MiB (one-shot)",
    baseline: `here: ${remote.local.throughput.toFixed(0)} MB/s`,
    conch: `agent: ${remote.agent.throughput.toFixed(0)} MB/s`,
    ratio: `${(remote.agent.throughput / remote.local.throughput).toFixed(2)}x`,
    target: "-",
  });
  if (remote.container !== null) {
    rows.push({
      benchmark: "podman container from a local rootfs: run to agent listening",
      baseline: "-",
      conch: ms(remote.container.cold),
      ratio: "-",
      target: "-",
    });
  }
}

// Issue 29: a sandbox through a SandboxClaim (the tests' fake API, podman containers as pods) against a
// podman container started alone: from asking to a command's first output.
{
  const k8s = jsonWorker("kubernetes-worker.mjs", ["5"], { timeout: 300_000 });
  const ms = (value) => `${value.toFixed(0)} ms`;
  if (k8s !== null)
    rows.push({
      benchmark:
        "ask for a sandbox to first output: claim from a warm pool (fake API, podman pods; median of 5)",
      baseline: `container alone: ${ms(k8s.container)}`,
      conch: `warm claim: ${ms(k8s.warm)}; cold claim: ${ms(k8s.cold)}`,
      ratio: `${(k8s.warm / k8s.container).toFixed(2)}x`,
      target: "-",
    });
}

console.table(rows);
