// A session's output as the model reads it, through the tool set with real processes, PTYs and bwrap:
// every call's text cut on lines, its marker naming lines as the session's spill file numbers them (read
// back with sed, as the marker says), counts of the whole output, and what a call on an ended session
// is told.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, readdir, realpath, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeWith } from "@conch/test-config";
import { afterEach, beforeEach, expect, it } from "vitest";
import { ToolOrchestrator } from "../src/orchestrator/tool-orchestrator.js";
import { createSpillStore } from "../src/spill/spill-store.js";
import type { ToolSet } from "../src/tools/tool-set.js";
import { bwrapSandbox } from "./bwrap-sandbox.js";
import { checkedToolSet } from "./checked-tool-set.js";

let work: string;
let spillDir: string;
let orchestrators: ToolOrchestrator[];

beforeEach(async () => {
  work = await realpath(await mkdtemp(join(tmpdir(), "conch-session-output-")));
  spillDir = await mkdtemp("/var/tmp/conch-session-spill-");
  orchestrators = [];
});
afterEach(async () => {
  await Promise.all(orchestrators.map((o) => o.terminateSessions()));
  await rm(work, { recursive: true, force: true });
  await rm(spillDir, { recursive: true, force: true });
});

async function tools(
  options: { exitGraceMs?: number } = {},
): Promise<{ set: ToolSet; orchestrator: ToolOrchestrator }> {
  const orchestrator = new ToolOrchestrator({
    cwd: work,
    approvalPolicy: "never",
    sandbox: { mode: "workspace-write" },
    sessionSandbox: bwrapSandbox({ mode: "workspace-write" }, work),
    spill: createSpillStore({ dir: spillDir }),
    env: { set: { HOME: work } },
    ...(options.exitGraceMs === undefined ? {} : { sessionExitGraceMs: options.exitGraceMs }),
  });
  orchestrators.push(orchestrator);
  const set = await checkedToolSet({ profile: "codex", orchestrator });
  return { set, orchestrator };
}

interface Shown {
  /** The output lines shown before the marker (all of them when nothing was cut). */
  readonly head: string[];
  readonly tail: string[];
  readonly marker: { first: number; last: number; path: string; from: number; to: number } | null;
}

const MARKER =
  /^\[… lines? ([\d,]+)(?:–([\d,]+))? omitted \([\d.]+ (?:bytes|kB|MB)\); full output: (\S+) — read a range with: sed -n '(\d+),(\d+)p' (\S+)\]$/;

/** The output part of an exec_command/write_stdin text, split at its marker line. */
function shownOf(text: string): Shown {
  const output = text.slice(text.indexOf("\nOutput:\n") + "\nOutput:\n".length);
  const lines = output.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const at = lines.findIndex((line) => line.startsWith("[… "));
  if (at === -1) return { head: lines, tail: [], marker: null };
  const match = MARKER.exec(lines[at] as string);
  expect(match, lines[at]).not.toBeNull();
  const [, first, last, path, from, to, again] = match as unknown as string[];
  expect(again).toBe(path);
  const number = (s: string | undefined): number => Number((s ?? "").replaceAll(",", ""));
  return {
    head: lines.slice(0, at),
    tail: lines.slice(at + 1),
    marker: {
      first: number(first),
      last: number(last ?? first),
      path: path as string,
      from: number(from),
      to: number(to),
    },
  };
}

/** `sed -n 'A,Bp' FILE`, run as the marker says to. */
function sed(from: number, to: number, path: string): string[] {
  return execFileSync("sed", ["-n", `${from},${to}p`, path], { encoding: "utf8" })
    .split("\n")
    .slice(0, -1);
}

/**
 * Checks that a call's text shows `seq`'s numbers in order from `next`, that its marker names exactly
 * the lines between head and tail, and that sed reads those lines from the file. Returns the next
 * number the following call should start with.
 */
function expectSeq(text: string, next: number): number {
  const { head, tail, marker } = shownOf(text);
  expect(head).toEqual(head.map((_, i) => String(next + i)));
  if (marker === null) return next + head.length;
  expect(marker.first).toBe(next + head.length);
  expect(tail).toEqual(tail.map((_, i) => String(marker.last + 1 + i)));
  expect([marker.from, marker.to]).toEqual([marker.first, Math.min(marker.last, marker.first + 199)]);
  expect(sed(marker.from, marker.to, marker.path)).toEqual(
    Array.from({ length: marker.to - marker.from + 1 }, (_, i) => String(marker.from + i)),
  );
  return marker.last + 1 + tail.length;
}

describeWith(["bwrap", "pty"], "session output", () => {
  it("seq 1 2000000 through exec_command: the whole output's tokens, a marker sed reads, one file of it all", async () => {
    const { set } = await tools();
    const result = await set.call("exec_command", {
      cmd: "seq 1 2000000",
      login: false,
      yield_time_ms: 30_000,
    });
    const bytes = Number(execFileSync("sh", ["-c", "seq 1 2000000 | wc -c"], { encoding: "utf8" }));
    expect(result.text).toContain(
      `\nProcess exited with code 0\nOriginal token count: ${Math.ceil(bytes / 4)}\nOutput:\n`,
    );
    expect(result.result).toMatchObject({ truncated: true, sandbox: "bwrap", exit_code: 0 });
    expect(expectSeq(result.text, 1)).toBe(2_000_001);
    const { marker } = shownOf(result.text);
    expect(marker?.path).toBe(result.result.spill_path);
    // The file holds all of it: line 1,000,000 is there.
    expect((await stat(marker?.path as string)).size).toBe(bytes);
    expect(sed(1_000_000, 1_000_000, marker?.path as string)).toEqual(["1000000"]);
    expect(await readdir(spillDir)).toEqual([expect.stringMatching(/-exec_command\.txt$/)]);
  });

  it("write_stdin calls number their lines within the session's whole output, in one file", async () => {
    const { set } = await tools();
    const started = await set.call("exec_command", {
      cmd: "seq 1 5000; sleep 1; seq 5001 12000; sleep 1; seq 12001 12010",
      login: false,
      yield_time_ms: 500,
      max_output_tokens: 100,
    });
    const id = started.result.session_id as number;
    expect(started.result.running).toBe(true);
    expect(shownOf(started.text).marker).not.toBeNull();
    let next = expectSeq(started.text, 1);
    const texts = [started.text];
    for (let call = 0; call < 10 && next <= 12_010; call++) {
      const polled = await set.call("write_stdin", {
        session_id: id,
        chars: "",
        yield_time_ms: 5000,
        max_output_tokens: 100,
      });
      texts.push(polled.text);
      next = expectSeq(polled.text, next);
      if (!polled.result.running) break;
    }
    expect(next).toBe(12_011);
    // Every cut points into the same file, which holds the whole output.
    const paths = new Set(
      texts.map((text) => shownOf(text).marker?.path).filter((path) => path !== undefined),
    );
    expect(paths.size).toBe(1);
    const [path] = [...paths] as string[];
    expect(readFileSync(path as string, "utf8")).toBe(
      execFileSync("seq", ["1", "12010"], { encoding: "utf8" }),
    );
  });

  it("a terminal whose lines scrolled away unread shows whole lines and a marker into its cleaned output", async () => {
    const { set } = await tools();
    const result = await set.call("exec_command", {
      cmd: "seq 1 3000",
      tty: true,
      login: false,
      max_output_tokens: 100,
      // Waits for the exit it asserts: the default settle window may end at a pause under load.
      yield_time_ms: 30_000,
    });
    expect(result.text).not.toContain("scrolled out of the terminal");
    expect(expectSeq(result.text, 1)).toBe(3001);
    // The file holds the terminal's output as the model reads it: `\r\n` is a line break.
    expect(readFileSync(result.result.spill_path as string, "utf8")).toBe(
      execFileSync("seq", ["1", "3000"], { encoding: "utf8" }),
    );
  });

  it("the file is readable while the session runs; one no text named is deleted when the session ends", async () => {
    const { set, orchestrator } = await tools();
    const running = await set.call("exec_command", {
      cmd: "seq 1 20000; sleep 60",
      login: false,
      yield_time_ms: 1000,
      max_output_tokens: 100,
    });
    const path = running.result.spill_path as string;
    expect(running.result.running).toBe(true);
    expect(readFileSync(path, "utf8")).toBe(execFileSync("seq", ["1", "20000"], { encoding: "utf8" }));

    // 200 KB, more than the session holds in memory, but all of it shown: its file goes at the end.
    const whole = await set.call("exec_command", {
      cmd: "seq 1 30000",
      login: false,
      max_output_tokens: 100_000,
      yield_time_ms: 30_000,
    });
    expect(whole.result).toMatchObject({ truncated: false, spill_path: null });
    expect(expectSeq(whole.text, 1)).toBe(30_001);
    await orchestrator.terminateSessions();
    // Only the file a text named is left, and it is complete.
    expect(await readdir(spillDir)).toEqual([path.slice(spillDir.length + 1)]);
    expect(existsSync(path)).toBe(true);
  });

  it("a call on a session that ended says what became of it", async () => {
    const { set, orchestrator } = await tools();
    const idOf = async (cmd: string): Promise<number> => {
      const started = await set.call("exec_command", { cmd, login: false, yield_time_ms: 250 });
      return started.result.session_id as number;
    };
    const printed = await idOf("echo hi; sleep 0.5; exit 3");
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const last = await set.call("write_stdin", { session_id: printed, chars: "" });
    expect(last.text).toContain("Process exited with code 3\n");
    const after = await set.call("write_stdin", { session_id: printed, chars: "" });
    expect(after).toMatchObject({
      text: `session ${printed} exited with code 3; its final output was returned by an earlier call`,
      result: { status: "failed", error_code: "UNKNOWN_SESSION" },
    });

    const killed = await idOf("sleep 60");
    await orchestrator.closeSession("console", killed, { by: "person" });
    expect((await set.call("write_stdin", { session_id: killed, chars: "x" })).text).toBe(
      `Unknown process id ${killed} (it was closed by a person)`,
    );
    const idle = await idOf("sleep 60");
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(await orchestrator.closeIdleSessions(1)).toEqual([idle]);
    expect((await set.call("write_stdin", { session_id: idle, chars: "" })).text).toBe(
      `Unknown process id ${idle} (it was closed after 1 s without a call)`,
    );
    const never = printed === 4242 ? 4243 : 4242;
    expect((await set.call("write_stdin", { session_id: never, chars: "" })).text).toBe(
      `Unknown process id ${never} (no session had that id)`,
    );
  });

  it("after the grace period an ended session's id is unknown, saying it ended that long ago", async () => {
    const { set } = await tools({ exitGraceMs: 1000 });
    const started = await set.call("exec_command", {
      cmd: "sleep 0.3",
      login: false,
      yield_time_ms: 250,
    });
    const id = started.result.session_id as number;
    const ended = await set.call("write_stdin", { session_id: id, chars: "", yield_time_ms: 5000 });
    expect(ended.text).toContain("Process exited with code 0\n");
    expect((await set.call("write_stdin", { session_id: id, chars: "" })).text).toBe(
      `session ${id} exited with code 0; its final output was returned by an earlier call`,
    );
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await set.call("write_stdin", { session_id: id, chars: "" })).text).toBe(
      `Unknown process id ${id} (its session ended more than 1 second ago)`,
    );
  });
});
