// `pnpm bench` rows for settled returns (issue 15): how long a session call takes when its answer is
// ready long before its wait window ends. One process per `settle_ms` (given as the argument; 0 is the
// fixed window, the baseline), through the codex tools of a runtime built as `conch` builds it, with the
// config's sandbox (workspace-write) and an empty profile. Prints one JSON object.
import { rmSync } from "node:fs";
import { scratch, scratchRuntime } from "./scratch.mjs";

const settleMs = Number(process.argv[2] ?? "100");
const fixedWindow = settleMs === 0;
const dir = scratch("conch-bench-settle-");
const runtime = await scratchRuntime(dir, `settle_ms = ${settleMs}\n`);
const tools = await runtime.toolSet();

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];
};

async function call(tool, args) {
  const started = performance.now();
  const { text, result } = await tools.call(tool, args);
  const ms = performance.now() - started;
  if (result.status !== "ok") throw new Error(`${tool} ${JSON.stringify(args)}: ${text}`);
  return { ms, text, result };
}

/** A PTY session of `cmd`, then `steps` writes of `chars`, each checked for `expect` in its answer. */
async function steps(cmd, chars, expect, count) {
  const opened = await call("exec_command", { cmd, tty: true, yield_time_ms: 2000 });
  const id = opened.result.session_id;
  if (typeof id !== "number") throw new Error(`${cmd} did not stay running: ${opened.text}`);
  const times = [];
  // Warm-up, then the measured steps.
  for (let i = 0; i < count + 3; i++) {
    let { ms, text } = await call("write_stdin", { session_id: id, chars });
    // The answer can arrive after a settle (never with the fixed window): collect the rest, timed too.
    while (!expect.test(text)) {
      const more = await call("write_stdin", { session_id: id, chars: "", yield_time_ms: 1000 });
      ms += more.ms;
      text += more.text;
    }
    if (i >= 3) times.push(ms);
  }
  await runtime.orchestrator.closeSession("exec_command", id, { by: "model", client: null });
  return { p50: percentile(times, 50), p99: percentile(times, 99), n: times.length };
}

const bash = await steps("bash -i", "echo hi\n", /\bhi\b/, fixedWindow ? 30 : 100);
const python = await steps("python3 -i -q", "1+1\n", /\b2\b/, fixedWindow ? 30 : 100);

// A server whose banner comes 100 ms after it starts, started without yield_time_ms (default 10 s).
const banner = [];
for (let i = 0; i < (fixedWindow ? 2 : 20); i++) {
  const started = await call("exec_command", {
    cmd: "sleep 0.1; echo 'listening on http://127.0.0.1:8000'; exec sleep 600",
  });
  if (!/listening on/.test(started.text)) throw new Error(`no banner: ${started.text}`);
  banner.push(started.ms);
  await runtime.orchestrator.closeSession("exec_command", started.result.session_id, {
    by: "model",
    client: null,
  });
}

await runtime.close();
rmSync(dir.root, { recursive: true, force: true });
process.stdout.write(
  `${JSON.stringify({ settleMs, bash, python, banner: { p50: percentile(banner, 50), n: banner.length } })}\n`,
);
