// Only the 200 MiB output row of `pnpm bench`, plus exec-core's stream-only mode (`buffer: false`):
// `node tooling/bench/output-row.mjs [runs]` after `pnpm build`. Each run is a fresh process for its
// peak RSS: `raw` and `run` are output-worker.mjs's (the same as in run.mjs), `stream` is this file's.
// Not a test: nothing here is asserted, the numbers are printed for people to read.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { run } from "@conch/exec-core";

const SCRIPT = "head -c 200M /dev/zero | tr '\\0' a";

if (process.argv[2] === "stream") {
  let seen = 0;
  const started = performance.now();
  const result = await run(
    { argv: ["sh", "-c", SCRIPT], cwd: "/" },
    {
      buffer: false,
      onOutput: (delta) => {
        seen += delta.data.length;
      },
    },
  );
  const ms = performance.now() - started;
  const rssMiB = process.resourceUsage().maxRSS / 1024;
  process.stdout.write(`${JSON.stringify({ ms, rssMiB, bytes: result.stdoutBytes, seen })}\n`);
} else {
  const runs = Number(process.argv[2] ?? 5);
  const here = fileURLToPath(new URL(".", import.meta.url));
  const worker = (file, mode) => {
    const out = spawnSync(process.execPath, [`${here}/${file}`, mode], { encoding: "utf8" });
    if (out.status !== 0) throw new Error(`${file} ${mode} failed: ${out.stderr}`);
    return JSON.parse(out.stdout);
  };
  const median = (values) => {
    const sorted = [...values].sort((a, b) => a - b);
    const mid = sorted.length >> 1;
    return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  };
  const results = { raw: [], run: [], stream: [] };
  for (let i = 0; i < runs; i++) {
    results.raw.push(worker("output-worker.mjs", "raw"));
    results.run.push(worker("output-worker.mjs", "run"));
    results.stream.push(worker("output-row.mjs", "stream"));
  }
  const rows = Object.entries(results).map(([mode, list]) => ({
    mode,
    "time ms (median)": median(list.map((r) => r.ms)).toFixed(1),
    "peak RSS MiB (median)": median(list.map((r) => r.rssMiB)).toFixed(1),
    bytes: list[0].bytes,
  }));
  console.log(`200 MiB output, median of ${runs} fresh processes each`);
  console.table(rows);
}
