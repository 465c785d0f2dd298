// tools/list and tools/call through real conchd processes and the SDKs' own clients. These run without
// a sandbox (--sandbox danger-full-access) so that they need no bwrap; sandbox.test.ts has the
// sandboxed ones.
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CALL_LIMIT_MS } from "@conch/mcp";
import { createToolSet, ToolOrchestrator } from "@conch/orchestrator";
import { TOOL_PROFILE_NAMES, type ToolProfileName } from "@conch/protocol";
import { ToolResultSchema } from "@conch/protocol/schemas";
import { itWith } from "@conch/test-config";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CLIENTS, type Connection, connect, makeWorkspace, textOf, type Workspace } from "./harness.js";

const NO_SANDBOX = ["--sandbox", "danger-full-access"];

const NAMES: Readonly<Record<ToolProfileName, readonly string[]>> = {
  codex: ["shell_command", "exec_command", "write_stdin", "shell", "list_sessions"],
  bash: ["bash"],
  argv: ["shell"],
  terminal: [
    "terminal_open",
    "terminal_write",
    "terminal_read",
    "terminal_signal",
    "terminal_close",
    "terminal_list",
  ],
};

/** The tool set conchd serves for `profile` under NO_SANDBOX, built here the way `conch tool list` builds it. */
async function expectedTools(profile: ToolProfileName) {
  const orchestrator = new ToolOrchestrator({
    cwd: process.cwd(),
    approvalPolicy: "never",
    sandbox: { mode: "danger-full-access" },
  });
  return createToolSet({ profile, orchestrator, callLimitMs: CALL_LIMIT_MS });
}

let workspace: Workspace;
let connections: Connection[];

beforeEach(() => {
  workspace = makeWorkspace();
  connections = [];
});
afterEach(async () => {
  await Promise.all(connections.map((connection) => connection.close()));
  workspace.remove();
});

async function open(kind: (typeof CLIENTS)[number], args: readonly string[]): Promise<Connection> {
  const connection = await connect(kind, workspace, args);
  connections.push(connection);
  return connection;
}

describe("conchd --config", () => {
  it("reads FILE as the user config: its tool_profile and approval policy apply", async () => {
    const file = join(workspace.cwd, "..", "conchd.toml");
    writeFileSync(file, 'tool_profile = "bash"\napproval_policy = "never"\n');
    const connection = await open("v2 (2025-11-25)", [...NO_SANDBOX, "--config", file]);
    expect((await connection.listTools()).map((tool) => tool.name)).toEqual(["bash"]);
    const result = await connection.callTool("bash", {
      command: "echo configured",
      description: "print a word",
    });
    expect(textOf(result)).toContain("configured");
  });
});

describe.each(CLIENTS)("conchd with the %s client", (kind) => {
  it("lists every profile's tools with their schemas, annotations and the result schema", async () => {
    const resultKeys = Object.keys(ToolResultSchema.shape).sort();
    for (const profile of TOOL_PROFILE_NAMES) {
      const connection = await open(kind, [...NO_SANDBOX, "--profile", profile]);
      const tools = await connection.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(NAMES[profile]);
      const expected = await expectedTools(profile);
      for (const [i, tool] of tools.entries()) {
        const definition = expected.tools[i];
        expect(tool.description).toBe(definition?.description);
        expect(tool.inputSchema).toEqual(definition?.jsonSchema);
        expect(tool.annotations).toEqual({
          readOnlyHint: false,
          destructiveHint: true,
          idempotentHint: false,
          openWorldHint: true,
        });
        const output = tool.outputSchema ?? {};
        expect(output).toMatchObject({ type: "object", additionalProperties: false });
        expect(Object.keys(output.properties as object).sort()).toEqual(resultKeys);
        expect([...(output.required as string[])].sort()).toEqual(resultKeys);
      }
    }
  });

  it("runs shell_command and returns the model's text and the structured result", async () => {
    const connection = await open(kind, NO_SANDBOX);
    const result = await connection.callTool("shell_command", { command: "echo hi" });
    expect(result.isError).toBeUndefined();
    expect(textOf(result)).toMatch(/^Exit code: 0\nWall time: \d+\.\d seconds\nOutput:\nhi\n?$/);
    expect(result.structuredContent).toMatchObject({
      tool: "shell_command",
      status: "ok",
      exit_code: 0,
      sandbox: "none",
      timed_out: false,
      session_id: null,
    });
    const failing = await connection.callTool("shell_command", { command: "exit 3" });
    // A command that ran is not a tool error, whatever its exit code.
    expect(failing.isError).toBeUndefined();
    expect(failing.structuredContent).toMatchObject({ status: "ok", exit_code: 3 });
  });

  it("without a form to show, what needs approval waits for a person out of band, and runs nothing", async () => {
    const connection = await open(kind, [...NO_SANDBOX, "--approval", "untrusted"]);
    const result = await connection.callTool("shell_command", { command: "touch x" });
    expect(result.isError).toBe(true);
    const text = textOf(result);
    expect(text).toMatch(/this client cannot ask a person: approval [0-9a-z]{8} is pending/);
    expect(text).toContain("retry this same call");
    expect(result.structuredContent).toMatchObject({
      status: "rejected",
      rejection: "approval-pending",
      exit_code: null,
    });
    expect(existsSync(join(workspace.cwd, "x"))).toBe(false);
    // A known-safe command still runs unasked under untrusted.
    const safe = await connection.callTool("shell_command", { command: "ls" });
    expect(safe.structuredContent).toMatchObject({ status: "ok", exit_code: 0 });
  });

  it("answers malformed arguments with isError and the tool set's text naming the field", async () => {
    const connection = await open(kind, NO_SANDBOX);
    const expected = await expectedTools("codex");
    for (const args of [
      { command: 5 },
      {},
      { command: "true", bogus: 1 },
      { command: "true", timeout_ms: "x" },
    ]) {
      const result = await connection.callTool("shell_command", args);
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe((await expected.call("shell_command", args)).text);
      expect(result.structuredContent).toMatchObject({ status: "invalid", error_code: "INVALID_REQUEST" });
    }
    const wrongType = await connection.callTool("shell_command", { command: 5 });
    expect(textOf(wrongType)).toContain("command");
    const unknown = await connection.callTool("write_stdin", { session_id: 4242 });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toContain("Unknown process id 4242");
  });

  itWith(
    ["pty", "bash"],
    "keeps an exec_command bash -i session with its state across write_stdin calls",
    async () => {
      const connection = await open(kind, NO_SANDBOX);
      const started = await connection.callTool("exec_command", {
        cmd: "bash -i",
        tty: true,
        yield_time_ms: 1000,
      });
      expect(started.isError).toBeUndefined();
      expect(started.structuredContent).toMatchObject({ tool: "exec_command", status: "ok", running: true });
      const id = started.structuredContent?.session_id;
      expect(typeof id).toBe("number");
      expect(textOf(started)).toContain(`Process running with session ID ${id}`);
      const set = await connection.callTool("write_stdin", {
        session_id: id,
        chars: "cd / && CONCH_TEST=kept\n",
        yield_time_ms: 1000,
      });
      expect(set.structuredContent).toMatchObject({ running: true, session_id: id });
      const read = await connection.callTool("write_stdin", {
        session_id: id,
        chars: 'echo "[$CONCH_TEST:$(pwd)]"\n',
        yield_time_ms: 1000,
      });
      expect(textOf(read)).toContain("[kept:/]");
    },
  );
});
