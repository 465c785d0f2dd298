// One 200 MiB-output run in a fresh process, so its peak RSS is its own: `node output-worker.mjs run|raw`.
// Prints {ms, rssMiB, bytes} as JSON.
import { spawn } from "node:child_process";
import { run } from "@conch/exec-core";

const SCRIPT = "head -c 200M /dev/zero | tr '\\0' a";
const CAP = 1024 * 1024;

function raw() {
  return new Promise((resolve) => {
    const child = spawn("sh", ["-c", SCRIPT], { stdio: ["ignore", "pipe", "pipe"] });
    const kept = [];
    let keptBytes = 0;
    let bytes = 0;
    const onData = (chunk) => {
      bytes += chunk.length;
      if (keptBytes < CAP) {
        kept.push(chunk);
        keptBytes += chunk.length;
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.on("close", () => resolve(bytes));
  });
}

const mode = process.argv[2];
const started = performance.now();
const bytes =
  mode === "run" ? (await run({ argv: ["sh", "-c", SCRIPT], cwd: "/" })).stdoutBytes : await raw();
const ms = performance.now() - started;
process.stdout.write(`${JSON.stringify({ ms, rssMiB: process.resourceUsage().maxRSS / 1024, bytes })}\n`);
