// Issue 20, §5: what a person approves is what runs. A person approved `less FILE` outside the sandbox
// on a terminal; the model then typed `!cmd` into it and ran commands on the host, unasked. Every text
// typed into a session outside the sandbox is now asked first, showing the text; these attempt it for
// real through `conch replay` with the prompt answering from stdin, and look on the host afterwards.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BIN, type Workspace, workspace } from "./harness.js";

let ws: Workspace;
beforeEach(() => {
  ws = workspace();
  writeFileSync(join(ws.cwd, "notes.txt"), "hello\n");
});
afterEach(() => ws.cleanup());

interface Reply {
  readonly text: string;
  readonly result: Record<string, unknown>;
}

/**
 * `conch replay FIFO --approver tty ...`: the calls come one at a time through a FIFO (so a call can
 * name the session id the previous one returned) and the prompt reads `answers` from stdin.
 */
function replay(args: readonly string[], answers: readonly string[]) {
  const fifo = join(ws.base, "calls");
  expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
  const child: ChildProcess = spawn(process.execPath, [BIN, "replay", "--approver", "tty", ...args, fifo], {
    cwd: ws.cwd,
    env: ws.env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  child.stdin?.write(answers.map((answer) => `${answer}\n`).join(""));
  let stderr = "";
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (chunk: string) => {
    stderr += chunk;
  });
  const waiting: ((reply: Reply) => void)[] = [];
  // Conch gone: every call still waiting gets an empty reply, so a test fails on what it asserts.
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  void exited.then(() => {
    for (const resolve of waiting.splice(0)) resolve({ text: `conch exited: ${stderr}`, result: {} });
  });
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on("line", (line) => {
    waiting.shift()?.(JSON.parse(line) as Reply);
  });
  // Opened without blocking the event loop: it waits for conch to open the other end.
  const calls = open(fifo, "w");
  return {
    call: (tool: string, callArgs: Record<string, unknown>) =>
      new Promise<Reply>((resolve) => {
        waiting.push(resolve);
        void calls.then((handle) => handle.write(`${JSON.stringify({ tool, arguments: callArgs })}\n`));
      }),
    close: () =>
      new Promise<string>((resolve) => {
        void exited.then(() => resolve(stderr));
        void calls.then((handle) => handle.close());
        child.stdin?.end();
      }),
  };
}

const ESCALATED_LESS_PROMPT = (cwd: string) =>
  [
    "",
    "conch: approve this command?",
    "  shell:    SHELL -lc",
    "  command:  less notes.txt",
    "  model:    read the notes",
    `  cwd:      ${cwd}`,
    "  sandbox:  none: it would run outside the sandbox",
    "  terminal: an interactive terminal outside the sandbox that the agent types into: each thing it types but Ctrl-C is asked again, shown here first",
    "  why:      the model asks to run it outside the sandbox (workspace-write)",
    "  [y] yes  [s] yes, and don't ask again this session",
    "  [a] always: run `less notes.txt ...` unasked from now on",
    "  [n] no",
    "answer [y/s/a/n]: ",
  ].join("\n");

const INPUT_PROMPT = (cwd: string, id: number, input: string) =>
  [
    "",
    "conch: let the agent type this into a terminal outside the sandbox?",
    `  input:    ${input}`,
    `  session:  ${id}`,
    "  shell:    SHELL -lc",
    "  command:  less notes.txt",
    `  cwd:      ${cwd}`,
    "  sandbox:  none: it would run outside the sandbox",
    "  terminal: an interactive terminal outside the sandbox that the agent types into: each thing it types but Ctrl-C is asked again, shown here first",
    `  why:      the model types this into session ${id}, which runs outside the sandbox: what the program does with it (a shell's next line, less's or vi's \`!\`) runs on the host`,
    "  [y] yes  [s] yes, and don't ask again this session",
    "  [n] no",
    "answer [y/s/n]: ",
  ].join("\n");

/** The question for `input` when the model typed part of the line before: the line it makes is shown. */
const LINE_PROMPT = (cwd: string, id: number, input: string, line: string) =>
  INPUT_PROMPT(cwd, id, input).replace(`  session:  ${id}\n`, `  session:  ${id}\n  line:     ${line}\n`);

describe("typing into a terminal outside the sandbox", () => {
  it("less approved outside the sandbox: `!touch` typed into it is asked, shown whole, and refused it does not run", async () => {
    const pwned = join(ws.outside, "pwned");
    const run = replay([], ["y", "n", "n"]);
    const opened = await run.call("exec_command", {
      cmd: "less notes.txt",
      tty: true,
      sandbox_permissions: "require_escalated",
      justification: "read the notes",
      yield_time_ms: 2000,
    });
    const id = opened.result.session_id as number;
    expect(opened.result).toMatchObject({ status: "ok", running: true });
    expect(opened.text).toContain("notes.txt (END)");
    const typed = await run.call("write_stdin", {
      session_id: id,
      chars: `!touch ${pwned}\n`,
      yield_time_ms: 1500,
    });
    expect(typed.text).toBe("rejected by user: nothing was typed");
    expect(typed.result).toMatchObject({ status: "rejected", rejection: "denied-by-user", session_id: id });
    // Ctrl-C only interrupts, as on a pipe session: it is not asked (no answer is used up by it).
    const interrupted = await run.call("write_stdin", { session_id: id, chars: "\u0003" });
    expect(interrupted.result).toMatchObject({ status: "ok", running: true });
    // The same command in two parts is two questions, each refused.
    const bang = await run.call("write_stdin", { session_id: id, chars: "!" });
    expect(bang.text).toBe("rejected by user: nothing was typed");
    const stderr = await run.close();
    expect(existsSync(pwned)).toBe(false);
    // The user's shell runs the script: root's is bash, nobody's falls back to another.
    expect(stderr.replace(/^ {2}shell: {4}\S+ -lc$/gm, "  shell:    SHELL -lc")).toBe(
      [
        ESCALATED_LESS_PROMPT(ws.cwd),
        INPUT_PROMPT(ws.cwd, id, `!touch ${pwned}\\u{0a}`),
        // Ctrl-C went in between, unasked: the line shows it (whether it cleared the line is the program's).
        LINE_PROMPT(ws.cwd, id, "!", "\\u{03}!"),
      ].join(""),
    );
  });

  it("approved, the typed text runs: the question is what stands between the model and the host", async () => {
    const made = join(ws.outside, "approved");
    const run = replay([], ["y", "y"]);
    const opened = await run.call("exec_command", {
      cmd: "less notes.txt",
      tty: true,
      sandbox_permissions: "require_escalated",
      justification: "read the notes",
      yield_time_ms: 2000,
    });
    const id = opened.result.session_id as number;
    await run.call("write_stdin", { session_id: id, chars: `!touch ${made}\n`, yield_time_ms: 1500 });
    await run.close();
    expect(existsSync(made)).toBe(true);
  });

  it("a command typed in pieces: each is asked with the line it adds to, and a yes for an Enter alone is no yes for the Enter that runs it", async () => {
    const pwned = join(ws.outside, "pieces");
    // Enter alone, allowed for the session; `!` and the command, each allowed; then the Enter that
    // would run them, refused.
    const run = replay([], ["y", "s", "y", "y", "n"]);
    const opened = await run.call("exec_command", {
      cmd: "less notes.txt",
      tty: true,
      sandbox_permissions: "require_escalated",
      justification: "read the notes",
      yield_time_ms: 2000,
    });
    const id = opened.result.session_id as number;
    for (const chars of ["\r", "!", `touch ${pwned}`]) {
      const typed = await run.call("write_stdin", { session_id: id, chars, yield_time_ms: 500 });
      expect(typed.result).toMatchObject({ status: "ok", running: true });
    }
    const enter = await run.call("write_stdin", { session_id: id, chars: "\r", yield_time_ms: 1500 });
    expect(enter.text).toBe("rejected by user: nothing was typed");
    const stderr = await run.close();
    expect(existsSync(pwned)).toBe(false);
    expect(stderr.replace(/^ {2}shell: {4}\S+ -lc$/gm, "  shell:    SHELL -lc")).toBe(
      [
        ESCALATED_LESS_PROMPT(ws.cwd),
        INPUT_PROMPT(ws.cwd, id, "\\u{0d}"),
        INPUT_PROMPT(ws.cwd, id, "!"),
        LINE_PROMPT(ws.cwd, id, `touch ${pwned}`, `!touch ${pwned}`),
        LINE_PROMPT(ws.cwd, id, "\\u{0d}", `!touch ${pwned}\\u{0d}`),
      ].join(""),
    );
  });

  it("the terminal profile with no sandbox under untrusted: terminal_write is asked as well", async () => {
    const pwned = join(ws.outside, "pwned");
    const run = replay(
      ["--profile", "terminal", "--sandbox", "danger-full-access", "--approval", "untrusted"],
      ["y", "n"],
    );
    const opened = await run.call("terminal_open", { command: "less notes.txt", tty: true });
    const id = opened.result.session_id as number;
    const typed = await run.call("terminal_write", { id, input: `!touch ${pwned}\n` });
    expect(typed.text).toBe("rejected by user: nothing was typed");
    expect(typed.result).toMatchObject({ status: "rejected", rejection: "denied-by-user" });
    await run.call("terminal_read", { id, wait_ms: 1000 });
    const stderr = await run.close();
    expect(existsSync(pwned)).toBe(false);
    expect(stderr).toContain(
      "  terminal: an interactive terminal outside the sandbox that the agent types into: each thing it types but Ctrl-C is asked again, shown here first\n",
    );
    expect(stderr).toContain(`  input:    !touch ${pwned}\\u{0a}\n  session:  ${id}\n`);
  });

  it("a pipe session outside the sandbox takes no input at all but Ctrl-C (its stdin is /dev/null)", async () => {
    const pwned = join(ws.outside, "pwned");
    const run = replay([], ["y"]);
    const opened = await run.call("exec_command", {
      cmd: 'read line; eval "$line"; sleep 30',
      sandbox_permissions: "require_escalated",
      justification: "wait",
      yield_time_ms: 500,
    });
    const id = opened.result.session_id as number;
    const typed = await run.call("write_stdin", { session_id: id, chars: `touch ${pwned}\n` });
    expect(typed.result).toMatchObject({ status: "failed", error_code: "STDIN_CLOSED" });
    await run.close();
    expect(existsSync(pwned)).toBe(false);
  });
});
