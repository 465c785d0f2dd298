// What a model reads of a long output through the real CLI, under the sandbox: whole lines at each end,
// one marker line naming the lines left out and the file that holds them, counts of the whole output,
// and the range the marker suggests read back from that file, as the model would read it (through
// conch, in the sandbox) and with sed directly. Then what a call on a session that ended is told.
import { spawnSync } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describeWith } from "@conch/test-config";
import { afterEach, beforeEach, expect, it } from "vitest";

const BIN = fileURLToPath(new URL("../dist/bin.js", import.meta.url));
let dir: string;
let home: string;
let env: NodeJS.ProcessEnv;

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "conch-long-output-")));
  // A home of its own: no profile noise, no user config or state. Outside /tmp, which the sandbox
  // replaces, so that its spill files are readable there, as under a real home.
  home = realpathSync(mkdtempSync("/var/tmp/conch-long-output-home-"));
  env = {
    ...process.env,
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_STATE_HOME: join(home, ".state"),
  };
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
});

function toolCall(name: string, args: object): { text: string; result: Record<string, unknown> } {
  const run = spawnSync(process.execPath, [BIN, "tool", "call", "--json", name, JSON.stringify(args)], {
    cwd: dir,
    env,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as { text: string; result: Record<string, unknown> };
}

const MARKER =
  /\n\[… lines ([\d,]+)–([\d,]+) omitted \(([\d.]+ [kMG]?B)\); full output: (\S+) — read a range with: sed -n '(\d+),(\d+)p' (\S+)\]\n/;

/** The marker's numbers and path, and the text's shown lines on either side of it. */
function markerOf(text: string) {
  const match = MARKER.exec(text);
  expect(match, text.slice(0, 2000)).not.toBeNull();
  const [line, first, last, size, path, from, to, again] = match as unknown as string[];
  expect(again).toBe(path);
  const output = text.slice(text.indexOf("\nOutput:\n") + "\nOutput:\n".length);
  const [head, tail] = output.split(line as string) as [string, string];
  const number = (s: string | undefined): number => Number((s ?? "").replaceAll(",", ""));
  return {
    first: number(first),
    last: number(last),
    size,
    path: path as string,
    from: number(from),
    to: number(to),
    head: head.split("\n"),
    tail: tail.split("\n").filter((l) => l !== ""),
  };
}

function numbers(from: number, to: number): string[] {
  return Array.from({ length: to - from + 1 }, (_, i) => String(from + i));
}

describeWith("bwrap", "long output through conch tool call", () => {
  it("exec_command seq 1 2000000: the whole output's tokens, whole lines, and a range sed reads", () => {
    const { text, result } = toolCall("exec_command", { cmd: "seq 1 2000000", login: false });
    expect(result).toMatchObject({ status: "ok", exit_code: 0, sandbox: "bwrap", truncated: true });
    // 14,888,896 bytes: 3,722,224 tokens, not those of the 1 MiB the session keeps between reads.
    expect(text).toMatch(/\nProcess exited with code 0\nOriginal token count: 3722224\nOutput:\n1\n2\n3\n/);
    const marker = markerOf(text);
    expect(marker.head).toEqual(numbers(1, marker.first - 1));
    expect(marker.tail).toEqual(numbers(marker.last + 1, 2_000_000));
    expect(marker.size).toBe("14.8 MB");
    expect(marker.path).toBe(result.spill_path);
    expect([marker.from, marker.to]).toEqual([marker.first, marker.first + 199]);
    expect(statSync(marker.path).size).toBe(14_888_896);
    const sed = spawnSync("sed", ["-n", `${marker.from},${marker.to}p`, marker.path], { encoding: "utf8" });
    expect(sed.stdout).toBe(`${numbers(marker.from, marker.to).join("\n")}\n`);
    expect(spawnSync("sed", ["-n", "1000000p", marker.path], { encoding: "utf8" }).stdout).toBe("1000000\n");
  });

  it("shell_command: the marker's sed, run as the model would, in the sandbox, reads those lines", () => {
    const { text, result } = toolCall("shell_command", { command: "seq 1 200000" });
    expect(text).toMatch(
      /^Exit code: 0\nWall time: [\d.]+ seconds\nTotal output lines: 200000\nOutput:\n1\n/,
    );
    const marker = markerOf(text);
    expect(marker.head).toEqual(numbers(1, marker.first - 1));
    expect(marker.tail).toEqual(numbers(marker.last + 1, 200_000));
    expect(marker.path).toBe(result.spill_path);
    const read = toolCall("shell_command", {
      command: `sed -n '${marker.from},${marker.to}p' ${marker.path}`,
    });
    expect(read.result).toMatchObject({ exit_code: 0, sandbox: "bwrap", truncated: false });
    expect(read.text).toMatch(/^Exit code: 0\nWall time: [\d.]+ seconds\nOutput:\n/);
    expect(read.text.slice(read.text.indexOf("\nOutput:\n") + 9)).toBe(
      `${numbers(marker.first, marker.first + 199).join("\n")}\n`,
    );
  });

  it("replay: a session that exited says so, for a session id that never was too", () => {
    const lines = [
      {
        tool: "exec_command",
        arguments: { cmd: "sleep 1; echo bye; exit 4", login: false, yield_time_ms: 250 },
      },
      { tool: "write_stdin", arguments: { session_id: "$1", chars: "", yield_time_ms: 5000 } },
      { tool: "write_stdin", arguments: { session_id: "$1", chars: "" } },
      { tool: "write_stdin", arguments: { session_id: 4242, chars: "" } },
    ];
    const run = spawnSync(process.execPath, [BIN, "replay", "-"], {
      cwd: dir,
      env,
      input: lines.map((line) => JSON.stringify(line)).join("\n"),
      encoding: "utf8",
    });
    expect(run.status, run.stderr).toBe(0);
    const [started, ended, after, never] = run.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { text: string; result: Record<string, unknown> });
    const id = started?.result.session_id as number;
    expect(ended?.text).toMatch(/\nProcess exited with code 4\nOriginal token count: 1\nOutput:\nbye\n$/);
    expect(after).toMatchObject({
      text: `session ${id} exited with code 4; its final output was returned by an earlier call`,
      result: { status: "failed", error_code: "UNKNOWN_SESSION" },
    });
    expect(never?.text).toBe(
      id === 4242
        ? "session 4242 exited with code 4; its final output was returned by an earlier call"
        : "Unknown process id 4242 (no session had that id)",
    );
  });
});
