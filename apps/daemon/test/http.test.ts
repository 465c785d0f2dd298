// conchd --http: Streamable HTTP at /mcp on 127.0.0.1, with its bearer token and Host/Origin checks,
// through real conchd processes, plain fetch and the SDKs' own HTTP clients. No sandbox
// (--sandbox danger-full-access), so none of this needs bwrap; processes are checked by pid, in /proc.
import { randomBytes } from "node:crypto";
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import { itWith } from "@conch/test-config";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CLIENTS, descendants, isAlive, makeWorkspace, textOf, type Workspace } from "./harness.js";
import {
  connectHttp,
  type HttpConnection,
  type HttpDaemon,
  INITIALIZE,
  postHeaders,
  quietStderr,
  rawRequest,
  runConchd,
  startHttp,
} from "./http-harness.js";

const HTTP = ["--http", "127.0.0.1:0", "--sandbox", "danger-full-access"];
const WAIT_MS = 20_000;
// Below conchd's call limit (50 s), so a shell_command stays a one-shot instead of becoming a session.
const ONE_SHOT_TIMEOUT_MS = 45_000;

let workspace: Workspace;
let daemons: HttpDaemon[];
let connections: HttpConnection[];

beforeEach(() => {
  workspace = makeWorkspace();
  daemons = [];
  connections = [];
});
afterEach(async () => {
  await Promise.allSettled(connections.map((connection) => connection.close()));
  // Each conchd is stopped as a user would, so it kills its sessions; only one that does not exit in
  // time (a failed test) is killed, by its pid.
  await Promise.all(
    daemons.map(async (daemon) => {
      if (daemon.child.exitCode !== null || daemon.child.signalCode !== null) return;
      daemon.child.kill("SIGTERM");
      const timer = setTimeout(() => daemon.child.kill("SIGKILL"), WAIT_MS);
      await daemon.exited;
      clearTimeout(timer);
    }),
  );
  workspace.remove();
});

async function start(args: readonly string[] = HTTP, env: Record<string, string> = {}): Promise<HttpDaemon> {
  const daemon = await startHttp(workspace, args, env);
  daemons.push(daemon);
  return daemon;
}

async function open(kind: (typeof CLIENTS)[number], daemon: HttpDaemon): Promise<HttpConnection> {
  const connection = await connectHttp(kind, daemon);
  connections.push(connection);
  return connection;
}

/** Polls `condition` until it holds or `WAIT_MS` pass; the caller asserts on what it then sees. */
async function waitFor(condition: () => boolean): Promise<void> {
  const until = Date.now() + WAIT_MS;
  while (!condition() && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
}

function tokenPath(): string {
  return join(workspace.env.XDG_STATE_HOME as string, "conch", "conchd.token");
}

/**
 * The processes below `pid` whose argv is exactly `argv`; not a child that has the argv only because it
 * was just forked from one and has not exec'd yet (a shell's loop forks for every `sleep`).
 */
function processesRunning(pid: number, argv: readonly string[]): number[] {
  const matching = descendants(pid).filter((child) => {
    try {
      return readFileSync(`/proc/${child}/cmdline`, "utf8") === `${argv.join("\0")}\0`;
    } catch {
      return false;
    }
  });
  return matching.filter((child) => {
    try {
      const stat = readFileSync(`/proc/${child}/stat`, "utf8");
      const [, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      return !matching.includes(Number(ppid));
    } catch {
      return false;
    }
  });
}

describe("conchd --http: startup and its token", () => {
  it("writes a token file on first start (0600, in a 0700 dir), names it, and reuses it", async () => {
    const first = await start();
    const path = tokenPath();
    expect(first.line).toBe(`conchd: listening on http://127.0.0.1:${first.port}/mcp (token: ${path})`);
    expect(first.stderr()).toMatch(quietStderr(first));
    expect(first.port).toBeGreaterThan(0);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(path, "..")).mode & 0o777).toBe(0o700);
    expect(readFileSync(path, "utf8")).toMatch(/^[A-Za-z0-9_-]{43}\n$/);
    expect(first.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    first.child.kill("SIGTERM");
    expect(await first.exited).toBe(0);

    const second = await start();
    expect(second.token).toBe(first.token);
    expect(second.line).toBe(`conchd: listening on http://127.0.0.1:${second.port}/mcp (token: ${path})`);
  });

  it("takes CONCH_TOKEN instead, writes no file, and says so", async () => {
    const token = randomBytes(24).toString("base64url");
    const daemon = await start(HTTP, { CONCH_TOKEN: token });
    expect(daemon.line).toBe(
      `conchd: listening on http://127.0.0.1:${daemon.port}/mcp (token: $CONCH_TOKEN)`,
    );
    expect(existsSync(tokenPath())).toBe(false);
    const connection = await open("v2 (2025-11-25)", daemon);
    expect((await connection.listTools()).map((tool) => tool.name)).toEqual([
      "shell_command",
      "exec_command",
      "write_stdin",
      "shell",
      "list_sessions",
    ]);
  });

  it("refuses a CONCH_TOKEN that is not a usable secret, with exit 2, without showing it", () => {
    expect(runConchd(workspace, HTTP, { CONCH_TOKEN: "hunter2" })).toEqual({
      status: 2,
      stdout: "",
      stderr:
        "conchd: CONCH_TOKEN: expected a bearer token (at least 16 of A-Z a-z 0-9 - . _ ~ + / characters), " +
        "received 7 characters\nRun 'conchd --help' for usage.\n",
    });
    expect(runConchd(workspace, HTTP, { CONCH_TOKEN: "a token with spaces in it" }).stderr).toBe(
      "conchd: CONCH_TOKEN: expected a bearer token (at least 16 of A-Z a-z 0-9 - . _ ~ + / characters), " +
        "received a value with other characters\nRun 'conchd --help' for usage.\n",
    );
  });

  it("fails closed on a token file others can read, a symlink, a directory or one without a token", () => {
    const path = tokenPath();
    mkdirSync(join(path, ".."), { recursive: true, mode: 0o700 });
    const token = `${"t".repeat(43)}\n`;
    const removeIt = "remove it (conchd then writes a new token)";
    const refused = (why: string, fix = removeIt) => ({
      status: 1,
      stdout: "",
      stderr: `conchd: refusing the token file ${path}: ${why}; ${fix}, or set CONCH_TOKEN instead\n`,
    });
    const chmodFix = `run 'chmod 600 ${path}', or remove it if others may have read it (conchd then writes a new token)`;

    writeFileSync(path, token);
    for (const mode of [0o644, 0o640, 0o604, 0o620]) {
      chmodSync(path, mode);
      expect(runConchd(workspace, HTTP)).toEqual(
        refused(`its mode is 0${mode.toString(8)}, so group or others can read or change it`, chmodFix),
      );
    }
    chmodSync(path, 0o600);
    writeFileSync(path, "\n");
    expect(runConchd(workspace, HTTP)).toEqual(
      refused("it holds no token (at least 16 of A-Z a-z 0-9 - . _ ~ + / characters)"),
    );

    rmSync(path);
    const target = join(workspace.cwd, "planted.token");
    writeFileSync(target, token, { mode: 0o600 });
    symlinkSync(target, path);
    expect(runConchd(workspace, HTTP)).toEqual(refused("it is a symbolic link"));

    rmSync(path);
    mkdirSync(path, { mode: 0o700 });
    expect(runConchd(workspace, HTTP)).toEqual(refused("it is not a regular file"));
    // Nothing was rewritten: a refused file is left for the person to look at.
    expect(readFileSync(target, "utf8")).toBe(token);
  });

  it.runIf(process.getuid?.() === 0)("fails closed on a token file of another user's", () => {
    const path = tokenPath();
    mkdirSync(join(path, ".."), { recursive: true, mode: 0o700 });
    writeFileSync(path, `${"t".repeat(43)}\n`, { mode: 0o600 });
    chownSync(path, 65534, 65534);
    expect(runConchd(workspace, HTTP)).toEqual({
      status: 1,
      stdout: "",
      stderr:
        `conchd: refusing the token file ${path}: it belongs to uid 65534, not to you (uid 0); remove it ` +
        "(conchd then writes a new token), or set CONCH_TOKEN instead\n",
    });
  });

  it("refuses a port in use with exit 1, saying so, and the first conchd keeps serving", async () => {
    const first = await start();
    const second = runConchd(workspace, [
      "--http",
      `127.0.0.1:${first.port}`,
      "--sandbox",
      "danger-full-access",
    ]);
    expect(second).toEqual({
      status: 1,
      stdout: "",
      stderr:
        `conchd: port ${first.port} on 127.0.0.1 is in use (by another conchd, or another program); stop ` +
        "it, or choose another port (--http 127.0.0.1:0 picks a free one)\n",
    });
    const connection = await open("v2 (2025-11-25)", first);
    expect(textOf(await connection.callTool("shell_command", { command: "echo first" }))).toContain("first");
  });

  it("refuses a non-loopback host without --allow-remote, and a bad --http, with exit 2", () => {
    expect(runConchd(workspace, ["--http", "0.0.0.0:0"])).toEqual({
      status: 2,
      stdout: "",
      stderr:
        'conchd: --http: "0.0.0.0" is not a loopback address: other machines could connect; pass ' +
        "--allow-remote to listen there anyway (clients still need the token)\nRun 'conchd --help' for usage.\n",
    });
    expect(runConchd(workspace, ["--http", "x"])).toEqual({
      status: 2,
      stdout: "",
      stderr: "conchd: --http: expected [HOST:]PORT, received \"x\"\nRun 'conchd --help' for usage.\n",
    });
  });
});

describe("conchd --http: who may connect", () => {
  let daemon: HttpDaemon;
  let origin: string;
  beforeEach(async () => {
    daemon = await start();
    origin = `http://127.0.0.1:${daemon.port}`;
  });

  const post = (headers: Record<string, string>, body: string = INITIALIZE, path = "/mcp") =>
    fetch(`${origin}${path}`, { method: "POST", headers, body });
  const errorBody = (message: string) => ({ jsonrpc: "2.0", error: { code: -32000, message }, id: null });

  it("answers 401 with WWW-Authenticate: Bearer without the token, and 401 for a wrong one", async () => {
    const missing = await post(postHeaders());
    expect(missing.status).toBe(401);
    expect(missing.headers.get("www-authenticate")).toBe("Bearer");
    expect(await missing.json()).toEqual(
      errorBody('Unauthorized: send the token as "Authorization: Bearer TOKEN"'),
    );
    const basic = await post({ ...postHeaders(), authorization: `Basic ${daemon.token}` });
    expect(basic.status).toBe(401);
    expect(basic.headers.get("www-authenticate")).toBe("Bearer");

    for (const wrong of [`${daemon.token}x`, daemon.token.slice(1), "x".repeat(43)]) {
      const response = await post(postHeaders(wrong));
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toBe('Bearer error="invalid_token"');
      expect(await response.json()).toEqual(errorBody("Unauthorized: wrong bearer token"));
    }

    const right = await post(postHeaders(daemon.token));
    expect(right.status).toBe(200);
    expect(right.headers.get("mcp-session-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(await right.text()).toContain('"serverInfo":{"name":"conchd"');
    const lowercase = await post({ ...postHeaders(), authorization: `bearer ${daemon.token}` });
    expect(lowercase.status).toBe(200);
  });

  it("answers 403 to a browser Origin that is not its own, before looking at the token", async () => {
    for (const foreign of [
      "http://evil.example",
      `http://evil.example:${daemon.port}`,
      `http://127.0.0.1:${daemon.port + 1}`,
      `https://127.0.0.1:${daemon.port}`,
      "null",
    ]) {
      for (const token of [daemon.token, undefined]) {
        const response = await post({ ...postHeaders(token), origin: foreign });
        expect(response.status).toBe(403);
        expect(await response.json()).toEqual(
          errorBody(`Forbidden: Origin ${JSON.stringify(foreign)} is not this server's origin`),
        );
      }
    }
    for (const own of [origin, `http://localhost:${daemon.port}`, `http://[::1]:${daemon.port}`]) {
      const response = await post({ ...postHeaders(daemon.token), origin: own });
      expect(response.status).toBe(200);
    }
  });

  it("answers 403 to a Host that is not its address (DNS rebinding), before the token", async () => {
    const request = (host: string, token?: string) =>
      rawRequest(daemon.port, {
        method: "POST",
        path: "/mcp",
        headers: { ...postHeaders(token), host },
        body: INITIALIZE,
      });
    for (const foreign of [
      `evil.example:${daemon.port}`,
      `127.0.0.1:${daemon.port + 1}`,
      "127.0.0.1",
      `10.0.0.1:${daemon.port}`,
      `127.0.0.1:${daemon.port}@evil.example`,
    ]) {
      for (const token of [daemon.token, undefined]) {
        const response = await request(foreign, token);
        expect(response.status).toBe(403);
        expect(JSON.parse(response.body)).toEqual(
          errorBody(`Forbidden: Host ${JSON.stringify(foreign)} is not this server's address`),
        );
      }
    }
    for (const own of [
      `127.0.0.1:${daemon.port}`,
      `localhost:${daemon.port}`,
      `LOCALHOST:${daemon.port}`,
      `[::1]:${daemon.port}`,
    ]) {
      expect((await request(own, daemon.token)).status).toBe(200);
    }
  });

  itWith(
    ["bwrap", "python3"],
    "a sandboxed command, network on, cannot read the token to call conchd itself",
    async () => {
      mkdirSync(join(workspace.env.XDG_CONFIG_HOME as string, "conch"), { recursive: true });
      writeFileSync(
        join(workspace.env.XDG_CONFIG_HOME as string, "conch", "config.toml"),
        "network_access = true\n",
      );
      const daemon = await start(["--http", "127.0.0.1:0"]);
      const connection = await open("v2 (2025-11-25)", daemon);
      const script = [
        "import urllib.request",
        "try:",
        `    print('token:', open(${JSON.stringify(tokenPath())}).read())`,
        "except Exception as error:",
        "    print('read refused:', type(error).__name__)",
        `request = urllib.request.Request(${JSON.stringify(daemon.url.href)}, data=b'{}', method='POST')`,
        "try:",
        "    urllib.request.urlopen(request, timeout=5)",
        "except Exception as error:",
        "    print('call refused:', getattr(error, 'code', type(error).__name__))",
      ].join("\n");
      writeFileSync(join(workspace.cwd, "steal.py"), script);
      const result = await connection.callTool("shell_command", { command: "python3 steal.py" });
      const text = textOf(result);
      expect(text).not.toContain(daemon.token);
      expect(text).toContain("read refused:");
      expect(text).not.toContain("token:");
      expect(text).toMatch(/call refused: (401|403|URLError)/);
    },
  );

  it("answers 404 off /mcp and 413 to a body over 4 MiB", async () => {
    for (const path of ["/", "/mcp/", "/other", "/mcp/x", "/MCP"]) {
      const response = await post(postHeaders(daemon.token), INITIALIZE, path);
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual(
        errorBody("Not Found: conchd serves MCP at /mcp and its console at /"),
      );
    }
    const huge = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "ping",
      params: { pad: "x".repeat(5 << 20) },
    });
    const response = await post(postHeaders(daemon.token), huge);
    expect(response.status).toBe(413);
  });

  it("keeps a 2025-era MCP session until DELETE, and refuses requests without one", async () => {
    const initialized = await post(postHeaders(daemon.token));
    const session = initialized.headers.get("mcp-session-id") as string;
    await initialized.text();
    const list = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    const withSession = { ...postHeaders(daemon.token), "mcp-session-id": session };

    const listed = await post(withSession, list);
    expect(listed.status).toBe(200);
    expect(await listed.text()).toContain('"name":"shell_command"');

    const without = await post(postHeaders(daemon.token), list);
    expect(without.status).toBe(400);
    expect(await without.json()).toEqual(
      errorBody("Bad Request: no Mcp-Session-Id header; send initialize first"),
    );

    const deleted = await fetch(`${origin}/mcp`, { method: "DELETE", headers: withSession });
    expect(deleted.status).toBe(200);
    const gone = await post(withSession, list);
    expect(gone.status).toBe(404);
    expect(await gone.json()).toEqual({
      jsonrpc: "2.0",
      error: { code: -32001, message: "Session not found" },
      id: null,
    });
  });
});

describe.each(CLIENTS)("conchd --http with the %s client", (kind) => {
  it("lists the tools and runs shell_command", async () => {
    const daemon = await start();
    const connection = await open(kind, daemon);
    expect((await connection.listTools()).map((tool) => tool.name)).toEqual([
      "shell_command",
      "exec_command",
      "write_stdin",
      "shell",
      "list_sessions",
    ]);
    const result = await connection.callTool("shell_command", { command: "echo hi" });
    expect(textOf(result)).toMatch(/^Exit code: 0\nWall time: \d+\.\d seconds\nOutput:\nhi\n?$/);
    expect(result.structuredContent).toMatchObject({ tool: "shell_command", status: "ok", exit_code: 0 });
    // 2025-era clients hold an MCP session; 2026-07-28 has none.
    expect(connection.sessionId() === undefined).toBe(kind === "v2 (2026-07-28)");
  });

  itWith(["pty", "bash"], "finds its exec_command session again after reconnecting", async () => {
    const daemon = await start();
    const first = await open(kind, daemon);
    const started = await first.callTool("exec_command", { cmd: "bash -i", tty: true, yield_time_ms: 1000 });
    expect(started.structuredContent).toMatchObject({ status: "ok", running: true });
    const id = started.structuredContent?.session_id;
    const set = await first.callTool("write_stdin", {
      session_id: id,
      chars: "cd / && CONCH_TEST=kept\n",
      yield_time_ms: 1000,
    });
    expect(set.structuredContent).toMatchObject({ running: true, session_id: id });
    const before = first.sessionId();
    await first.close();

    const second = await open(kind, daemon);
    if (before !== undefined) expect(second.sessionId()).not.toBe(before);
    const read = await second.callTool("write_stdin", {
      session_id: id,
      chars: 'echo "[$CONCH_TEST:$(pwd)]"\n',
      yield_time_ms: 1000,
    });
    expect(textOf(read)).toContain("[kept:/]");
  });

  itWith("sh", "kills a one-shot command whose call the client cancels, and keeps serving", async () => {
    const daemon = await start();
    const connection = await open(kind, daemon);
    const controller = new AbortController();
    const call = connection.callTool(
      "shell_command",
      { command: "sleep 32; touch cancelled-ran", timeout_ms: ONE_SHOT_TIMEOUT_MS },
      { signal: controller.signal },
    );
    call.catch(() => {});
    await waitFor(() => processesRunning(daemon.pid, ["sleep", "32"]).length === 1);
    const tree = oneShotTree(daemon.pid, "sleep 32; touch cancelled-ran", ["sleep", "32"]);
    controller.abort();
    await expect(call).rejects.toThrow();
    await waitFor(() => !tree.some(isAlive));
    expect(tree.filter(isAlive)).toEqual([]);
    expect(existsSync(join(workspace.cwd, "cancelled-ran"))).toBe(false);
    const next = await connection.callTool("shell_command", { command: "echo still" });
    expect(next.structuredContent).toMatchObject({ status: "ok", exit_code: 0 });
    expect(daemon.stderr()).toMatch(quietStderr(daemon));
  });

  itWith(
    "sh",
    "kills a one-shot command whose HTTP request is dropped, and leaves a live session running",
    async () => {
      const daemon = await start();
      const connection = await open(kind, daemon);
      const oneShot = connection.callTool("shell_command", {
        command: "sleep 31; touch one-shot-ran",
        timeout_ms: ONE_SHOT_TIMEOUT_MS,
      });
      const loop = "while [ ! -e go ]; do sleep 0.1; done; touch session-ran";
      const session = connection.callTool("exec_command", { cmd: loop, yield_time_ms: 30_000 });
      for (const call of [oneShot, session]) call.catch(() => {});
      await waitFor(
        () =>
          processesRunning(daemon.pid, ["sleep", "31"]).length === 1 &&
          processesRunning(daemon.pid, ["/bin/bash", "--norc", "-c", loop]).length === 1,
      );
      const tree = oneShotTree(daemon.pid, "sleep 31; touch one-shot-ran", ["sleep", "31"]);
      const sessionShell = processesRunning(daemon.pid, ["/bin/bash", "--norc", "-c", loop]);
      expect(sessionShell).toHaveLength(1);

      connection.dropCalls();
      await waitFor(() => !tree.some(isAlive));
      expect(tree.filter(isAlive)).toEqual([]);
      expect(sessionShell.filter(isAlive)).toEqual(sessionShell);
      writeFileSync(join(workspace.cwd, "go"), "");
      await waitFor(() => existsSync(join(workspace.cwd, "session-ran")));
      expect(existsSync(join(workspace.cwd, "session-ran"))).toBe(true);
      expect(existsSync(join(workspace.cwd, "one-shot-ran"))).toBe(false);
      const next = await connection.callTool("shell_command", { command: "echo still" });
      expect(next.structuredContent).toMatchObject({ status: "ok", exit_code: 0 });
      expect(daemon.stderr()).toMatch(quietStderr(daemon));
    },
  );
});

describe("conchd --http: one client", () => {
  itWith(
    ["pty", "bash"],
    "shares one session store among every client with the token, of any era",
    async () => {
      const daemon = await start();
      const [legacy, modern, v1] = await Promise.all(CLIENTS.map((kind) => open(kind, daemon)));
      const started = await (legacy as HttpConnection).callTool("exec_command", {
        cmd: "bash -i",
        tty: true,
        yield_time_ms: 1000,
      });
      const id = started.structuredContent?.session_id;
      await (modern as HttpConnection).callTool("write_stdin", {
        session_id: id,
        chars: "SHARED=by-2026\n",
        yield_time_ms: 1000,
      });
      const read = await (v1 as HttpConnection).callTool("write_stdin", {
        session_id: id,
        chars: 'echo "[$SHARED]"\n',
        yield_time_ms: 1000,
      });
      expect(textOf(read)).toContain("[by-2026]");
    },
  );
});

/** The shell running `script` and its `child`, as a one-shot shell_command runs them. */
function oneShotTree(pid: number, script: string, child: readonly string[]): number[] {
  const tree = [
    ...processesRunning(pid, ["/bin/bash", "--norc", "-c", script]),
    ...processesRunning(pid, child),
  ];
  expect(tree).toHaveLength(2);
  return tree;
}

describe("conchd --http shutdown", () => {
  it("exits on SIGTERM while console sockets are held open: one refused, one its tab half-closed", async () => {
    const daemon = await start();
    const { port } = daemon;
    const origin = `http://127.0.0.1:${port}`;
    /** A raw WebSocket handshake on a socket this test keeps; the status it was answered. */
    const held = async (extra: string): Promise<{ socket: Socket; status: string }> => {
      const socket = connect(port, "127.0.0.1");
      let answer = "";
      socket.on("data", (chunk: Buffer) => {
        answer += chunk.toString("latin1");
      });
      socket.write(
        `GET /console/api/ws HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nOrigin: ${origin}\r\n` +
          "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n" +
          `Sec-WebSocket-Version: 13\r\n${extra}\r\n`,
      );
      await waitFor(() => answer.includes("\r\n\r\n"));
      return { socket, status: answer.split(" ")[1] ?? "" };
    };
    // Anyone may be refused, then never hang up.
    const refused = await held("");
    expect(refused.status).toBe("401");
    const link = /#login=([A-Za-z0-9_-]+)$/m.exec(daemon.stderr())?.[1] ?? "";
    const login = await rawRequest(port, {
      method: "POST",
      path: "/console/api/login",
      headers: { host: `127.0.0.1:${port}`, origin, "content-type": "application/json" },
      body: JSON.stringify({ secret: link }),
    });
    expect(login.status).toBe(200);
    const { secret } = JSON.parse(login.body) as { secret: string };
    const tab = await held(`Sec-WebSocket-Protocol: conch-console, conch-console-auth.${secret}\r\n`);
    expect(tab.status).toBe("101");
    tab.socket.end();
    daemon.child.kill("SIGTERM");
    const ended = await Promise.race([
      daemon.exited,
      new Promise((resolve) => setTimeout(() => resolve(`still running ${WAIT_MS} ms later`), WAIT_MS)),
    ]);
    refused.socket.destroy();
    tab.socket.destroy();
    expect(ended).toBe(0);
  });

  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    itWith(
      ["pty", "bash"],
      `exits 0 on ${signal} with clients connected, and no process is left`,
      async () => {
        const daemon = await start();
        const legacy = await open("v2 (2025-11-25)", daemon);
        const modern = await open("v2 (2026-07-28)", daemon);
        const shell = await legacy.callTool("exec_command", {
          cmd: "bash -i",
          tty: true,
          yield_time_ms: 1000,
        });
        expect(shell.structuredContent).toMatchObject({ running: true });
        const echoed = await legacy.callTool("write_stdin", {
          session_id: shell.structuredContent?.session_id,
          chars: "echo pid=$$\n",
          yield_time_ms: 1000,
        });
        const shellPid = Number(/pid=(\d+)/.exec(textOf(echoed))?.[1]);
        const sleeper = await modern.callTool("exec_command", { cmd: "sleep 1000", yield_time_ms: 500 });
        expect(sleeper.structuredContent).toMatchObject({ running: true });
        const inFlight = modern.callTool("shell_command", {
          command: "sleep 33",
          timeout_ms: ONE_SHOT_TIMEOUT_MS,
        });
        inFlight.catch(() => {});
        await waitFor(() => processesRunning(daemon.pid, ["sleep", "33"]).length === 1);
        const tree = descendants(daemon.pid);
        expect(tree).toContain(shellPid);
        expect(tree).toEqual(expect.arrayContaining(processesRunning(daemon.pid, ["sleep", "33"])));
        expect(tree.length).toBeGreaterThanOrEqual(3);

        daemon.child.kill(signal);
        expect(await daemon.exited).toBe(0);
        expect(tree.filter(isAlive)).toEqual([]);
        expect(daemon.stderr()).toMatch(quietStderr(daemon));
        const audit = readFileSync(
          join(workspace.env.XDG_STATE_HOME as string, "conch", "audit.jsonl"),
          "utf8",
        );
        expect(audit).toContain("echo pid=$$");
      },
    );
  }
});
