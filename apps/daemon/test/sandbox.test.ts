// conchd under its default sandbox (workspace-write, bwrap) and read-only: what runs, what is refused,
// and what the tools' annotations say about the network.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describeWith } from "@conch/test-config";
import { afterEach, beforeEach, expect, it } from "vitest";
import { type Connection, connect, makeWorkspace, textOf, type Workspace } from "./harness.js";

let workspace: Workspace;
let connection: Connection | null;

beforeEach(() => {
  workspace = makeWorkspace();
  connection = null;
});
afterEach(async () => {
  await connection?.close();
  workspace.remove();
});

describeWith("bwrap", "conchd in the sandbox", () => {
  for (const kind of ["v2 (2025-11-25)", "sdk 1.32 (2025-11-25)"] as const) {
    it(`runs shell_command under bwrap by default, writing only the workspace (${kind})`, async () => {
      connection = await connect(kind, workspace, []);
      const tools = await connection.listTools();
      // workspace-write keeps the network off unless the config turns it on.
      for (const tool of tools) expect(tool.annotations?.openWorldHint).toBe(false);
      const result = await connection.callTool("shell_command", { command: "echo hi > f && cat f" });
      expect(result.isError).toBeUndefined();
      expect(textOf(result)).toContain("hi");
      expect(result.structuredContent).toMatchObject({ status: "ok", exit_code: 0, sandbox: "bwrap" });
      expect(readFileSync(join(workspace.cwd, "f"), "utf8")).toBe("hi\n");
    });
  }

  it("holds touch under --approval untrusted for a person's approval, and nothing ran", async () => {
    connection = await connect("v2 (2026-07-28)", workspace, ["--approval", "untrusted"]);
    const result = await connection.callTool("shell_command", { command: "touch x" });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("the command did not run");
    expect(result.structuredContent).toMatchObject({ status: "rejected", rejection: "approval-pending" });
    expect(existsSync(join(workspace.cwd, "x"))).toBe(false);
  });

  it("keeps a read-only sandbox read-only, and says the tools cannot reach the network", async () => {
    // Not under /tmp: a read-only sandbox shows its own private /tmp there, which would hide the
    // workspace itself (workspace-write binds the workspace back in; read-only binds nothing).
    workspace.remove();
    workspace = makeWorkspace("/var/tmp");
    connection = await connect("v2 (2025-11-25)", workspace, [
      "--sandbox",
      "read-only",
      "--approval",
      "never",
    ]);
    for (const tool of await connection.listTools()) expect(tool.annotations?.openWorldHint).toBe(false);
    const result = await connection.callTool("shell_command", { command: "touch x" });
    // It ran, in the sandbox, and failed there: a command that ran is no tool error.
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toMatchObject({ status: "ok", sandbox: "bwrap", exit_code: 1 });
    expect(textOf(result)).toContain("touch: cannot touch 'x': Read-only file system");
    expect(existsSync(join(workspace.cwd, "x"))).toBe(false);
  });
});
