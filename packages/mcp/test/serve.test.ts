// The package's two transports, in process, with the SDKs' own clients: stdio over a pair of streams,
// and Streamable HTTP on a real 127.0.0.1 server (both protocol eras). Real commands run: `echo` in a
// temporary workspace, under HOME and XDG dirs of the test's own, so no user config or state is read.
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createDaemon,
  createMcpHttp,
  type Daemon,
  MCP_PATH,
  type McpHttp,
  serveOnStdio,
} from "../src/index.js";

const TOKEN = "test-token-0123456789abcdef";
const CLIENT_INFO = { name: "mcp-package-test", version: "0.0.0" };

let root: string;
let daemon: Daemon;
const logged: string[] = [];

beforeAll(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "conch-mcp-")));
  const home = join(root, "home");
  mkdirSync(join(root, "work"));
  process.env.HOME = home;
  process.env.XDG_CONFIG_HOME = join(home, ".config");
  process.env.XDG_STATE_HOME = join(home, ".state");
  process.env.XDG_CACHE_HOME = join(home, ".cache");
  daemon = await createDaemon(
    { cwd: join(root, "work"), version: "9.9.9", approvalPolicy: "never", sandbox: "danger-full-access" },
    { log: (line) => logged.push(line) },
  );
});

afterAll(async () => {
  await daemon?.close();
  rmSync(root, { recursive: true, force: true });
});

const echoCall = { name: "shell_command", arguments: { command: "echo served" } };

function textOf(result: object): string {
  const content = ("content" in result ? result.content : []) as { type: string; text?: string }[];
  return content.map((block) => block.text ?? "").join("");
}

describe("serveOnStdio", () => {
  it("serves the tools on a pair of streams, answers a line that is not JSON, and ends with the input", async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const errors: Error[] = [];
    const serving = serveOnStdio(daemon, { input, output, onerror: (error) => errors.push(error) });
    const lines: Record<string, unknown>[] = [];
    let buffered = "";
    output.on("data", (chunk: Buffer) => {
      buffered += chunk.toString("utf8");
      for (let newline = buffered.indexOf("\n"); newline !== -1; newline = buffered.indexOf("\n")) {
        lines.push(JSON.parse(buffered.slice(0, newline)));
        buffered = buffered.slice(newline + 1);
      }
    });
    const answer = async (id: number): Promise<Record<string, unknown>> => {
      for (let waited = 0; waited < 30_000; waited += 10) {
        const found = lines.find((line) => line.id === id);
        if (found !== undefined) return found;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      throw new Error(`no answer to ${id}; got ${JSON.stringify(lines)}`);
    };
    const send = (message: object): void => {
      input.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
    };
    send({
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: CLIENT_INFO },
    });
    expect(await answer(1)).toMatchObject({ result: { serverInfo: { name: "conchd", version: "9.9.9" } } });
    send({ method: "notifications/initialized" });
    input.write('{"jsonrpc":"2.0","id":2,"method":\n');
    expect(await answer(2)).toMatchObject({ error: { code: -32700 } });
    send({ id: 3, method: "tools/call", params: echoCall });
    const called = (await answer(3)) as { result: { content: unknown } };
    expect(textOf(called.result)).toContain("served");
    input.end();
    await serving.ended;
    await serving.close();
    expect(errors).toEqual([]);
  });
});

describe("createMcpHttp", () => {
  let server: Server;
  let mcp: McpHttp;
  let url: URL;

  beforeAll(async () => {
    server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    mcp = createMcpHttp(daemon, {
      address: { host: "127.0.0.1", loopback: true },
      port,
      token: TOKEN,
      onerror: (error) => logged.push(error.message),
    });
    server.on("request", (req, res) => {
      const rejection = mcp.guard.checkAddress(req);
      if (rejection !== null) {
        res.writeHead(rejection.status).end(rejection.message);
      } else if (!mcp.handle(req, res)) {
        res.writeHead(404).end("not mcp");
      }
    });
    url = new URL(`http://127.0.0.1:${port}${MCP_PATH}`);
  });

  afterAll(async () => {
    await mcp?.close();
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  });

  const headers = { authorization: `Bearer ${TOKEN}` };

  it("serves a 2026 client: lists the tools and runs a command", async () => {
    const client = new Client(CLIENT_INFO);
    await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain("shell_command");
    expect(textOf(await client.callTool(echoCall))).toContain("served");
    await client.close();
  });

  it("serves a 2025-era client in an MCP session of its own", async () => {
    const client = new V1Client(CLIENT_INFO);
    const transport = new V1StreamableHTTPClientTransport(url, { requestInit: { headers } });
    await client.connect(transport);
    expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(textOf(await client.callTool(echoCall))).toContain("served");
    await transport.terminateSession();
    await client.close();
  });

  it("answers 401 without the token and leaves other paths to the caller", async () => {
    const noToken = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(noToken.status).toBe(401);
    expect(noToken.headers.get("www-authenticate")).toBe("Bearer");
    expect(await noToken.json()).toMatchObject({ error: { message: expect.stringContaining("Bearer") } });
    const other = await fetch(new URL("/elsewhere", url), { headers });
    expect(other.status).toBe(404);
    expect(await other.text()).toBe("not mcp");
  });
});
