// `pnpm conch ...`: runs the CLI from this checkout, building it (and what it depends on) first when a
// source changed. A build that takes more than a moment says so on stderr, with what it builds and, at
// the end, how long it took; turbo's own output is shown only when the build fails.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));
// Up to date, turbo answers from its cache in about a second: nothing to say then.
const QUIET_MS = 1500;

const started = Date.now();
const child = spawn(
  "pnpm",
  ["exec", "turbo", "run", "build", "--filter=@conch/cli...", "--output-logs=hash-only"],
  {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, TURBO_TELEMETRY_DISABLED: "1", TURBO_NO_UPDATE_NOTIFIER: "1" },
  },
);
let output = "";
let announced = false;
const built = new Set();
const announce = () => {
  announced = true;
  process.stderr.write(
    "conch: building the CLI and the packages it uses from source (about a minute the first time, seconds after an edit)...\n",
  );
  for (const name of built) process.stderr.write(`conch:   ${name}\n`);
};
const timer = setTimeout(announce, QUIET_MS);
const collect = (/** @type {Buffer} */ chunk) => {
  output += chunk.toString();
  // turbo prints `@conch/x:build: cache miss, executing HASH` for each package it really builds.
  for (const match of output.matchAll(/^(@conch\/[\w-]+):build: cache miss/gm)) {
    const name = /** @type {string} */ (match[1]);
    if (built.has(name)) continue;
    built.add(name);
    if (announced) process.stderr.write(`conch:   ${name}\n`);
  }
};
child.stdout.on("data", collect);
child.stderr.on("data", collect);
const status = await new Promise((resolve) => {
  child.once("error", (error) => {
    output += `${error.message}\n`;
    resolve(1);
  });
  child.once("close", (code) => resolve(code ?? 1));
});
clearTimeout(timer);
if (status !== 0) {
  process.stderr.write(`${output}conch: building the CLI failed\n`);
  process.exit(status);
}
if (announced) {
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  process.stderr.write(`conch: built ${built.size} package(s) in ${seconds} s\n`);
}
// pnpm runs scripts from the workspace root; run the command where the user typed it.
if (process.env.INIT_CWD) process.chdir(process.env.INIT_CWD);
await import("../../apps/cli/dist/bin.js");
