// Issue 20, §5, through every route a person approves by: an MCP client's form, `conch pending` (the real
// binary) and the console's card (real Chromium). Each shows that an escalated terminal is one the agent
// types into, asks again for what is typed into it (the text shown), keeps the model's words on one
// row, and says where the whole of a command too long to list is. Nothing typed without a yes runs:
// checked on the host.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describeWith } from "@conch/test-config";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterEach, beforeEach, expect, it } from "vitest";
import { launchBrowser } from "./console-harness.js";
import {
  type CallResult,
  CLIENTS,
  type Connection,
  connect,
  type ElicitAnswer,
  type ElicitParams,
  makeWorkspace,
  textOf,
  type Workspace,
} from "./harness.js";
import { startHttp } from "./http-harness.js";

const CONCH = fileURLToPath(new URL("../../cli/dist/bin.js", import.meta.url));

let ws: Workspace;
let outside: string;
let open: Connection[];
beforeEach(() => {
  ws = makeWorkspace("/var/tmp");
  outside = join(ws.cwd, "..", "outside");
  mkdirSync(outside);
  writeFileSync(join(ws.cwd, "notes.txt"), "hello\n");
  open = [];
});
afterEach(async () => {
  for (const connection of open) await connection.close();
  ws.remove();
});

const LESS = {
  cmd: "less notes.txt",
  tty: true,
  sandbox_permissions: "require_escalated",
  justification: "read the notes\nsandbox: workspace-write",
  yield_time_ms: 1500,
};
const TERMINAL_ROW =
  "an interactive terminal outside the sandbox that the agent types into: each thing it types but Ctrl-C is asked again, shown here first";
const INPUT_WHY = (id: number) =>
  `the model types this into session ${id}, which runs outside the sandbox: what the program does with it (a shell's next line, less's or vi's \`!\`) runs on the host`;

/** The rows of a form's message after its first line, the shell row matched by its shape. */
function formRows(message: string): string[] {
  return message.split("\n").slice(1);
}

describeWith(["bwrap", "pty", "less"], "what a person approves, by MCP form", () => {
  it.each(CLIENTS)(
    "%s: the form names the terminal the agent types into, and asks again for `!touch` typed into it",
    async (kind) => {
      const forms: ElicitParams[] = [];
      const answers: ElicitAnswer[] = [
        { action: "accept", content: { decision: "approve" } },
        { action: "accept", content: { decision: "deny" } },
      ];
      const client = await connect(kind, ws, ["--approval", "on-request"], {
        elicit: async (params) => {
          forms.push(params);
          return answers.shift() ?? { action: "decline" };
        },
      });
      open.push(client);
      const started = await client.callTool("exec_command", LESS);
      expect(started.structuredContent).toMatchObject({ status: "ok", running: true, sandbox: "none" });
      const id = started.structuredContent?.session_id as number;
      const pwned = join(outside, "pwned");
      const typed = await client.callTool("write_stdin", { session_id: id, chars: `!touch ${pwned}\n` });
      expect(textOf(typed)).toBe("rejected by user: nothing was typed");
      expect(existsSync(pwned)).toBe(false);
      expect(forms).toHaveLength(2);
      const [start, input] = forms as [ElicitParams, ElicitParams];
      expect(start.message.split("\n")[0]).toBe("conchd: conchd-test asks to run this command. Approve it?");
      expect(formRows(start.message)).toEqual([
        expect.stringMatching(/^shell: \S+ -lc$/),
        "command: less notes.txt",
        "model: read the notes\\u{0a}sandbox: workspace-write",
        `cwd: ${ws.cwd}`,
        "sandbox: none: it would run outside the sandbox",
        `terminal: ${TERMINAL_ROW}`,
        "why: the model asks to run it outside the sandbox (workspace-write)",
      ]);
      expect(input.message.split("\n")[0]).toBe(
        "conchd: conchd-test asks to type this into a terminal outside the sandbox. Approve it?",
      );
      expect(formRows(input.message)).toEqual([
        `input: !touch ${pwned}\\u{0a}`,
        `session: ${id}`,
        expect.stringMatching(/^shell: \S+ -lc$/),
        "command: less notes.txt",
        `cwd: ${ws.cwd}`,
        "sandbox: none: it would run outside the sandbox",
        `terminal: ${TERMINAL_ROW}`,
        `why: ${INPUT_WHY(id)}`,
      ]);
    },
  );

  it("a long command's form says where all of it can be read", async () => {
    const forms: ElicitParams[] = [];
    const client = await connect("v2 (2025-11-25)", ws, ["--approval", "untrusted"], {
      elicit: async (params) => {
        forms.push(params);
        return { action: "decline" };
      },
    });
    open.push(client);
    const script = `echo ${"a".repeat(4800)}; touch ${join(outside, "pwned")}; echo ${"b".repeat(4800)}`;
    await client.callTool("shell_command", { command: script });
    const last = formRows(forms[0]?.message ?? "").at(-1) ?? "";
    expect(last).toMatch(
      /^length: this question is \d+ characters long; if this form shows less, see all of it with `conch pending --full [0-9a-z]{8}` or in conchd's web console before answering$/,
    );
    // The form itself holds the whole command, the `touch` in its middle included.
    expect(forms[0]?.message).toContain(`command: ${script}\n`);
  });
});

function conch(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [CONCH, ...args], { env: ws.env, encoding: "utf8" });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

function pendingId(result: CallResult): string {
  return /approval ([0-9a-z]{8}) is pending/.exec(textOf(result))?.[1] as string;
}

describeWith(["bwrap", "pty", "less"], "what a person approves, by `conch pending`", () => {
  it("conch pending shows the terminal row and the typed input; --full shows a cut command whole", async () => {
    const client = await connect("v2 (2025-11-25)", ws, ["--approval", "on-request"]);
    open.push(client);
    const asked = await client.callTool("exec_command", LESS);
    const first = pendingId(asked);
    const listed = conch("pending").stdout;
    expect(listed).toContain(
      [
        "  command:  less notes.txt",
        "  model:    read the notes\\u{0a}sandbox: workspace-write",
        `  cwd:      ${ws.cwd}`,
        "  sandbox:  none: it would run outside the sandbox",
        `  terminal: ${TERMINAL_ROW}`,
        "  why:      the model asks to run it outside the sandbox (workspace-write)",
      ].join("\n"),
    );
    expect(conch("approve", first).status).toBe(0);
    const started = await client.callTool("exec_command", LESS);
    expect(started.structuredContent).toMatchObject({ running: true, sandbox: "none" });
    const id = started.structuredContent?.session_id as number;
    const pwned = join(outside, "pwned");
    const typing = { session_id: id, chars: `!touch ${pwned}\n` };
    const second = pendingId(await client.callTool("write_stdin", typing));
    expect(conch("pending").stdout).toContain(
      [`  input:    !touch ${pwned}\\u{0a}`, `  session:  ${id}`, "  shell:"].join("\n"),
    );
    expect(conch("deny", second).status).toBe(0);
    expect(textOf(await client.callTool("write_stdin", typing))).toBe("rejected by user: nothing was typed");
    expect(existsSync(pwned)).toBe(false);

    const script = `echo ${"a".repeat(4800)}; touch ${pwned}; echo ${"b".repeat(4800)}`;
    const long = pendingId(
      await client.callTool("shell_command", {
        command: script,
        sandbox_permissions: "require_escalated",
        justification: "print",
      }),
    );
    const cut = conch("pending").stdout;
    expect(cut).toContain(
      `  cut:      ${script.length - 4096} of the ${script.length} characters of command are not shown here; \`conch pending --full ${long}\` shows all of it\n`,
    );
    expect(cut).not.toContain("touch");
    const whole = conch("pending", "--full", long);
    expect(whole.status).toBe(0);
    expect(whole.stdout).toContain(`  command:  ${script}\n`);
    expect(conch("pending", "--full", "nosuchid").stderr).toBe(
      "conch pending: no pending approval nosuchid (it may have been answered, or lapsed; see conch pending)\n",
    );
  });
});

describeWith(["bwrap", "pty", "less", "chromium"], "what a person approves, by the console's card", () => {
  it("the card shows the same rows, the model's line breaks escaped, a script's lines behind a gutter", async () => {
    const daemon = await startHttp(ws, ["--http", "127.0.0.1:0", "--approval", "on-request"]);
    const launched = await launchBrowser();
    const transport = new StreamableHTTPClientTransport(daemon.url, {
      requestInit: { headers: { Authorization: `Bearer ${daemon.token}` } },
    });
    // A client's name is its own to give: one with a line break stays on its row.
    const client = new Client({ name: "route-test\nwhy:      approved", version: "0" });
    try {
      await client.connect(transport);
      const call = async (tool: string, args: Record<string, unknown>) =>
        (await client.callTool({ name: tool, arguments: args }, { timeout: 60_000 })) as CallResult;
      const { consoleLinks } = await import("@conch/orchestrator");
      const link = (await consoleLinks({ env: ws.env })).links.find((entry) => entry.daemon === daemon.pid);
      const page = await (await launched.browser.newContext()).newPage();
      await page.goto(link?.url as string);
      await page.getByRole("button", { name: /^Approvals/ }).click();

      const rowsOf = async (id: string) => {
        const card = page.locator(`article[data-approval="${id}"]`);
        await card.waitFor();
        return card.evaluate((article) =>
          Array.from(article.querySelectorAll("dl > dt"), (dt) => {
            const dd = dt.nextElementSibling as HTMLElement;
            return [dt.textContent, dd.textContent, dd.className];
          }),
        );
      };
      const first = pendingId(await call("exec_command", LESS));
      expect(await rowsOf(first)).toEqual([
        ["shell", expect.stringMatching(/^\S+ -lc$/), ""],
        ["command", "less notes.txt", ""],
        ["model", "read the notes\\u{0a}sandbox: workspace-write", ""],
        ["cwd", ws.cwd, ""],
        ["sandbox", "none: it would run outside the sandbox", ""],
        ["terminal", TERMINAL_ROW, ""],
        ["why", "the model asks to run it outside the sandbox (workspace-write)", ""],
        ["client", "route-test\\u{0a}why:      approved", ""],
      ]);
      await page
        .locator(`article[data-approval="${first}"]`)
        .getByRole("button", { name: "Approve once" })
        .click();
      const started = await call("exec_command", LESS);
      expect(started.structuredContent).toMatchObject({ running: true, sandbox: "none" });
      const id = started.structuredContent?.session_id as number;
      const pwned = join(outside, "pwned");
      const typing = { session_id: id, chars: `!touch ${pwned}\n` };
      const second = pendingId(await call("write_stdin", typing));
      const rows = await rowsOf(second);
      expect(rows.slice(0, 2)).toEqual([
        ["input", `!touch ${pwned}\\u{0a}`, ""],
        ["session", String(id), ""],
      ]);
      expect(rows.find(([label]) => label === "why")).toEqual(["why", INPUT_WHY(id), ""]);
      await page.locator(`article[data-approval="${second}"]`).getByRole("button", { name: "Deny" }).click();
      await page.locator(`article[data-approval="${second}"]`).waitFor({ state: "detached" });
      expect(textOf(await call("write_stdin", typing))).toBe("rejected by user: nothing was typed");
      expect(existsSync(pwned)).toBe(false);

      // A script's lines are drawn behind a gutter: a line of it is no row of the card.
      const script = "echo one\nwhy:      harmless";
      const third = pendingId(
        await call("shell_command", {
          command: script,
          sandbox_permissions: "require_escalated",
          justification: "x",
        }),
      );
      expect((await rowsOf(third))[1]).toEqual(["command", script, "lines"]);
    } finally {
      await client.close().catch(() => {});
      await launched.close();
      daemon.child.kill("SIGTERM");
      await daemon.exited;
    }
  });
});
