// `pnpm conch ...`: runs the CLI from this checkout, building it (and what it depends on) first when a
// source changed. A build that takes more than a moment says so on stderr, with what it builds and, at
// the end, how long it took; turbo's own output is shown only when the build fails.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));
const BIN = join(root, "apps/cli/dist/bin.js");
// What the last good build saw of its inputs: when they are the same now, turbo is not even asked.
const STAMP = join(root, "node_modules/.cache/conch/cli-build.json");

/**
 * A fingerprint of every build input of the CLI and the workspace packages it uses (turbo's build
 * inputs: `src/**`, the tsconfigs, `build.mjs`, `package.json`; and the shared `tsconfig.base.json` and
 * lockfile): each file's path, size and modification time. A few milliseconds, against a second or more
 * for turbo's own hashing.
 */
function fingerprint() {
  const packages = new Map();
  const byName = new Map();
  for (const group of ["packages", "apps", "tooling"]) {
    const base = join(root, group);
    if (!existsSync(base)) continue;
    for (const entry of readdirSync(base)) {
      const dir = join(base, entry);
      const manifest = join(dir, "package.json");
      if (!existsSync(manifest)) continue;
      byName.set(JSON.parse(readFileSync(manifest, "utf8")).name, dir);
    }
  }
  const visit = (/** @type {string} */ dir) => {
    if (packages.has(dir)) return;
    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    packages.set(dir, manifest);
    for (const deps of [manifest.dependencies, manifest.devDependencies]) {
      for (const [name, range] of Object.entries(deps ?? {})) {
        if (String(range).startsWith("workspace:") && byName.has(name)) visit(byName.get(name));
      }
    }
  };
  visit(join(root, "apps/cli"));
  /** @type {string[]} */
  const lines = [];
  const add = (/** @type {string} */ path) => {
    const stat = statSync(path, { throwIfNoEntry: false });
    if (stat?.isFile()) lines.push(`${path}\t${stat.size}\t${stat.mtimeMs}`);
  };
  const walk = (/** @type {string} */ dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else add(path);
    }
  };
  for (const file of ["tsconfig.base.json", "pnpm-lock.yaml", "turbo.json"]) add(join(root, file));
  for (const dir of [...packages.keys()].sort()) {
    for (const file of ["package.json", "tsconfig.json", "tsconfig.build.json", "build.mjs", "turbo.json"]) {
      add(join(dir, file));
    }
    if (existsSync(join(dir, "src"))) walk(join(dir, "src"));
  }
  return lines.join("\n");
}

async function buildIfChanged() {
  let before = "";
  try {
    before = fingerprint();
    if (existsSync(BIN) && existsSync(STAMP) && readFileSync(STAMP, "utf8") === before) return;
  } catch {
    // A fingerprint that cannot be taken: turbo decides.
    before = "";
  }
  await build();
  try {
    // Taken before the build: a file edited while turbo ran is seen by the next call.
    if (before !== "") {
      mkdirSync(join(root, "node_modules/.cache/conch"), { recursive: true });
      writeFileSync(STAMP, before);
    }
  } catch {
    // Only a cache: the next call asks turbo again.
  }
}

async function build() {
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
    process.stderr.write(
      built.size === 0
        ? `conch: nothing to rebuild (checked in ${seconds} s)\n`
        : `conch: built ${built.size} package(s) in ${seconds} s\n`,
    );
  }
}

await buildIfChanged();
// pnpm runs scripts from the workspace root; run the command where the user typed it.
if (process.env.INIT_CWD) process.chdir(process.env.INIT_CWD);
await import("../../apps/cli/dist/bin.js");
