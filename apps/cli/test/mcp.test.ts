// `conch mcp`: the conchd server on stdio from the conch binary, spoken to in raw JSON-RPC lines.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { describeWith } from "@conch/test-config";
import { afterEach, beforeEach, expect, it } from "vitest";

const BIN = fileURLToPath(new URL("../dist/bin.js", import.meta.url));

let base: string;
let root: string;
beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "conch-mcp-")));
  // The workspace beside the home: a home that is the workspace is refused.
  root = join(base, "work");
  mkdirSync(root);
  mkdirSync(join(base, "home"));
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

type Message = { id?: number; result?: Record<string, unknown>; error?: { message: string } };

/** Sends `requests` (after initialize) and collects the answers by id; resolves with the exit code too. */
function session(args: string[], requests: { method: string; params: unknown }[]) {
  const child = spawn(process.execPath, [BIN, "mcp", "--cwd", root, ...args], {
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: join(base, "home"),
      XDG_STATE_HOME: join(base, "state"),
    },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const answers = new Map<number, Message>();
  const all = requests.length + 1;
  const done = new Promise<{ answers: Map<number, Message>; code: number | null; stderr: string }>(
    (resolve) => {
      createInterface({ input: child.stdout }).on("line", (line) => {
        const message = JSON.parse(line) as Message;
        if (message.id !== undefined) answers.set(message.id, message);
        if (answers.size === all) child.stdin.end();
      });
      child.on("close", (code) => resolve({ answers, code, stderr }));
    },
  );
  const send = (message: object) => child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
  send({
    id: 0,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "0" } },
  });
  send({ method: "notifications/initialized" });
  for (const [i, request] of requests.entries()) send({ id: i + 1, ...request });
  return done;
}

describeWith("bwrap", "conch mcp", () => {
  it("serves the profile's tools on stdio, sandboxed, and exits 0 when stdin closes", async () => {
    const { answers, code, stderr } = await session(
      ["--profile", "codex"],
      [
        { method: "tools/list", params: {} },
        {
          method: "tools/call",
          params: { name: "shell_command", arguments: { command: "echo hi > made; cat made" } },
        },
      ],
    );
    expect(code).toBe(0);
    expect(stderr).toContain("conchd: ready on stdio");
    const listed = (answers.get(1)?.result?.tools ?? []) as { name: string }[];
    const tools = listed.map((tool) => tool.name);
    expect(tools).toEqual(["shell_command", "exec_command", "write_stdin", "shell", "list_sessions"]);
    const call = answers.get(2)?.result as {
      content: { text: string }[];
      structuredContent: Record<string, unknown>;
    };
    expect(call.content[0]?.text).toContain("hi");
    expect(call.structuredContent).toMatchObject({ status: "ok", exit_code: 0, sandbox: "bwrap" });
    expect(existsSync(join(root, "made"))).toBe(true);
  });

  it.each([
    ["codex", "workspace-write"],
    ["codex", "read-only"],
    ["bash", "danger-full-access"],
    ["terminal", "workspace-write"],
    ["argv", "read-only"],
  ])(
    "conch tool list --profile %s --sandbox %s shows exactly what its MCP client gets",
    async (profile, mode) => {
      const flags = ["--profile", profile, "--sandbox", mode, "--approval", "on-request"];
      const { answers } = await session(flags, [{ method: "tools/list", params: {} }]);
      const served = (answers.get(1)?.result?.tools ?? []) as {
        name: string;
        description: string;
        inputSchema: unknown;
      }[];
      expect(served.length).toBeGreaterThan(0);
      const listed = spawnSync(process.execPath, [BIN, "tool", "list", "--cwd", root, ...flags, "--json"], {
        encoding: "utf8",
        env: {
          PATH: process.env.PATH ?? "/usr/bin:/bin",
          HOME: join(base, "home"),
          XDG_STATE_HOME: join(base, "state"),
        },
      });
      expect(listed.status).toBe(0);
      const parsed = JSON.parse(listed.stdout) as { profile: string; tools: unknown[] };
      expect(parsed).toEqual({
        profile,
        tools: served.map((tool) => ({
          name: tool.name,
          description: tool.description,
          input_schema: tool.inputSchema,
        })),
      });
    },
  );

  it("refuses bad options with exit 2, naming them", async () => {
    const child = spawn(process.execPath, [BIN, "mcp", "--profile", "nope"], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    const code = await new Promise((resolve) => child.on("close", resolve));
    expect(code).toBe(2);
    expect(stderr).toContain('--profile: expected one of codex, bash, terminal, argv, received "nope"');
  });
});
