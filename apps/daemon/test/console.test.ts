/// <reference lib="dom" />
// The web console in a real headless Chromium (Debian's, driven by playwright-core) against a real
// `conchd --http` with real MCP clients, real PTYs and real bwrap: logging in, sessions live, taking
// over, interrupt and kill, approvals from every route, the audit log, recordings, and the page's
// defences (no session secret, no data; no cookie for another port to receive; foreign origins; CSP;
// accessibility), and `conch console`, whose browser is given no secret on its command line.
import { spawn, spawnSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describeWith } from "@conch/test-config";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  accessibilityProblems,
  eventually,
  type LaunchedBrowser,
  launchBrowser,
  screenshot,
  terminalText,
  watchCsp,
} from "./console-harness.js";
import { type CallResult, makeWorkspace, textOf, type Workspace } from "./harness.js";
import { type HttpDaemon, rawRequest, startHttp } from "./http-harness.js";

const CONSOLE_LINK = /^conchd: console at (http:\/\/\S+\/#login=[A-Za-z0-9_-]+)$/m;
/** The conch CLI, built (`pnpm --filter @conch/cli build`) before these tests run. */
const CONCH = fileURLToPath(new URL("../../cli/dist/bin.js", import.meta.url));

/**
 * Another user's attempt, run as its own process: reads /proc/PID/cmdline of the browser and of the
 * other PIDS (conch console, conchd), with `read-files` also their /proc/PID/environ and every file a
 * command line names, and tries every secret-looking word found with the console at PORT. Prints what
 * it saw and the HTTP status of every try.
 */
const READ_AND_SIGN_IN = `
import { readFileSync } from "node:fs";
import { request } from "node:http";
import { fileURLToPath } from "node:url";
const [port, mode, ...pids] = process.argv.slice(1);
const cmdline = (pid) => {
  try { return readFileSync("/proc/" + pid + "/cmdline", "utf8").split("\\0").slice(0, -1); } catch { return []; }
};
const argv = cmdline(pids[0]);
const texts = pids.flatMap(cmdline);
const files = [];
const environs = [];
if (mode === "read-files") {
  for (const arg of argv.slice(2)) {
    const path = arg.startsWith("file:") ? fileURLToPath(arg) : arg;
    try { texts.push(readFileSync(path, "utf8")); files.push("read"); } catch (error) { files.push(error.code); }
  }
  for (const pid of pids) {
    try { texts.push(readFileSync("/proc/" + pid + "/environ", "utf8")); environs.push("read"); } catch (error) { environs.push(error.code); }
  }
}
const words = [...new Set(texts.flatMap((text) => text.match(/[A-Za-z0-9_-]{16,}/g) ?? []))];
const origin = "http://127.0.0.1:" + port;
const send = (method, path, headers, body) => new Promise((resolve) => {
  const req = request({ host: "127.0.0.1", port: Number(port), method, path, headers: { host: "127.0.0.1:" + port, origin, ...headers } }, (res) => { res.resume(); resolve(res.statusCode); });
  req.on("upgrade", (res, socket) => { socket.destroy(); resolve(res.statusCode); });
  req.on("error", () => resolve(0));
  req.end(body);
});
const statuses = [];
for (const word of words) {
  statuses.push(await send("POST", "/console/api/login", { "content-type": "application/json" }, JSON.stringify({ secret: word })));
  statuses.push(await send("GET", "/console/api/state", { authorization: "Bearer " + word }));
  statuses.push(await send("GET", "/console/api/ws", { connection: "Upgrade", upgrade: "websocket", "sec-websocket-version": "13", "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==", "sec-websocket-protocol": "conch-console, conch-console-auth." + word }));
}
process.stdout.write(JSON.stringify({ argv, files, environs, statuses }));
`;

let ws: Workspace;
let daemon: HttpDaemon;
let origin: string;
let launched: LaunchedBrowser;
const clients: Client[] = [];

interface Mcp {
  call(name: string, args: Record<string, unknown>): Promise<CallResult>;
}

/** A 2025-era v2 client over HTTP, named `name`, answering forms with `elicit` when given. */
async function mcp(name: string, elicit?: () => Promise<Record<string, unknown>>): Promise<Mcp> {
  const transport = new StreamableHTTPClientTransport(daemon.url, {
    requestInit: { headers: { Authorization: `Bearer ${daemon.token}` } },
  });
  const client = new Client(
    { name, version: "0" },
    elicit === undefined ? {} : { capabilities: { elicitation: { form: {} } } },
  );
  if (elicit !== undefined) client.setRequestHandler("elicitation/create", async () => elicit() as never);
  await client.connect(transport);
  clients.push(client);
  return {
    call: async (tool, args) =>
      (await client.callTool({ name: tool, arguments: args }, { timeout: 60_000 })) as CallResult,
  };
}

/** A fresh login link, as `conch console` gets one (the startup line's is used by the first login). */
function loginLink(): Promise<string> {
  return import("@conch/orchestrator").then(async ({ consoleLinks }) => {
    const { links } = await consoleLinks({ env: ws.env });
    const link = links.find((entry) => entry.daemon === daemon.pid);
    if (link === undefined) throw new Error("no console link from the daemon");
    return link.url;
  });
}

async function signedIn(context: BrowserContext, link?: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(link ?? (await loginLink()));
  await page.getByRole("button", { name: "Sessions" }).waitFor();
  return page;
}

/** `secret` with its last character changed. */
function altered(secret: string): string {
  return `${secret.slice(0, -1)}${secret.endsWith("A") ? "B" : "A"}`;
}

/** The session secret a signed-in tab holds, as only its own page can read it. */
function sessionSecret(page: Page): Promise<string | null> {
  return page.evaluate(() => sessionStorage.getItem("conch-console-session"));
}

/** A WebSocket handshake on the console's path: the status, and the subprotocol of a 101. */
function upgradeRequest(
  port: number,
  headers: Record<string, string>,
): Promise<{ status: number; protocol: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({
      host: "127.0.0.1",
      port,
      path: "/console/api/ws",
      headers: {
        host: `127.0.0.1:${port}`,
        connection: "Upgrade",
        upgrade: "websocket",
        "sec-websocket-version": "13",
        "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
        ...headers,
      },
    });
    req.on("upgrade", (res, socket) => {
      socket.destroy();
      resolve({ status: res.statusCode ?? 0, protocol: res.headers["sec-websocket-protocol"] });
    });
    req.on("response", (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0, protocol: undefined });
    });
    req.on("error", reject);
    // Bounded: a handshake the daemon never answers fails here, naming what was sent.
    req.setTimeout(10_000, () =>
      req.destroy(new Error(`no answer to a WebSocket handshake with ${JSON.stringify(headers)}`)),
    );
    req.end();
  });
}

function audit(): Record<string, unknown>[] {
  return readFileSync(join(ws.env.XDG_STATE_HOME as string, "conch", "audit.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** Whether a `sleep 300` runs as the foreground process group of its terminal (as /proc says). */
function sleepInForeground(): boolean {
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, "latin1") !== "sleep\u0000300\u0000") continue;
      const stat = readFileSync(`/proc/${entry}/stat`, "latin1");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (fields[2] === fields[5]) return true;
    } catch {
      // Gone meanwhile.
    }
  }
  return false;
}

describeWith(["bwrap", "pty", "chromium"], "the web console", () => {
  beforeAll(async () => {
    ws = makeWorkspace();
    // Through Conch's proxy, a host nobody listed is a card too (names resolved here, nothing leaves).
    const config = join(ws.env.XDG_CONFIG_HOME as string, "conch");
    mkdirSync(config, { recursive: true });
    writeFileSync(
      join(config, "config.toml"),
      'network = "allowlist"\nnetwork_allow_addresses = ["127.0.0.1"]\nnetwork_resolve = { "asked.test" = "127.0.0.1" }\n',
    );
    daemon = await startHttp(ws, ["--http", "127.0.0.1:0", "--approval", "untrusted"]);
    origin = `http://127.0.0.1:${daemon.port}`;
    await eventually(
      async () => daemon.stderr(),
      (text) => CONSOLE_LINK.test(text),
      "the console line",
    );
    launched = await launchBrowser();
  }, 60_000);

  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => {});
    await launched?.close();
    daemon?.child.kill("SIGTERM");
    await daemon?.exited;
    ws?.remove();
  }, 60_000);

  it("without a session the page shows a login hint and the API gives no data", async () => {
    const context = await launched.browser.newContext();
    const page = await context.newPage();
    const violations = await watchCsp(page);
    await page.goto(`${origin}/`);
    await page.getByRole("heading", { name: "Not signed in" }).waitFor();
    expect(await page.getByRole("button", { name: "Sessions" }).isVisible()).toBe(false);
    const state = await page.evaluate(async () => (await fetch("/console/api/state")).status);
    expect(state).toBe(401);
    await screenshot(page, "login-hint");
    expect(await accessibilityProblems(page)).toEqual([]);
    expect(await violations()).toEqual([]);
    await context.close();
  });

  it("logs in through the printed link once, and takes the secret out of the address bar", async () => {
    const link = (CONSOLE_LINK.exec(daemon.stderr()) as RegExpExecArray)[1] as string;
    const context = await launched.browser.newContext();
    const page = await signedIn(context, link);
    expect(page.url()).toBe(`${origin}/`);
    // No cookie at all: a browser would send it to every port of 127.0.0.1.
    expect(await context.cookies()).toEqual([]);
    // The tab keeps its session across a reload (sessionStorage: this origin's, this tab's); a new tab
    // of the same browser is not signed in.
    const secret = (await sessionSecret(page)) as string;
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // The state hands out no secret of any kind.
    const state = await rawRequest(daemon.port, {
      method: "GET",
      path: "/console/api/state",
      headers: { host: `127.0.0.1:${daemon.port}`, authorization: `Bearer ${secret}` },
    });
    expect(state.status).toBe(200);
    expect(Object.keys(JSON.parse(state.body) as object)).toEqual([
      "daemon",
      "sessions",
      "approvals",
      "audit",
      "recordings",
    ]);
    expect(state.body).not.toContain(secret);
    await page.reload();
    await page.getByRole("button", { name: "Sessions" }).waitFor();
    const fresh = await context.newPage();
    await fresh.goto(`${origin}/`);
    await fresh.getByRole("heading", { name: "Not signed in" }).waitFor();
    expect(await sessionSecret(fresh)).toBe(null);
    // The login entry was replaced in the history, not added: back is where the tab was before.
    await page.goBack();
    expect(page.url()).toBe("about:blank");
    // Used: the same link again signs nobody in.
    const other = await launched.browser.newContext();
    const again = await other.newPage();
    await again.goto(link);
    await again.getByRole("heading", { name: "Not signed in" }).waitFor();
    await Promise.all([context.close(), other.close()]);
  });

  it("shows a session an MCP client started, live; a person takes it over, interrupts and kills it", async () => {
    const agent = await mcp("claude-code", async () => ({
      action: "accept",
      content: { decision: "approve_session" },
    }));
    const started = await agent.call("exec_command", {
      cmd: "bash --norc --noprofile -i",
      tty: true,
      yield_time_ms: 1000,
    });
    const id = started.structuredContent?.session_id as number;
    expect(typeof id).toBe("number");

    const context = await launched.browser.newContext({ viewport: { width: 1400, height: 900 } });
    const page = await signedIn(context);
    const violations = await watchCsp(page);
    const row = page.locator(`tr[data-session="${id}"]`);
    await row.waitFor();
    expect(await row.textContent()).toContain("claude-code");
    expect(await row.textContent()).toContain("bwrap");
    await page.getByRole("button", { name: `Open session ${id}` }).click();

    await agent.call("write_stdin", {
      session_id: id,
      chars: "echo agent-says-$((6*7))\n",
      yield_time_ms: 1000,
    });
    await eventually(
      () => terminalText(page),
      (text) => text.includes("agent-says-42"),
      "the agent's output",
    );
    // The list follows the session's last line without a reload.
    await eventually(
      async () => (await row.textContent()) ?? "",
      (text) => text.includes("bash-"),
      "the last line",
    );

    // Taking over: the person's keystrokes reach the shell, and the agent sees what they did.
    await page.getByRole("button", { name: "Take over" }).click();
    await page.keyboard.type("echo hi-from-human\n");
    await eventually(
      () => terminalText(page),
      (text) => /echo hi-from-human\s*\n\s*hi-from-human/.test(text),
      "the person's command and its output",
    );
    const seen = await agent.call("write_stdin", { session_id: id, chars: "", yield_time_ms: 5000 });
    expect(textOf(seen)).toContain("hi-from-human");
    await screenshot(page, "sessions-terminal");

    // Resizing the page does not resize the agent's terminal; the person's button does.
    const size = async (): Promise<string> => {
      const answer = await agent.call("write_stdin", {
        session_id: id,
        chars: "stty size\n",
        yield_time_ms: 1500,
      });
      return /(\d+ \d+)/.exec(textOf(answer))?.[1] ?? "";
    };
    expect(await size()).toBe("24 80");
    await page.setViewportSize({ width: 700, height: 500 });
    expect(await size()).toBe("24 80");
    await page.getByRole("button", { name: "Stop taking over" }).click();
    await page.getByRole("button", { name: "Resize the session to this view" }).click();
    await eventually(size, (value) => value !== "24 80", "the resize the person asked for");

    // Interrupt: Ctrl-C reaches the foreground program, the shell lives on.
    await agent.call("write_stdin", { session_id: id, chars: "sleep 300\n", yield_time_ms: 500 });
    // Once the sleep holds the terminal (on a loaded machine the shell may still be starting it).
    await eventually(
      async () => sleepInForeground(),
      (found) => found,
      "sleep 300 in the terminal's foreground",
    );
    await page.getByRole("button", { name: "Interrupt (Ctrl-C)" }).click();
    const after = await agent.call("write_stdin", {
      session_id: id,
      chars: "echo still-$((1+1))\n",
      yield_time_ms: 3000,
    });
    expect(textOf(after)).toContain("still-2");

    // Kill: the session is gone for the agent too.
    await page.getByRole("button", { name: "Kill" }).click();
    await row.waitFor({ state: "detached" });
    const gone = await agent.call("write_stdin", { session_id: id, chars: "echo x\n" });
    expect(gone.isError).toBe(true);
    expect(textOf(gone)).toContain(`Unknown process id ${id}`);

    // The audit log says who did what: the person's input as the person's, the kill too.
    const lines = await eventually(
      async () => audit(),
      (entries) => entries.some((line) => line.type === "session-closed"),
      "the kill's audit line",
    );
    const person = lines.filter((line) => line.type === "input" && line.by === "person");
    expect(person.every((line) => line.tool === "console" && line.client === undefined)).toBe(true);
    // Keystrokes typed while one is being sent go with the next: together, in order, the line typed.
    expect(
      person
        .filter((line) => "text" in line)
        .map((line) => line.text)
        .join(""),
    ).toBe("echo hi-from-human\\u{0d}");
    expect(person.filter((line) => "signal" in line).map((line) => line.signal)).toEqual(["SIGINT"]);
    expect(lines.find((line) => line.type === "session-closed")).toMatchObject({
      tool: "console",
      sessionId: id,
      reason: "closed",
      by: "person",
    });
    expect(lines.find((line) => line.type === "execution" && line.sessionId === id)).toMatchObject({
      client: "claude-code",
    });
    expect(await violations()).toEqual([]);
    await context.close();
  });

  it("answers approvals from every route: approve once, deny with a note, and first over a form in flight", async () => {
    const context = await launched.browser.newContext();
    const page = await signedIn(context);
    await page.getByRole("button", { name: /^Approvals/ }).click();
    // A desktop notification when a question arrives while the tab is hidden.
    await page.evaluate(() => {
      const shown: string[] = [];
      class Recorded {
        static permission = "granted";
        static requestPermission = async () => "granted";
        constructor(title: string, options: { body: string }) {
          shown.push(`${title}: ${options.body}`);
        }
      }
      Object.assign(window, { Notification: Recorded, notificationsShown: shown });
      Object.defineProperty(document, "hidden", { configurable: true, get: () => true });
    });

    const quiet = await mcp("gemini-cli");
    const first = await quiet.call("shell_command", { command: "touch approved-file" });
    expect(first.structuredContent).toMatchObject({ rejection: "approval-pending" });
    const card = page.locator("article.approval").first();
    await card.waitFor();
    expect(await card.textContent()).toContain("touch approved-file");
    expect(await card.textContent()).toContain("gemini-cli");
    await screenshot(page, "approvals");
    expect(await accessibilityProblems(page)).toEqual([]);
    expect(
      await page.evaluate(() => (window as unknown as { notificationsShown: string[] }).notificationsShown),
    ).toEqual([expect.stringContaining("gemini-cli: touch approved-file")]);
    await card.getByRole("button", { name: "Approve once" }).click();
    await card.waitFor({ state: "detached" });
    const retried = await quiet.call("shell_command", { command: "touch approved-file" });
    expect(textOf(retried)).toContain("Exit code: 0");
    expect(existsSync(join(ws.cwd, "approved-file"))).toBe(true);

    await quiet.call("shell_command", { command: "touch denied-file" });
    const denyCard = page.locator("article.approval").first();
    await denyCard.waitFor();
    await denyCard.getByLabel("Note to the agent (optional)").fill("use the build dir instead");
    await denyCard.getByRole("button", { name: "Deny" }).click();
    await denyCard.waitFor({ state: "detached" });
    const refused = await quiet.call("shell_command", { command: "touch denied-file" });
    expect(textOf(refused)).toBe(
      "rejected by user: use the build dir instead\nIt was asked because `touch denied-file` is not known to be read-only, and under the approval policy untrusted only commands known to be read-only run unasked.",
    );
    expect(existsSync(join(ws.cwd, "denied-file"))).toBe(false);

    // A client's form still open: the console's answer comes first, and the call runs.
    const waiting = await mcp("vscode", () => new Promise(() => {}));
    const call = waiting.call("shell_command", { command: "touch raced-file" });
    const raced = page.locator("article.approval").first();
    await raced.waitFor();
    expect(await raced.textContent()).toContain("the client's own form asks this too");
    // "Always allow" is offered with the rule it would store.
    expect(await raced.getByRole("button", { name: "Always allow" }).count()).toBe(1);
    expect(await raced.textContent()).toContain("Always allow stores the rule: touch …");
    await raced.getByRole("button", { name: "Approve once" }).click();
    expect(textOf(await call)).toContain("Exit code: 0");
    expect(existsSync(join(ws.cwd, "raced-file"))).toBe(true);
    await context.close();
  });

  it("a connection to a host nobody listed is a card of its own, answered while the connection waits", async () => {
    const origin = createServer((request, response) => response.end(`origin ${request.url}\n`));
    await new Promise<void>((resolve) => origin.listen(0, "127.0.0.1", resolve));
    const port = (origin.address() as AddressInfo).port;
    const context = await launched.browser.newContext();
    try {
      const page = await signedIn(context);
      await page.getByRole("button", { name: /^Approvals/ }).click();
      const quiet = await mcp("gemini-cli");
      const command = { command: `curl -sS --max-time 40 http://asked.test:${port}/card`, login: false };
      // Untrusted: the command is asked first, then its connection.
      expect((await quiet.call("shell_command", command)).structuredContent).toMatchObject({
        rejection: "approval-pending",
      });
      const commandCard = page.locator("article.approval").first();
      await commandCard.getByRole("button", { name: "Approve once" }).click();
      await commandCard.waitFor({ state: "detached" });
      const call = quiet.call("shell_command", command);
      const card = page.locator("article.approval", { hasText: `a connection to asked.test:${port}` });
      await card.waitFor();
      expect(await card.textContent()).toContain(`asked.test:${port} (http)`);
      expect(await card.textContent()).toContain(
        'Always allow stores the rule: network_rule(host="asked.test", protocol="http", decision="allow")',
      );
      expect(await accessibilityProblems(page)).toEqual([]);
      await card.getByRole("button", { name: "Allow for this command" }).click();
      expect(textOf(await call)).toContain("origin /card");
      const decided = audit().filter((line) => line.type === "decision" && line.network !== undefined);
      expect(decided.at(-1)).toMatchObject({
        network: `asked.test:${port}`,
        decision: "approved",
        decidedBy: "out-of-band",
      });
    } finally {
      await context.close();
      await new Promise((resolve) => origin.close(resolve));
    }
  });

  it("an ended session stays in the list with its exit code until a person dismisses it", async () => {
    const agent = await mcp("ended-client", async () => ({
      action: "accept",
      content: { decision: "approve" },
    }));
    const ended = await agent.call("exec_command", { cmd: "echo bye; exit 4", yield_time_ms: 5000 });
    expect(textOf(ended)).toContain("Process exited with code 4");
    const context = await launched.browser.newContext({ viewport: { width: 1400, height: 900 } });
    const page = await signedIn(context);
    const row = page.locator("tr[data-session]", { hasText: "echo bye; exit 4" });
    await row.waitFor();
    expect(await row.textContent()).toMatch(/exited 4, \d+ s ago/);
    expect(await row.textContent()).toContain("bye");
    await row.getByRole("button", { name: /^Dismiss session/ }).click();
    await row.waitFor({ state: "detached" });
    expect(await accessibilityProblems(page)).toEqual([]);
    await context.close();
  });

  it("a session whose program waits for input is flagged, listed first and counted on the tab", async () => {
    const agent = await mcp("waiting-client", async () => ({
      action: "accept",
      content: { decision: "approve" },
    }));
    const busy = await agent.call("exec_command", { cmd: "sleep 60", tty: true, yield_time_ms: 250 });
    expect(textOf(busy)).toContain("Process running");
    const asks = await agent.call("exec_command", {
      cmd: "printf 'Overwrite? [y/N] '; read answer; echo got-$answer",
      tty: true,
      yield_time_ms: 500,
    });
    const id = (asks.structuredContent as { session_id: number }).session_id;
    const context = await launched.browser.newContext({ viewport: { width: 1400, height: 900 } });
    const page = await signedIn(context);
    const row = page.locator("tr.waiting[data-session]", { hasText: "Overwrite?" });
    await row.waitFor();
    expect(await row.textContent()).toMatch(/waiting for input \(\w+\)/);
    // First in the list, and counted on the Sessions tab; the sleep is not waiting.
    expect(await page.locator("tr[data-session]").first().getAttribute("data-session")).toBe(String(id));
    expect(await page.locator("#waiting-count").textContent()).toBe("1");
    expect(await page.locator("tr.waiting[data-session]", { hasText: "sleep 60" }).count()).toBe(0);
    expect(await accessibilityProblems(page)).toEqual([]);
    // Answered, it no longer waits.
    await agent.call("write_stdin", { session_id: id, chars: "y\n", yield_time_ms: 2000 });
    await page.locator("#waiting-count").waitFor({ state: "hidden" });
    await context.close();
  });

  it("shows the audit log live, filtered by client, session and decision", async () => {
    const context = await launched.browser.newContext({ viewport: { width: 1400, height: 900 } });
    const page = await signedIn(context);
    await page.getByRole("button", { name: "Audit" }).click();
    const quiet = await mcp("audit-client");
    await quiet.call("shell_command", { command: "touch audited-file" });
    const rows = page.locator("#audit-rows tr");
    await eventually(
      async () => (await rows.allTextContents()).join("\n"),
      (text) => text.includes("touch audited-file"),
      "the new entry",
    );
    // A run whose output was cut links to its whole output.
    const long = await quiet.call("shell_command", { command: "seq 1 100000" });
    expect(long.structuredContent).toMatchObject({ truncated: true });
    const full = page.getByRole("button", { name: "full output" }).first();
    await full.waitFor();
    const [saved] = await Promise.all([page.waitForEvent("download"), full.click()]);
    const spilled = readFileSync(await saved.path(), "utf8");
    expect(spilled.trimEnd().split("\n").at(-1)).toBe("100000");
    // Each run says where it ran: in the sandbox here (outside it, it says so).
    const seqRow = rows.filter({ hasText: "seq 1 100000" }).filter({ hasText: "execution" }).first();
    expect(await seqRow.textContent()).toContain("sandbox (bwrap)");
    // A plain link to it, as the cookie once allowed, gives nothing.
    const spillPath = (long.structuredContent as { spill_path?: string }).spill_path ?? "";
    expect(spillPath).toMatch(/^\//);
    expect(
      await page.evaluate(
        async (path) => (await fetch(`/console/api/spill?path=${encodeURIComponent(path)}`)).status,
        spillPath,
      ),
    ).toBe(401);
    await page.getByLabel("Client", { exact: true }).selectOption("audit-client");
    const shown = await rows.allTextContents();
    expect(shown.length).toBeGreaterThan(0);
    expect(shown.every((text) => text.includes("audit-client"))).toBe(true);
    await page.getByLabel("Client", { exact: true }).selectOption("");
    await page.getByLabel("Decision", { exact: true }).selectOption("denied");
    expect((await rows.allTextContents()).every((text) => text.includes("denied"))).toBe(true);
    await page.getByLabel("Decision", { exact: true }).selectOption("");
    await page.getByRole("textbox", { name: "Session", exact: true }).fill("1");
    expect(await rows.count()).toBe(0);
    await page.getByRole("textbox", { name: "Session", exact: true }).fill("");
    await screenshot(page, "audit");
    expect(await accessibilityProblems(page)).toEqual([]);
    await context.close();
  });

  it("lists the recordings, plays one back and offers it for download", async () => {
    const agent = await mcp("recorder", async () => ({
      action: "accept",
      content: { decision: "approve_session" },
    }));
    const started = await agent.call("exec_command", {
      cmd: "printf 'played-back-%s\\n' 1 2 3; sleep 0.2",
      tty: true,
      yield_time_ms: 5000,
    });
    expect(started.structuredContent?.running).toBe(false);
    const context = await launched.browser.newContext({ viewport: { width: 1400, height: 900 } });
    const page = await signedIn(context);
    await page.getByRole("button", { name: "Recordings" }).click();
    const play = page.getByRole("button", { name: /^Play the recording of session/ }).first();
    await play.waitFor();
    await play.click();
    await eventually(
      () => page.locator("#player .xterm-rows").textContent(),
      (text) => (text ?? "").includes("played-back-3"),
      "the played-back output",
    );
    const [saved] = await Promise.all([
      page.waitForEvent("download"),
      page
        .getByRole("button", { name: /^Download the recording of session/ })
        .first()
        .click(),
    ]);
    expect(saved.suggestedFilename()).toMatch(/^\d+-\d{8}T\d{9}Z\.cast$/);
    const cast = readFileSync(await saved.path(), "utf8");
    expect(JSON.parse(cast.split("\n")[0] as string)).toMatchObject({ version: 2 });
    await screenshot(page, "recordings");
    expect(await accessibilityProblems(page)).toEqual([]);
    await context.close();
  });

  it("eight tabs each follow a terminal over one connection apiece, and still answer a click", async () => {
    const agent = await mcp("many-tabs", async () => ({
      action: "accept",
      content: { decision: "approve_session" },
    }));
    const started = await agent.call("exec_command", {
      cmd: "bash --norc --noprofile -i",
      tty: true,
      yield_time_ms: 1000,
    });
    const id = started.structuredContent?.session_id as number;
    const context = await launched.browser.newContext();
    const pages: Page[] = [];
    for (let i = 0; i < 8; i++) {
      const page = await signedIn(context);
      await page.getByRole("button", { name: `Open session ${id}` }).click();
      pages.push(page);
    }
    await agent.call("write_stdin", { session_id: id, chars: "echo seen-by-all\n", yield_time_ms: 1000 });
    for (const page of pages) {
      await eventually(
        () => terminalText(page),
        (text) => text.includes("seen-by-all\n"),
        "the output in every tab",
      );
    }
    // Six HTTP/1.1 connections to a host at most: with a stream per tab, this click would never be sent.
    const last = pages.at(-1) as Page;
    await agent.call("write_stdin", { session_id: id, chars: "sleep 300\n", yield_time_ms: 300 });
    await last.getByRole("button", { name: "Interrupt (Ctrl-C)" }).click();
    const after = await agent.call("write_stdin", {
      session_id: id,
      chars: "echo back\n",
      yield_time_ms: 3000,
    });
    expect(textOf(after)).toContain("back");
    await context.close();
  });

  it("sends a tab too slow to draw less, and the session loses nothing", async () => {
    const agent = await mcp("flood", async () => ({
      action: "accept",
      content: { decision: "approve_session" },
    }));
    // It floods once the tab watches it (the test makes `go`): 12 MiB of 1,024-byte lines.
    const started = await agent.call("exec_command", {
      cmd: "while [ ! -e go ]; do sleep 0.05; done; yes \"$(head -c 1023 /dev/zero | tr '\\0' a)\" | head -c 12M",
      tty: true,
      yield_time_ms: 250,
    });
    const id = started.structuredContent?.session_id as number;
    const context = await launched.browser.newContext();
    const page = await signedIn(context);
    await page.getByRole("button", { name: `Open session ${id}` }).click();
    await page.locator("#terminal-state", { hasText: "running" }).waitFor();
    // The tab stops reading: its script is paused, as a tab busy drawing is. However fast this machine
    // floods, the tab falls behind: past the rate budget when the flood is fast, past what the sockets
    // hold (a few MiB) when it is slow. A tab merely slowed (CPU throttling) keeps up on a loaded box.
    const cdp = await context.newCDPSession(page);
    await cdp.send("Debugger.enable");
    await cdp.send("Debugger.pause");
    writeFileSync(join(ws.cwd, "go"), "");
    let result = started;
    while (result.structuredContent?.running !== false) {
      result = await agent.call("write_stdin", { session_id: id, chars: "", yield_time_ms: 5000 });
    }
    expect(result.structuredContent?.exit_code).toBe(0);
    await cdp.send("Debugger.resume");
    // Every byte reached conchd, whatever the tab took: the recording holds all 12,288 lines (each
    // ending "\r\n" on a terminal).
    const { listRecordings } = await import("@conch/orchestrator");
    const recording = listRecordings(join(ws.env.XDG_STATE_HOME as string, "conch", "recordings")).find(
      (entry) => entry.sessionId === id,
    );
    const shown = readFileSync(recording?.path as string, "utf8")
      .trim()
      .split("\n")
      .slice(1)
      .map((line) => JSON.parse(line) as [number, string, string])
      .filter(([, kind]) => kind === "o")
      .map(([, , text]) => text)
      .join("");
    expect(shown.split(`${"a".repeat(1023)}\r\n`).length - 1).toBe((12 * 1024 * 1024) / 1024);
    // The tab says what it did not draw.
    await eventually(
      () => page.locator("#terminal-skipped").textContent(),
      (text) => /^\d+ bytes came too fast to draw and were skipped$/.test(text ?? ""),
      "the skip note",
      30_000,
    );
    await context.close();
  });

  it("opens a tab's WebSocket only with the session secret and this server's origin", async () => {
    const context = await launched.browser.newContext();
    const page = await signedIn(context);
    const secret = (await sessionSecret(page)) as string;
    const offer = `conch-console, conch-console-auth.${secret}`;
    const upgrade = (headers: Record<string, string>) => upgradeRequest(daemon.port, headers);
    expect(await upgrade({ origin, "sec-websocket-protocol": offer })).toEqual({
      status: 101,
      protocol: "conch-console",
    });
    expect((await upgrade({ origin })).status).toBe(401);
    expect((await upgrade({ origin, "sec-websocket-protocol": "conch-console" })).status).toBe(401);
    expect((await upgrade({ origin, "sec-websocket-protocol": `conch-console-auth.${secret}` })).status).toBe(
      401,
    );
    expect((await upgrade({ origin, authorization: `Bearer ${secret}` })).status).toBe(401);
    // The agent's MCP token opens no tab.
    expect(
      (
        await upgrade({
          origin,
          "sec-websocket-protocol": `conch-console, conch-console-auth.${daemon.token}`,
        })
      ).status,
    ).toBe(401);
    expect(
      (
        await upgrade({
          origin,
          "sec-websocket-protocol": `conch-console, conch-console-auth.${altered(secret)}`,
        })
      ).status,
    ).toBe(401);
    expect((await upgrade({ origin: "http://evil.example", "sec-websocket-protocol": offer })).status).toBe(
      403,
    );
    expect((await upgrade({ origin: "http://127.0.0.1:1", "sec-websocket-protocol": offer })).status).toBe(
      403,
    );
    expect((await upgrade({ "sec-websocket-protocol": offer })).status).toBe(403);
    expect(
      (await upgrade({ origin, "sec-websocket-protocol": offer, "sec-fetch-site": "same-site" })).status,
    ).toBe(403);
    // A logout ends the session and the tabs that follow with it: the page says it is signed out.
    const logout = await rawRequest(daemon.port, {
      method: "POST",
      path: "/console/api/logout",
      headers: { host: `127.0.0.1:${daemon.port}`, origin, authorization: `Bearer ${secret}` },
    });
    expect(logout.status).toBe(200);
    await page.getByRole("heading", { name: "Not signed in" }).waitFor();
    expect(await sessionSecret(page)).toBe(null);
    expect((await upgrade({ origin, "sec-websocket-protocol": offer })).status).toBe(401);
    await context.close();
  });

  it("refuses a foreign origin, a request without the session secret, and a page on another port", async () => {
    const agent = await mcp("victim", async () => ({
      action: "accept",
      content: { decision: "approve_session" },
    }));
    const started = await agent.call("exec_command", { cmd: "sleep 300", yield_time_ms: 250 });
    const id = started.structuredContent?.session_id as number;
    const context = await launched.browser.newContext();
    const page = await signedIn(context);
    const secret = (await sessionSecret(page)) as string;

    const kill = (headers: Record<string, string>) =>
      rawRequest(daemon.port, {
        method: "POST",
        path: `/console/api/sessions/${id}/kill`,
        headers: { host: `127.0.0.1:${daemon.port}`, "content-type": "application/json", ...headers },
        body: "{}",
      });
    const bearer = { authorization: `Bearer ${secret}` };
    expect((await kill({ ...bearer, origin: "http://evil.example" })).status).toBe(403);
    expect((await kill({ ...bearer, origin: "http://127.0.0.1:1" })).status).toBe(403);
    expect((await kill(bearer)).status).toBe(403);
    const none = await kill({ origin });
    expect(none.status).toBe(401);
    expect(JSON.parse(none.body)).toEqual({
      error: "Unauthorized: no console session; open the login link conchd printed (or run conch console)",
    });
    expect((await kill({ origin, authorization: `Bearer ${altered(secret)}` })).status).toBe(401);
    expect((await kill({ origin, authorization: "Bearer " })).status).toBe(401);
    expect((await kill({ origin, cookie: `conch_console=${secret}` })).status).toBe(401);
    // The MCP token is the agent's: it opens nothing of the console.
    expect((await kill({ origin, authorization: `Bearer ${daemon.token}` })).status).toBe(401);

    // The same site but another port: a browser sends such a page's requests with the cookies of
    // 127.0.0.1, and the console must say no however it asks.
    const evil: Server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.end(`<script>
        Promise.all([
          fetch(${JSON.stringify(`${origin}/console/api/sessions/${id}/kill`)}, { method: "POST", credentials: "include", mode: "no-cors", body: "{}" }).then(() => "sent", () => "failed"),
          fetch(${JSON.stringify(`${origin}/console/api/state`)}, { credentials: "include" }).then(r => r.text(), () => "unreadable"),
        ]).then((results) => { document.title = JSON.stringify(results); });
      </script>`);
    });
    await new Promise<void>((resolve) => evil.listen(0, "127.0.0.1", resolve));
    try {
      const attacker = await context.newPage();
      await attacker.goto(`http://127.0.0.1:${(evil.address() as AddressInfo).port}/`);
      await attacker.waitForFunction(() => document.title.startsWith("["));
      expect(JSON.parse(await attacker.title())[1]).toBe("unreadable");
    } finally {
      // Chromium keeps (or opens ahead) connections that never send a request: Node's close waits
      // for those until its 60 s headers timeout unless they are closed too.
      const closed = new Promise((resolve) => evil.close(resolve));
      evil.closeAllConnections();
      await closed;
    }
    const still = await agent.call("write_stdin", { session_id: id, chars: "", yield_time_ms: 250 });
    expect(still.structuredContent).toMatchObject({ running: true });
    expect(audit().some((line) => line.type === "session-closed" && line.sessionId === id)).toBe(false);
    // With the secret and the console's own origin, the kill goes through.
    expect((await kill({ ...bearer, origin })).status).toBe(200);
    await page.close();
    await context.close();
  });

  it("a server on another port that the signed-in browser visits gets nothing that reads or approves", async () => {
    const quiet = await mcp("port-victim");
    const asked = await quiet.call("shell_command", { command: "touch approved-from-elsewhere" });
    expect(asked.structuredContent).toMatchObject({ rejection: "approval-pending" });
    const { listPendingApprovals } = await import("@conch/orchestrator");
    const pendingId = async (): Promise<string | undefined> =>
      (await listPendingApprovals({ env: ws.env })).pending.find((entry) =>
        entry.argv.join(" ").includes("touch approved-from-elsewhere"),
      )?.id;
    const id = (await pendingId()) as string;
    expect(id).toMatch(/^[0-9a-z]+$/);

    const context = await launched.browser.newContext();
    const page = await signedIn(context);
    await page.getByRole("button", { name: /^Approvals/ }).click();
    const card = page.locator(`article[data-approval="${id}"]`);
    await card.waitFor();

    // The other server: it keeps every header the browser sends it, and its page tries the console
    // from inside the browser too (the API, the approve route, the WebSocket).
    const received: string[] = [];
    const paths: string[] = [];
    const evil: Server = createServer((req, res) => {
      received.push(JSON.stringify(req.headers));
      paths.push(req.url ?? "");
      if (req.url === "/console/") {
        res.writeHead(302, { location: "/console/api/state" });
        res.end();
        return;
      }
      res.writeHead(200, { "content-type": "text/html" });
      res.end(`<script>
        const ws = () => new Promise((resolve) => {
          const socket = new WebSocket(${JSON.stringify(`ws://127.0.0.1:${daemon.port}/console/api/ws`)});
          socket.onopen = () => resolve("open");
          socket.onerror = () => resolve("refused");
        });
        Promise.all([
          fetch(${JSON.stringify(`${origin}/console/api/approvals/${id}`)}, { method: "POST", credentials: "include", mode: "no-cors", headers: { "content-type": "text/plain" }, body: '{"decision":"approve"}' }).then(() => "sent", () => "failed"),
          fetch(${JSON.stringify(`${origin}/console/api/state`)}, { credentials: "include" }).then((r) => r.text(), () => "unreadable"),
          ws(),
          String(sessionStorage.length),
        ]).then((results) => { document.title = JSON.stringify(results); });
      </script>`);
    });
    await new Promise<void>((resolve) => evil.listen(0, "127.0.0.1", resolve));
    const evilPort = (evil.address() as AddressInfo).port;
    try {
      const attacker = await context.newPage();
      // Where the old cookie was scoped (Path=/console), then the page.
      await attacker.goto(`http://127.0.0.1:${evilPort}/console/`);
      await attacker.goto(`http://127.0.0.1:${evilPort}/`);
      await attacker.waitForFunction(() => document.title.startsWith("["));
      expect(JSON.parse(await attacker.title()).slice(1)).toEqual(["unreadable", "refused", "0"]);
    } finally {
      // Chromium keeps (or opens ahead) connections that never send a request: Node's close waits
      // for those until its 60 s headers timeout unless they are closed too.
      const closed = new Promise((resolve) => evil.close(resolve));
      evil.closeAllConnections();
      await closed;
    }

    // Then its owner replays, from outside the browser, everything the browser gave it: each header
    // value, as a cookie, as a bearer secret and as a WebSocket subprotocol, with the console's Origin.
    const given = [
      ...new Set(
        received.flatMap((headers) =>
          Object.values(JSON.parse(headers) as Record<string, string>).flatMap((value) => [
            value,
            ...value.split(/[;=,\s]+/),
          ]),
        ),
      ),
    ].filter((value) => /^[A-Za-z0-9_-]{16,}$/.test(value) || value.includes("="));
    const cookie = received
      .map((headers) => (JSON.parse(headers) as Record<string, string>).cookie)
      .filter((value) => value !== undefined)
      .join("; ");
    // The browser sent it no cookie to receive, wherever it asked.
    expect(paths).toContain("/console/api/state");
    expect(cookie).toBe("");
    const attempts: Record<string, string>[] = [
      { cookie },
      ...given.flatMap((value) => [
        { cookie: value },
        { authorization: `Bearer ${value}` },
        { "x-conch-csrf": value, cookie },
      ]),
    ];
    const statuses = new Set<number>();
    for (const headers of attempts) {
      const base = { host: `127.0.0.1:${daemon.port}`, origin, ...headers };
      statuses.add(
        (await rawRequest(daemon.port, { method: "GET", path: "/console/api/state", headers: base })).status,
      );
      statuses.add(
        (
          await rawRequest(daemon.port, {
            method: "POST",
            path: `/console/api/approvals/${id}`,
            headers: { ...base, "content-type": "application/json" },
            body: JSON.stringify({ decision: "approve" }),
          })
        ).status,
      );
      statuses.add(
        (await upgradeRequest(daemon.port, { ...base, "sec-websocket-protocol": "conch-console" })).status,
      );
    }
    for (const value of given) {
      const offer = `conch-console, conch-console-auth.${value}`;
      statuses.add(
        (await upgradeRequest(daemon.port, { origin, cookie, "sec-websocket-protocol": offer })).status,
      );
    }
    expect([...statuses]).toEqual([401]);
    // Nothing was approved: the question still waits, and nothing ran.
    expect(await pendingId()).toBe(id);
    expect(existsSync(join(ws.cwd, "approved-from-elsewhere"))).toBe(false);

    // The person, in the console itself, still answers it.
    await card.getByRole("button", { name: "Deny" }).click();
    await card.waitFor({ state: "detached" });
    expect(await pendingId()).toBe(undefined);
    await context.close();
  });
  it("conch console gives the browser no secret on its command line: another user who reads it cannot sign in", async () => {
    expect(existsSync(CONCH), `${CONCH} is built by pnpm --filter @conch/cli build`).toBe(true);
    const quiet = await mcp("cmdline-victim");
    const asked = await quiet.call("shell_command", { command: "touch approved-by-person" });
    expect(asked.structuredContent).toMatchObject({ rejection: "approval-pending" });

    // The browser: it says where it is and what it was given, and stays open until told.
    const dir = join(ws.env.HOME as string, "browser");
    mkdirSync(dir);
    const browser = join(dir, "browser");
    writeFileSync(
      browser,
      `#!/bin/sh\necho $$ > '${dir}/pid.tmp' && mv '${dir}/pid.tmp' '${dir}/pid'\n` +
        `i=0; while [ ! -e '${dir}/done' ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done\n`,
    );
    chmodSync(browser, 0o755);
    const cli = spawn(process.execPath, [CONCH, "console"], {
      env: { ...ws.env, BROWSER: browser },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    cli.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
    });
    cli.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    const exited = new Promise<number | null>((resolve) => cli.on("close", resolve));
    try {
      const pid = Number(
        await eventually(
          async () => (existsSync(join(dir, "pid")) ? readFileSync(join(dir, "pid"), "utf8").trim() : ""),
          (text) => text !== "",
          "the browser to start",
        ).catch((error: Error) => {
          throw new Error(`${error.message}; conch console said ${JSON.stringify(stdout + stderr)}`);
        }),
      );
      const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").slice(0, -1);
      expect(argv.slice(0, 1)).toEqual(["/bin/sh"]);
      expect(argv.slice(1, 2)).toEqual([browser]);
      expect(argv.slice(2)).toEqual([
        expect.stringMatching(/^file:\/\/\/.+\/conch\/console\/login-[A-Za-z0-9_-]{22}\.html$/),
      ]);
      expect(argv.join(" ")).not.toContain("login=");
      const page = fileURLToPath(argv[2] as string);
      expect(statSync(page).mode & 0o777).toBe(0o600);
      expect(statSync(dirname(page)).mode & 0o777).toBe(0o700);

      // Someone else on this machine reads the browser's command line (world-readable in /proc), opens
      // every file it names, and tries each secret-looking word it found, as the login link's secret, a
      // session's bearer secret and a WebSocket's. As root the reader is another uid (nobody); the path
      // to the page is opened up to it, so that only conch's own modes stand in the way. Without root,
      // the reader is this uid reading the command line alone.
      const root = process.getuid?.() === 0;
      const opened: string[] = [];
      if (root) {
        for (let path = dirname(dirname(page)); path !== "/"; path = dirname(path)) {
          const mode = statSync(path).mode & 0o777;
          if ((mode & 0o005) !== 0o005) {
            chmodSync(path, mode | 0o005);
            opened.push(`${path}:${mode}`);
          }
        }
      }
      const reader = spawnSync(
        root ? "setpriv" : process.execPath,
        [
          ...(root ? ["--reuid", "65534", "--regid", "65534", "--clear-groups", process.execPath] : []),
          "--input-type=module",
          "-e",
          READ_AND_SIGN_IN,
          String(daemon.port),
          root ? "read-files" : "cmdline-only",
          String(pid),
          String(cli.pid),
          String(daemon.pid),
        ],
        { cwd: "/", encoding: "utf8", timeout: 60_000 },
      );
      for (const entry of opened) {
        const at = entry.lastIndexOf(":");
        chmodSync(entry.slice(0, at), Number(entry.slice(at + 1)));
      }
      expect(reader.stderr).toBe("");
      const found = JSON.parse(reader.stdout) as {
        argv: string[];
        files: string[];
        environs: string[];
        statuses: number[];
      };
      expect(found.argv).toEqual(argv);
      expect(found.files).toEqual(root ? ["EACCES"] : []);
      // conch console may have stopped waiting for the browser by then (ENOENT: nothing left to read).
      expect(found.environs).toEqual(
        root ? ["EACCES", expect.stringMatching(/^(?:EACCES|ENOENT)$/), "EACCES"] : [],
      );
      expect(found.statuses.length).toBeGreaterThan(0);
      expect([...new Set(found.statuses)]).toEqual([401]);

      // The person's browser opens the page, which leads it to the console, signed in; they approve.
      const context = await launched.browser.newContext();
      const tab = await context.newPage();
      await tab.goto(argv[2] as string);
      await tab.getByRole("button", { name: "Sessions" }).waitFor();
      expect(tab.url()).toBe(`${origin}/`);
      await tab.getByRole("button", { name: /^Approvals/ }).click();
      const card = tab.locator("article.approval", { hasText: "touch approved-by-person" });
      await card.getByRole("button", { name: "Approve once" }).click();
      await card.waitFor({ state: "detached" });
      const retried = await quiet.call("shell_command", { command: "touch approved-by-person" });
      expect(textOf(retried)).toContain("Exit code: 0");
      expect(existsSync(join(ws.cwd, "approved-by-person"))).toBe(true);
      await context.close();
    } finally {
      writeFileSync(join(dir, "done"), "");
    }
    expect(await exited).toBe(0);
    expect(stdout).toBe(`conch console: opened conchd ${daemon.pid}'s console in a browser\n`);
  });
});
