// conch replay: tool calls as JSON lines in one process; sessions persist between lines and die with it.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { describeWith } from "@conch/test-config";
import { afterEach, beforeEach, expect, it } from "vitest";

const BIN = fileURLToPath(new URL("../dist/bin.js", import.meta.url));
let dir: string;
let home: string;
let env: NodeJS.ProcessEnv;

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "conch-replay-")));
  // A home of its own (no profile noise in the sessions), and no user config or state.
  // A home beside the workspace, not it or inside it: a home as the workspace is refused.
  home = realpathSync(mkdtempSync(join(tmpdir(), "conch-replay-home-")));
  env = {
    ...process.env,
    HOME: home,
    XDG_CONFIG_HOME: join(dir, ".config"),
    XDG_STATE_HOME: join(dir, ".state"),
  };
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
});

function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    return !["Z", "X"].includes(stat.charAt(stat.lastIndexOf(")") + 2));
  } catch {
    return false;
  }
}

interface Line {
  tool: string | null;
  text: string;
  result: Record<string, unknown>;
}

/** A replay reading stdin, driven one call at a time. */
function replay(args: string[]): { child: ChildProcess; call: (line: unknown) => Promise<Line> } {
  const child = spawn(process.execPath, [BIN, "replay", ...args, "-"], {
    cwd: dir,
    env,
    stdio: ["pipe", "pipe", "inherit"],
  });
  const waiting: ((line: Line) => void)[] = [];
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on("line", (text) => {
    waiting.shift()?.(JSON.parse(text) as Line);
  });
  return {
    child,
    call: (line) =>
      new Promise((resolve) => {
        waiting.push(resolve);
        child.stdin?.write(`${typeof line === "string" ? line : JSON.stringify(line)}\n`);
      }),
  };
}

describeWith(["bwrap", "pty"], "conch replay", () => {
  it("keeps sessions across lines, answers bad lines, and kills every session tree when the input ends", async () => {
    const { child, call } = replay(["--sandbox", "danger-full-access"]);
    const shell = await call({
      tool: "exec_command",
      arguments: { cmd: "bash -i", tty: true, yield_time_ms: 500 },
    });
    expect(shell.tool).toBe("exec_command");
    expect(shell.result).toMatchObject({ status: "ok", running: true, exit_code: null });
    const id = shell.result.session_id as number;
    expect(shell.text).toContain(`Process running with session ID ${id}`);
    await call({ tool: "write_stdin", arguments: { session_id: id, chars: "export FOO=bar\n" } });
    const echoed = await call({
      tool: "write_stdin",
      arguments: { session_id: id, chars: "echo $FOO pid=$$\n", yield_time_ms: 2000 },
    });
    expect(echoed.text).toMatch(/bar pid=\d+/);
    const shellPid = Number(/bar pid=(\d+)/.exec(echoed.text)?.[1]);

    const background = await call({
      tool: "exec_command",
      arguments: { cmd: "sleep 300 & echo bg=$!; wait", login: false, yield_time_ms: 1000 },
    });
    const sleepPid = Number(/bg=(\d+)/.exec(background.text)?.[1]);
    const done = await call({ tool: "exec_command", arguments: { cmd: "echo done", login: false } });
    expect(done.result).toMatchObject({ exit_code: 0, session_id: null, running: false });

    expect(await call("{oops")).toEqual({
      tool: null,
      text: `line 6: not valid JSON: ${jsonError("{oops")}`,
      result: expect.objectContaining({ status: "invalid", error_code: "INVALID_REQUEST" }),
    });
    expect((await call({ tool: "nope" })).text).toBe(
      'unknown tool "nope": the codex profile has shell_command, exec_command, write_stdin, shell, list_sessions',
    );
    expect([shellPid, sleepPid].every(isAlive)).toBe(true);

    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    child.stdin?.end();
    expect(await exited).toBe(0);
    expect([shellPid, sleepPid].filter(isAlive)).toEqual([]);
  });

  it('lets a line name the session an earlier line started: "$N" and "$last"', () => {
    const file = join(dir, "refs.jsonl");
    writeFileSync(
      file,
      [
        JSON.stringify({
          tool: "exec_command",
          arguments: { cmd: "bash -i", tty: true, yield_time_ms: 500 },
        }),
        "",
        JSON.stringify({
          tool: "write_stdin",
          arguments: { session_id: "$1", chars: "echo one-$((1+1))\n" },
        }),
        JSON.stringify({
          tool: "write_stdin",
          arguments: { session_id: "$last", chars: "exit\n", yield_time_ms: 3000 },
        }),
        JSON.stringify({ tool: "write_stdin", arguments: { session_id: "$3", chars: "" } }),
        JSON.stringify({ tool: "write_stdin", arguments: { session_id: "$9", chars: "" } }),
      ].join("\n"),
    );
    const result = spawnSync(process.execPath, [BIN, "replay", "--sandbox", "danger-full-access", file], {
      cwd: dir,
      env,
      encoding: "utf8",
    });
    expect(result.status).toBe(0);
    const lines = result.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Line);
    const id = lines[0]?.result.session_id as number;
    expect(lines[1]?.text).toContain("one-2");
    expect(lines[2]?.text).toContain("Process exited with code 0");
    expect(lines[3]).toEqual({
      tool: "write_stdin",
      text: 'line 5: session_id: "$3" names the session line 3 started, and it started none',
      result: expect.objectContaining({ status: "invalid" }),
    });
    expect(lines[4]?.text).toBe(
      'line 6: session_id: "$9" names the session line 9 started, and that line is not before this one',
    );
    expect(id).toBeGreaterThanOrEqual(1000);
  });

  it("reads a file of calls, in the terminal profile too", () => {
    const file = join(dir, "calls.jsonl");
    writeFileSync(
      file,
      [
        JSON.stringify({ tool: "terminal_open", arguments: { command: "echo hello; exit 3" } }),
        JSON.stringify({ tool: "terminal_read", arguments: { id: "$last", wait_ms: 10000 } }),
        JSON.stringify({ tool: "terminal_list", arguments: {} }),
        "",
      ].join("\n"),
    );
    const result = spawnSync(process.execPath, [BIN, "replay", "--profile", "terminal", file], {
      cwd: dir,
      env,
      encoding: "utf8",
    });
    expect(result.status).toBe(0);
    const lines = result.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Line);
    expect(lines).toHaveLength(3);
    // terminal_open gives a terminal by default: its screen, so no trailing newline. On a loaded machine
    // the exit may come after the output has settled: then the call says running (poll again); the
    // read that follows waits for the exit, and the list says how it ended.
    expect(lines[0]?.text).toMatch(
      /^Terminal ID: \d+\nStatus: (exited with code 3|running)\nOutput:\n(.*\n)?hello\n?$/,
    );
    expect(lines[1]?.text).toMatch(/^Terminal ID: \d+\nStatus: exited with code 3\n/);
    expect(lines[2]?.text).toContain("\texited 3\t");
    expect(
      spawnSync(process.execPath, [BIN, "replay", join(dir, "missing.jsonl")], { env, encoding: "utf8" })
        .stderr,
    ).toBe(
      `conch replay: cannot read ${join(dir, "missing.jsonl")}: ENOENT\nRun 'conch replay --help' for usage.\n`,
    );
  });
});

// Settled returns, under the sandbox. Each call asks for a long wait (30 s, or exec_command's default
// 10 s) and its answer is there within about a second: the test's own timeout, far below the sum of the
// windows, is what fails if a call waits its window out. No timing is asserted.
describeWith(["bwrap", "pty"], "conch replay: a call returns when its answer is there", () => {
  let running: ChildProcess | null = null;
  afterEach(() => {
    running?.kill("SIGKILL");
    running = null;
  });

  it("a shell back at its prompt, a REPL gone quiet, a banner, an empty poll", async () => {
    const { child, call } = replay([]);
    running = child;
    const session = async (args: object): Promise<number> => {
      const line = await call({ tool: "exec_command", arguments: args });
      expect(line.result, line.text).toMatchObject({ status: "ok", running: true, sandbox: "bwrap" });
      return line.result.session_id as number;
    };
    const write = async (id: number, chars: string) =>
      call({ tool: "write_stdin", arguments: { session_id: id, chars, yield_time_ms: 30_000 } });

    const shell = await session({ cmd: "bash --norc --noprofile -i", tty: true, login: false });
    const slept = await write(shell, "sleep 1; echo slept-$((6*7))\n");
    expect(slept.text).toMatch(/\nslept-42\r?\n/);
    expect(slept.result.running).toBe(true);
    const after = await write(shell, "cd / && echo at-$PWD\n");
    expect(after.text).toMatch(/\nat-\/\r?\n/);

    const repl = await session({ cmd: "python3 -i -q", tty: true, login: false });
    expect((await write(repl, "6*7\n")).text).toMatch(/\n42\r?\n/);

    for (const port of [8001, 8002, 8003]) {
      const banner = await call({
        tool: "exec_command",
        arguments: { cmd: `sleep 0.1; echo listening on ${port}; exec sleep 600`, login: false },
      });
      expect(banner.text).toContain(`Output:\nlistening on ${port}\n`);
      expect(banner.result.running).toBe(true);
    }

    const late = await call({
      tool: "exec_command",
      arguments: { cmd: "sleep 1; echo late-$((2+3)); exec sleep 600", login: false, yield_time_ms: 250 },
    });
    expect(late.text).not.toContain("late-5");
    const polled = await write(late.result.session_id as number, "");
    expect(polled.text).toContain("Output:\nlate-5\n");
    expect(polled.result.running).toBe(true);

    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    child.stdin?.end();
    expect(await exited).toBe(0);
  }, 25_000);
});

function jsonError(text: string): string {
  try {
    JSON.parse(text);
  } catch (error) {
    return (error as Error).message;
  }
  return "";
}
