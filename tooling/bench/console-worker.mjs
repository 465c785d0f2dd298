// `pnpm bench` rows for conchd's web console (issue 14), in Debian's chromium driven by playwright-core:
// - latency from an agent's write to a PTY to the text being in the browser's terminal buffer (p50, p99
//   of 200 lines), the write made with the MCP SDK's client as an agent makes it;
// - conchd's CPU time, and how long 8 PTY sessions each printing 50 MB (`yes | head -c 50M`) take,
//   with no console, with a tab open on each, and with each tab stopped reading (its script paused: a
//   slow tab), half of them closed midway: the console must never slow a session.
// Prints one JSON object. Needs `pnpm build` (apps/daemon's dist with its console).
import { spawn } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { scratch } from "./scratch.mjs";

const daemonDir = fileURLToPath(new URL("../../apps/daemon/", import.meta.url));
const bin = join(daemonDir, "dist", "bin.js");
const requireFromDaemon = createRequire(join(daemonDir, "package.json"));
const load = (name) => import(pathToFileURL(requireFromDaemon.resolve(name)).href);
const { Client, StreamableHTTPClientTransport } = await load("@modelcontextprotocol/client");
const playwright = await load("playwright-core");
const chromium = playwright.chromium ?? playwright.default.chromium;

const CHROMIUM = process.env.CONCH_CHROMIUM ?? "/usr/bin/chromium";
const LINES = 200;
const STREAMS = 8;
// Seconds each streaming session waits before it prints, so that tabs open on it before the flood.
const START_DELAY_S = 5;
const now = () => performance.timeOrigin + performance.now();

const { root, cwd, env } = scratch("conch-bench-console-");

function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, "latin1").split(") ")[1].split(" ");
  // utime and stime, in clock ticks (100 a second here).
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const median = (values, q = 0.5) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};

const child = spawn(process.execPath, [bin, "--cwd", cwd, "--http", "127.0.0.1:0"], {
  cwd,
  env,
  stdio: ["ignore", "ignore", "pipe"],
});
let browser;
try {
  let stderr = "";
  const { url, link } = await new Promise((resolve, reject) => {
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
      const mcp = /listening on (http:\/\/\S+\/mcp)/.exec(stderr);
      const console = /console at (http:\/\/\S+)/.exec(stderr);
      if (mcp !== null && console !== null) resolve({ url: mcp[1], link: console[1] });
    });
    child.on("exit", () => reject(new Error(`conchd exited: ${stderr}`)));
  });
  const token = readFileSync(join(env.XDG_STATE_HOME, "conch", "conchd.token"), "utf8").trim();
  const client = new Client({ name: "bench", version: "0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  const call = async (name, args) => (await client.callTool({ name, arguments: args })).structuredContent;
  const origin = new URL(url).origin;
  const freshLink = async () => {
    const { consoleLinks } = await import("@conch/orchestrator");
    const previous = process.env.XDG_STATE_HOME;
    process.env.XDG_STATE_HOME = env.XDG_STATE_HOME;
    try {
      return (await consoleLinks()).links.find((entry) => entry.daemon === child.pid).url;
    } finally {
      if (previous === undefined) delete process.env.XDG_STATE_HOME;
      else process.env.XDG_STATE_HOME = previous;
    }
  };

  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const openTerminal = async (id, loginUrl) => {
    const page = await context.newPage();
    await page.goto(loginUrl ?? `${origin}/`, { timeout: 120_000 });
    await page.getByRole("button", { name: `Open session ${id}` }).click({ timeout: 120_000 });
    await page.getByText("running").first().waitFor({ timeout: 120_000 });
    return page;
  };

  // 1. Latency: an agent's write to the shell's PTY until the echoed text is in the tab's buffer.
  const shell = await call("exec_command", {
    cmd: "bash --norc --noprofile -i",
    tty: true,
    yield_time_ms: 500,
  });
  const page = await openTerminal(shell.session_id, link);
  const latencies = [];
  for (let i = 0; i < LINES + 20; i++) {
    const marker = `mark-${i}-x`;
    const seen = page.evaluate(
      (text) =>
        new Promise((resolve) => {
          const look = () => {
            if (window.conchConsole.terminalText().includes(text))
              resolve(performance.timeOrigin + performance.now());
            else setTimeout(look, 1);
          };
          look();
        }),
      marker,
    );
    const started = now();
    const written = call("write_stdin", {
      session_id: shell.session_id,
      chars: `: ${marker}\n`,
      yield_time_ms: 250,
    });
    const arrived = await seen;
    await written;
    if (i >= 20) latencies.push(arrived - started);
  }
  await page.close();

  // 2. 8 sessions printing 50 MB each: no console; a tab on each; slow tabs, half closed midway.
  const stream = async (mode) => {
    const cpuBefore = cpuMs(child.pid);
    const started = now();
    const ids = [];
    for (let i = 0; i < STREAMS; i++) {
      // The output starts once the tabs are open (the same wait in every mode).
      const result = await call("exec_command", {
        cmd: `sleep ${START_DELAY_S}; yes | head -c 50M`,
        tty: true,
        yield_time_ms: 250,
      });
      ids.push(result.session_id);
    }
    const pages = [];
    if (mode !== "none") {
      for (const id of ids) {
        const tab = await openTerminal(id, await freshLink());
        if (mode === "slow") {
          // A tab that stops reading (a frozen or busy tab): its script paused. Not CPU throttling:
          // Chromium's throttled renderers burn more CPU than unthrottled ones (measured here: twice
          // the renderer CPU), which on a small machine slows the sessions through the browser alone.
          const cdp = await context.newCDPSession(tab);
          await cdp.send("Debugger.enable");
          await cdp.send("Debugger.pause");
        }
        pages.push(tab);
      }
    }
    let closed = false;
    const ended = new Map();
    while (ended.size < ids.length) {
      for (const id of ids) {
        if (ended.has(id)) continue;
        const result = await call("write_stdin", { session_id: id, chars: "", yield_time_ms: 5000 });
        if (result.running === false) ended.set(id, now() - started);
      }
      if (mode === "slow" && !closed && ended.size < ids.length) {
        closed = true;
        for (const tab of pages.splice(0, pages.length / 2)) await tab.close();
      }
    }
    const wallMs = now() - started;
    for (const tab of pages) await tab.close();
    return { wallMs, cpuMs: cpuMs(child.pid) - cpuBefore, slowestMs: Math.max(...ended.values()) };
  };
  const none = await stream("none");
  const open = await stream("open");
  const slow = await stream("slow");

  await client.close();
  process.stdout.write(
    `${JSON.stringify({
      latency: { p50: median(latencies), p99: median(latencies, 0.99), lines: latencies.length },
      streams: { none, open, slow },
    })}\n`,
  );
} finally {
  await browser?.close();
  child.kill("SIGTERM");
  await new Promise((resolve) => child.once("exit", resolve));
  rmSync(root, { recursive: true, force: true });
}
