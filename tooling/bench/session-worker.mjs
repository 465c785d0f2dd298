// unified-exec sessions, each mode in a fresh process so that its RSS and descriptors are its own:
// `node --expose-gc session-worker.mjs roundtrip|idle|cycles`. Prints one JSON object.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
// Not a root devDependency (yet): by path, and @lydell/node-pty from where it is installed.
import { SessionStore } from "../../packages/unified-exec/dist/index.js";

const pty = createRequire(new URL("../../packages/unified-exec/package.json", import.meta.url))(
  "@lydell/node-pty",
);

const home = mkdtempSync(join(tmpdir(), "conch-bench-sessions-"));
const BASH = ["bash", "--norc", "--noprofile"];
const bashSpec = {
  argv: BASH,
  command: "bash",
  cwd: home,
  tty: true,
  env: { set: { HOME: home, PS1: "" } },
  render: false,
};
const pipeSpec = (argv) => ({
  argv,
  command: argv.join(" "),
  cwd: home,
  tty: false,
  env: { set: { HOME: home } },
});

const MiB = 1024 * 1024;
const settle = () => new Promise((resolve) => setImmediate(resolve));
const rssMiB = () => {
  globalThis.gc?.();
  return process.memoryUsage().rss / MiB;
};
const heapMiB = () => process.memoryUsage().heapUsed / MiB;
/** Direct children of this process (every session's root is one), SIGKILLed: what the store left behind. */
const reapChildren = () => {
  const left = [];
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      if (stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1] !== String(process.pid)) continue;
      left.push(stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")));
      process.kill(Number(pid), "SIGKILL");
    } catch {
      // Gone meanwhile.
    }
  }
  return left;
};
const fds = () => readdirSync("/proc/self/fd").length;
const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};

/**
 * `echo $((1000+N))z`: the terminal echoes the typed line as is, so `${1000+N}z\r\n` is only ever the
 * command's output. Alternates the two terminals so that machine noise falls on both alike.
 */
async function roundtrip(warmups, iterations) {
  // Raw node-pty: onData accumulation, resolved from the data callback itself.
  const term = pty.spawn(BASH[0], BASH.slice(1), {
    name: "xterm-256color",
    cols: 80,
    rows: 24,
    cwd: home,
    env: { ...process.env, HOME: home, PS1: "" },
  });
  let rawSeen = "";
  let rawWant = null;
  let rawDone = null;
  term.onData((data) => {
    rawSeen += data;
    if (rawWant !== null) {
      const at = rawSeen.indexOf(rawWant);
      if (at !== -1) {
        rawSeen = rawSeen.slice(at + rawWant.length);
        rawWant = null;
        rawDone();
      }
    }
  });
  const rawTrip = (n) =>
    new Promise((resolve) => {
      rawWant = `${1000 + n}z\r\n`;
      rawDone = resolve;
      term.write(`echo $((1000+${n}))z\n`);
    });

  // unified-exec: send, then poll read(id, 0) with a turn of the event loop between polls.
  const store = new SessionStore();
  const { sessionId } = await store.start(bashSpec, 250);
  let seen = "";
  const conchTrip = async (n) => {
    const want = `${1000 + n}z\r\n`;
    store.send(sessionId, `echo $((1000+${n}))z\n`);
    for (;;) {
      seen += (await store.read(sessionId, 0)).output;
      const at = seen.indexOf(want);
      if (at !== -1) {
        seen = seen.slice(at + want.length);
        return;
      }
      await settle();
    }
  };

  const raw = [];
  const conch = [];
  for (let n = 1; n <= warmups + iterations; n++) {
    let t = performance.now();
    await rawTrip(n);
    const rawMs = performance.now() - t;
    t = performance.now();
    await conchTrip(n);
    const conchMs = performance.now() - t;
    if (n > warmups) {
      raw.push(rawMs);
      conch.push(conchMs);
    }
  }
  const rawExited = new Promise((resolve) => term.onExit(resolve));
  term.kill();
  await Promise.all([rawExited, store.terminateAll()]);
  return {
    raw: { p50: percentile(raw, 50), p99: percentile(raw, 99) },
    conch: { p50: percentile(conch, 50), p99: percentile(conch, 99) },
  };
}

/** RSS and descriptors of this process before and after `count` idle sessions, all started at once. */
async function idle(count, spec) {
  const store = new SessionStore();
  const before = { rssMiB: rssMiB(), fds: fds() };
  const started = await Promise.all(Array.from({ length: count }, () => store.start(spec, 250)));
  const notRunning = started.filter((r) => !r.running).length;
  if (notRunning > 0) throw new Error(`${notRunning} idle sessions exited early`);
  const after = { rssMiB: rssMiB(), fds: fds() };
  await store.terminateAll();
  return { before, after, live: started.length };
}

/**
 * `cycles` sessions of a command that exits at once, `concurrency` at a time (each is forgotten when
 * its start call sees it exit), then `liveBatches` batches of `sleep 300` sessions started together
 * and closed. Samples RSS and /proc/self/fd along the way.
 */
async function cycles(total, concurrency, liveBatches, batchSize) {
  const store = new SessionStore();
  const samples = { start: { rssMiB: rssMiB(), heapMiB: heapMiB(), fds: fds() } };
  const spec = pipeSpec(["true"]);
  let done = 0;
  const started = performance.now();
  const one = async () => {
    const r = await store.start(spec, 250);
    if (r.running || r.exitCode !== 0) throw new Error(`\`true\` session: ${JSON.stringify(r)}`);
  };
  while (done < total) {
    const n = Math.min(concurrency, total - done);
    await Promise.all(Array.from({ length: n }, one));
    done += n;
    if (done === 1000 || done === total)
      samples[done] = { rssMiB: rssMiB(), heapMiB: heapMiB(), fds: fds(), live: store.size };
  }
  const cycleMs = performance.now() - started;

  // The `true` sessions close their pipes in the background: let that finish before counting.
  await new Promise((resolve) => setTimeout(resolve, 200));
  samples.settled = { rssMiB: rssMiB(), heapMiB: heapMiB(), fds: fds(), live: store.size };

  const liveBefore = { rssMiB: rssMiB(), fds: fds() };
  const liveStarted = performance.now();
  let lost = 0;
  for (let b = 0; b < liveBatches; b++) {
    const rs = await Promise.all(
      Array.from({ length: batchSize }, () => store.start(pipeSpec(["sleep", "300"]), 250)),
    );
    // Counted, not thrown: a `sleep 300` that is no longer running was killed by something else.
    lost += rs.filter((r) => !r.running || !store.has(r.sessionId)).length;
    await Promise.all(rs.filter((r) => store.has(r.sessionId)).map((r) => store.close(r.sessionId)));
  }
  const liveMs = performance.now() - liveStarted;
  await new Promise((resolve) => setTimeout(resolve, 200));
  const liveAfter = { rssMiB: rssMiB(), fds: fds(), live: store.size };
  await store.terminateAll();
  return {
    samples,
    cycleMsEach: cycleMs / total,
    live: {
      before: liveBefore,
      after: liveAfter,
      sessions: liveBatches * batchSize,
      lost,
      msPerBatch: liveMs / liveBatches,
    },
  };
}

const mode = process.argv[2];
let result;
try {
  if (mode === "roundtrip") result = await roundtrip(20, 200);
  else if (mode === "idle-pipes") result = await idle(64, pipeSpec(["sleep", "300"]));
  else if (mode === "idle-pty") result = await idle(64, bashSpec);
  else if (mode === "cycles") result = await cycles(Number(process.argv[3] ?? 10_000), 8, 6, 50);
  else throw new Error(`unknown mode ${mode}`);
  result.leftBehind = reapChildren();
} finally {
  reapChildren();
  rmSync(home, { recursive: true, force: true });
}
process.stdout.write(`${JSON.stringify(result)}\n`);
// Whatever handle a session left open must not keep the worker (and the bench) waiting.
process.exit(0);
