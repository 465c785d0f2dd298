// Replays the field test's kind of work (net-tasks.jsonl: a Node project's npm install from a registry
// the allowlist names, its tests, a dev server started in one session and reached by curl from other
// calls) through the codex tools under the default policy (on-request, workspace-write) with
// `network = "allowlist"`. The registry is a small one on 127.0.0.1 named by network_resolve: nothing
// leaves the machine. Counts approvals and failed calls, checks the work on the host, and then times
// `npm install` with the network off (the default), through a runtime (conchd's path) and through
// `conch run` (one command per process), each of which must end in seconds and name the blocked host.
//
//   node tooling/bench/net-tasks.mjs [--json] [--calls]
import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { scratch, scratchRuntime } from "./scratch.mjs";

const file = fileURLToPath(new URL("net-tasks.jsonl", import.meta.url));
const CONCH = fileURLToPath(new URL("../../apps/cli/dist/bin.js", import.meta.url));
const calls = readFileSync(file, "utf8")
  .split("\n")
  .filter((line) => line.trim() !== "")
  .map((line) => JSON.parse(line));

/** One package, served as npm's registry serves it. */
function registry(tarball) {
  return createServer((request, response) => {
    const base = `http://${request.headers.host}`;
    if (request.url === "/conch-fixture") {
      const dist = {
        tarball: `${base}/conch-fixture/-/conch-fixture-1.0.0.tgz`,
        integrity: `sha512-${createHash("sha512").update(tarball).digest("base64")}`,
      };
      response.setHeader("content-type", "application/json");
      response.end(
        JSON.stringify({
          name: "conch-fixture",
          "dist-tags": { latest: "1.0.0" },
          versions: { "1.0.0": { name: "conch-fixture", version: "1.0.0", dist } },
        }),
      );
    } else if (request.url === "/conch-fixture/-/conch-fixture-1.0.0.tgz") response.end(tarball);
    else {
      response.statusCode = 404;
      response.end("{}");
    }
  });
}

/** The package's tarball, made with tar. */
function packed(root) {
  const dir = join(root, "fixture");
  mkdirSync(join(dir, "package"), { recursive: true });
  writeFileSync(
    join(dir, "package", "package.json"),
    JSON.stringify({ name: "conch-fixture", version: "1.0.0", main: "index.js" }),
  );
  writeFileSync(join(dir, "package", "index.js"), 'module.exports = "installed through the proxy";\n');
  execFileSync("tar", ["-czf", join(dir, "pkg.tgz"), "-C", dir, "package"]);
  return readFileSync(join(dir, "pkg.tgz"));
}

/** A Node project: a dependency, a test that uses it, a dev server. */
function project(cwd, port) {
  writeFileSync(
    join(cwd, "package.json"),
    JSON.stringify(
      { name: "app", version: "1.0.0", private: true, scripts: { test: "node test.js" } },
      null,
      2,
    ),
  );
  writeFileSync(join(cwd, ".npmrc"), `registry=http://registry.test:${port}/\ncache=.npm-cache\n`);
  writeFileSync(
    join(cwd, "test.js"),
    'const value = require("conch-fixture");\nif (value !== "installed through the proxy") process.exit(1);\nconsole.log("1 test passed");\n',
  );
  writeFileSync(
    join(cwd, "server.js"),
    'require("node:http").createServer((q, r) => r.end(`dev server says hi ${q.url}\\n`)).listen(4173, "127.0.0.1", () => console.log("listening on 4173"));\n',
  );
}

// Not under /tmp: the sandbox gives commands a private /tmp.
process.env.TMPDIR = "/var/tmp";
// `pnpm bench` runs this under pnpm, which sets npm's config in the environment (npm_config_registry
// among them), and commands inherit it: it would override the project's .npmrc, as it would not in a
// person's shell. The replay starts from a shell's environment.
for (const name of Object.keys(process.env)) {
  if (/^npm_/i.test(name)) delete process.env[name];
}
const dir = scratch("conch-net-tasks-");
let approvals = 0;
let failed = 0;
const texts = [];
const failures = [];
const asked = [];
const begin = performance.now();
const server = registry(packed(dir.root));
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const { port } = server.address();
try {
  project(dir.cwd, port);
  const runtime = await scratchRuntime(
    dir,
    [
      'network = "allowlist"',
      'network_allow = ["registry.test"]',
      'network_allow_addresses = ["127.0.0.1"]',
      'network_resolve = { "registry.test" = "127.0.0.1" }',
    ].join("\n"),
  );
  const approver = {
    async request(request) {
      approvals += 1;
      asked.push(
        request.network === undefined
          ? request.argv.join(" ")
          : `network ${request.network.host}:${request.network.port}`,
      );
      return "approved";
    },
  };
  const tools = await runtime.toolSet();
  for (const call of calls) {
    const { result, text } = await tools.call(call.tool, call.arguments, { approver });
    texts.push(text);
    const ok = result.status === "ok" && (result.exit_code === 0 || result.running === true);
    if (!ok) {
      failed += 1;
      // What went wrong, for the summary: the call and the start of its text.
      failures.push(`${JSON.stringify(call.arguments)} -> ${text.slice(0, 400)}`);
    }
    if (process.argv.includes("--calls"))
      console.error(JSON.stringify(call.arguments), "\n", text.slice(0, 800));
  }
  await runtime.orchestrator.terminateSessions();
  await runtime.close();
  const done =
    existsSync(join(dir.cwd, "node_modules", "conch-fixture", "index.js")) &&
    texts[2].includes("1 test passed") &&
    texts[4].includes("dev server says hi /") &&
    texts[5].includes("dev server says hi /again");
  const workMs = performance.now() - begin;

  // The network off (the default config): npm install of a package from the public registry.
  const off = scratch("conch-net-off-");
  let offRuntime;
  let offCli;
  try {
    writeFileSync(
      join(off.cwd, "package.json"),
      JSON.stringify({ name: "app", version: "1.0.0", private: true }),
    );
    const runtime = await scratchRuntime(off, "");
    const tools = await runtime.toolSet();
    const started = performance.now();
    const { text } = await tools.call("shell_command", {
      command: "npm install left-pad --no-audit --no-fund --no-update-notifier --cache .npm-cache",
      login: false,
      timeout_ms: 120_000,
    });
    offRuntime = {
      ms: performance.now() - started,
      named: text.includes("network: blocked registry.npmjs.org:443"),
    };
    await runtime.close();
    const cliStarted = performance.now();
    const cli = spawnSync(
      process.execPath,
      [
        CONCH,
        "run",
        "--approval",
        "never",
        "--",
        "npm",
        "install",
        "left-pad",
        "--no-audit",
        "--no-fund",
        "--cache",
        ".npm-cache",
      ],
      { cwd: off.cwd, env: off.env, encoding: "utf8", timeout: 120_000 },
    );
    offCli = {
      ms: performance.now() - cliStarted,
      named: `${cli.stdout}${cli.stderr}`.includes("registry.npmjs.org"),
    };
  } finally {
    rmSync(off.root, { recursive: true, force: true });
  }
  const summary = {
    calls: calls.length,
    approvals,
    failed,
    done,
    ms: workMs,
    offRuntime,
    offCli,
    asked,
    failures,
  };
  if (process.argv.includes("--json")) console.log(JSON.stringify(summary));
  else {
    console.log(
      `${summary.calls} calls, network allowlist: ${approvals} approval(s), ${failed} failed; work done: ${done}`,
    );
    console.log(
      `npm install, network off: ${(offRuntime.ms / 1000).toFixed(2)} s through a runtime (host named: ${offRuntime.named}), ${(offCli.ms / 1000).toFixed(2)} s through conch run (host named: ${offCli.named})`,
    );
  }
} finally {
  server.close();
  rmSync(dir.root, { recursive: true, force: true });
}
