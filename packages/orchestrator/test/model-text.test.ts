// What a model reads of a command's output: real processes print escape sequences, `\r` progress lines,
// bidi and zero-width characters, C1 controls and invalid UTF-8 with printf, one-shot, in pipe sessions
// and on a PTY; the text keeps what a terminal would show and says how much it removed.
import { mkdtemp, readFile, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeWith } from "@conch/test-config";
import { afterEach, beforeEach, expect, it } from "vitest";
import { ToolOrchestrator } from "../src/orchestrator/tool-orchestrator.js";
import { createSpillStore } from "../src/spill/spill-store.js";
import type { ToolSet } from "../src/tools/tool-set.js";
import { checkedToolSet } from "./checked-tool-set.js";

let work: string;
let orchestrators: ToolOrchestrator[];

beforeEach(async () => {
  work = await realpath(await mkdtemp(join(tmpdir(), "conch-model-text-")));
  orchestrators = [];
});
afterEach(async () => {
  await Promise.all(orchestrators.map((o) => o.terminateSessions()));
  await rm(work, { recursive: true, force: true });
});

async function tools(profile: "codex" | "terminal", maxOutputTokens?: number): Promise<ToolSet> {
  const orchestrator = new ToolOrchestrator({
    cwd: work,
    approvalPolicy: "never",
    sandbox: { mode: "danger-full-access" },
    spill: createSpillStore({ dir: join(work, ".spill") }),
    env: { set: { HOME: work } },
  });
  orchestrators.push(orchestrator);
  return checkedToolSet({
    profile,
    orchestrator,
    shell: { type: "sh", path: "/bin/sh" },
    ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }),
  });
}

/** The text with its timings (the only part that varies) replaced. */
function steady(text: string): string {
  return text
    .replace(/^Chunk ID: [0-9a-f]{6}\n/, "Chunk ID: ID\n")
    .replace(/Wall time: [\d.]+ seconds/, "Wall time: T seconds");
}

// Octal escapes, as every printf takes them.
const HOSTILE =
  "a\\033]52;c;cm0gLXJmIH4=\\007b\\n" + // OSC 52: a clipboard write
  "\\033[1;31mred\\033[0m\\n" + // colours
  "10%%\\r50%%\\r100%%\\n" + // a progress line
  "\\342\\200\\256evil\\342\\200\\254 z\\342\\200\\213w\\n" + // RLO ... PDF, a zero-width space
  "\\302\\23331mc1\\n" + // U+009B, the 8-bit CSI
  "\\377ok\\n"; // not UTF-8

describeWith(["linux", "pty"], "the model text of command output", () => {
  it("one-shot: sequences are removed whole, \\r keeps the last state, and the text says how much", async () => {
    const set = await tools("codex");
    const result = await set.call("shell_command", { command: `printf '${HOSTILE}'`, login: false });
    expect(steady(result.text)).toBe(
      "Exit code: 0\nWall time: T seconds\nOutput:\nab\nred\n100%\nevil zw\nc1\n\ufffdok\n" +
        "[Conch removed 9 terminal control codes from this output]",
    );
    const argv = await set.call("shell", { command: ["printf", "\\033[32mok\\033[0m\\n"] });
    expect(steady(argv.text)).toBe(
      "Exit code: 0\nWall time: T seconds\nOutput:\nok\n[Conch removed 2 terminal control codes from this output]",
    );
  });

  it("one-shot: a sequence, a character or a \\r\\n split between chunks comes out whole", async () => {
    const set = await tools("codex");
    // Each printf is its own write, and the pauses make each a chunk of its own.
    const command = [
      "printf '\\033[3'",
      "printf '1mred\\033]52;c;'",
      "printf 'eA==\\033'",
      "printf '\\\\ caf\\303'",
      "printf '\\251 \\342\\200'",
      "printf '\\256done\\r'",
      "printf '\\n'",
    ].join("; sleep 0.2; ");
    const result = await set.call("shell_command", { command, login: false });
    expect(steady(result.text)).toBe(
      "Exit code: 0\nWall time: T seconds\nOutput:\nred café done\n" +
        "[Conch removed 3 terminal control codes from this output]",
    );
  });

  it("one-shot: the budget counts the cleaned text, which the spill file holds, so its lines are the cut's", async () => {
    const set = await tools("codex", 20);
    const command =
      "i=0; while [ $i -lt 50 ]; do printf '\\033[31mline %02d\\033[0m\\n' $i; i=$((i+1)); done";
    const result = await set.call("shell_command", { command, login: false });
    const spill = result.result.spill_path as string;
    const saved = await readFile(spill, "utf8");
    expect(saved).toBe(Array.from({ length: 50 }, (_, i) => `line ${String(i).padStart(2, "0")}\n`).join(""));
    // 50 lines of 8 bytes: 400 bytes, 100 tokens, cut to 20 (40 bytes a side): five whole lines each.
    expect(steady(result.text)).toBe(
      "Exit code: 0\nWall time: T seconds\nTotal output lines: 50\nOutput:\n" +
        "line 00\nline 01\nline 02\nline 03\nline 04\n" +
        `[… lines 6–45 omitted (320 bytes); full output: ${spill} — read a range with: sed -n '6,45p' ${spill}]\n` +
        "line 45\nline 46\nline 47\nline 48\nline 49\n" +
        "[Conch removed 100 terminal control codes from this output]",
    );
    expect(saved.split("\n").slice(5, 45)).toEqual(
      Array.from({ length: 40 }, (_, i) => `line ${String(i + 5).padStart(2, "0")}`),
    );
  });

  it("a pipe session: a sequence split between two calls is removed whole", async () => {
    const set = await tools("codex");
    const started = await set.call("exec_command", {
      cmd: "printf 'start \\033]52;c;'; sleep 1; printf 'eA==\\007end\\n'",
      login: false,
      yield_time_ms: 500,
    });
    const id = started.result.session_id as number;
    expect(steady(started.text)).toBe(
      `Chunk ID: ID\nWall time: T seconds\nProcess running with session ID ${id}\nOriginal token count: 2\n` +
        "Output:\nstart \n[Conch removed 1 terminal control code from this output]",
    );
    const polled = await set.call("write_stdin", { session_id: id, chars: "", yield_time_ms: 5000 });
    expect(steady(polled.text)).toBe(
      "Chunk ID: ID\nWall time: T seconds\nProcess exited with code 0\nOriginal token count: 1\nOutput:\nend\n",
    );
  });

  it("a PTY session: the rendered screen text loses bidi and zero-width characters too", async () => {
    const set = await tools("codex");
    const result = await set.call("exec_command", {
      cmd: "printf '\\033[31mred\\033[0m \\342\\200\\256rtl\\342\\200\\254 z\\342\\200\\213w\\n10%%\\r100%%\\n'",
      login: false,
      tty: true,
      yield_time_ms: 5000,
    });
    expect(steady(result.text)).toBe(
      "Chunk ID: ID\nWall time: T seconds\nProcess exited with code 0\nOriginal token count: 4\n" +
        "Output:\nred rtl zw\n100%\n[Conch removed 3 terminal control codes from this output]",
    );
  });

  it("echoes of what the model sent are escaped, not acted on", async () => {
    const set = await tools("codex");
    const badDir = await set.call("shell_command", { command: "true", workdir: "x\x1b[2J\u202e" });
    expect(badDir.text).toBe(`shell_command: workdir: no such directory: ${work}/x\\u{1b}[2J\\u{202e}`);
    const unknown = await set.call("shell\u200b_command", {});
    expect(unknown.text).toBe(
      'unknown tool "shell\\u{200b}_command": the codex profile has shell_command, exec_command, write_stdin, shell, list_sessions',
    );

    const terminal = await tools("terminal");
    await terminal.call("terminal_open", { command: "sleep 30 # \x1b]0;title\x07" });
    const listed = await terminal.call("terminal_list", {});
    expect(listed.text).toMatch(/\tsleep 30 # \\u\{1b\}\]0;title\\u\{07\}$/);
  });
});
