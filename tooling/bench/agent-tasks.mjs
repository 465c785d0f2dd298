// Replays an agent's eight tasks (agent-tasks.jsonl: a test-fix loop, git, a dev server, a Python REPL,
// a 15 MB output, sandbox denials, commands waiting for input, and issue 25's points: an empty poll of an
// idle shell, an editor's :wq, list_sessions, a one-shot's background server, a 3,000,000-line output, a
// hidden key) through the codex tools, once with the
// fixed wait windows (`settle_ms = 0`, the behaviour before settled returns) and once with the default
// settle, and prints each task's wall time, idle time and window-bound time for both.
//
// Idle: the part of a session call (exec_command, write_stdin) after its answer was there: after the
// last output it returned arrived, or the process exited, whichever came later (the whole call when
// neither happened during it). A one-shot call (shell_command) returns when its command exits and
// counts no idle time. Window-bound: session calls that ended with the process still running, at their
// wait window (yield_time_ms, or the default: 10 s for exec_command, 250 ms for write_stdin, at least
// 5 s for an empty poll).
//
//   node tooling/bench/agent-tasks.mjs [--json] [--calls]
//
// --calls prints every call's time in both modes; --json prints the summary as one JSON object (what
// `pnpm bench` reads). The outputs of both runs are compared: a one-shot call's text as a whole, and
// each session's output across all the calls that read it, with its end (what varies from run to run,
// session ids, timings, spill paths, is masked); any difference is listed. An early return splits a
// session's output over more calls, which is why sessions are compared whole.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { scratch, scratchRuntime } from "./scratch.mjs";

const file = fileURLToPath(new URL("agent-tasks.jsonl", import.meta.url));
const flags = new Set(process.argv.slice(2));

/** The tasks, as ranges of lines of agent-tasks.jsonl (1-based, inclusive). */
const TASKS = [
  { name: "test-fix loop (python3 -m unittest)", first: 1, last: 5 },
  { name: "git", first: 6, last: 10 },
  { name: "dev server", first: 11, last: 19 },
  { name: "Python REPL", first: 20, last: 28 },
  { name: "15 MB output", first: 29, last: 31 },
  { name: "sandbox denials", first: 32, last: 35 },
  { name: "commands waiting for input", first: 36, last: 45 },
  { name: "idle shell, editor, lost id, leftovers, cut, hidden key", first: 46, last: 54 },
];

const calls = readFileSync(file, "utf8")
  .split("\n")
  .filter((line) => line.trim() !== "")
  .map((line) => JSON.parse(line));
if (TASKS.at(-1).last !== calls.length) {
  throw new Error(`agent-tasks.jsonl has ${calls.length} calls; the task table ends at ${TASKS.at(-1).last}`);
}

// Codex's wait windows (TOOL_LIMITS in @conch/protocol, DESIGN.md §3).
const EXEC_YIELD_MS = 10_000;
const WRITE_YIELD_MS = 250;
const EMPTY_POLL_MIN_MS = 5_000;

/** The window a session call waits at most while its process runs. */
function windowOf(call) {
  const asked = call.arguments.yield_time_ms;
  if (call.tool === "exec_command") return Math.min(Math.max(asked ?? EXEC_YIELD_MS, 250), 30_000);
  if (call.arguments.chars === "") return Math.max(asked ?? WRITE_YIELD_MS, EMPTY_POLL_MIN_MS);
  return Math.min(Math.max(asked ?? WRITE_YIELD_MS, 250), 30_000);
}

/** A workspace like an agent's: a Python module with a bug and its tests, in a git repository. */
function workspace({ cwd: ws, home }) {
  mkdirSync(join(home, ".ssh"), { recursive: true, mode: 0o700 });
  writeFileSync(join(home, ".ssh", "id_ed25519"), "not a real key\n", { mode: 0o600 });
  writeFileSync(join(ws, "calc.py"), 'def add(a, b):\n    """The sum of a and b."""\n    return a - b\n');
  writeFileSync(
    join(ws, "test_calc.py"),
    "import unittest\n\nfrom calc import add\n\n\nclass AddTest(unittest.TestCase):\n" +
      "    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n\n" +
      "    def test_negative(self):\n        self.assertEqual(add(-1, 1), 0)\n\n\n" +
      'if __name__ == "__main__":\n    unittest.main()\n',
  );
  writeFileSync(join(ws, "README.md"), "# calc\n\nAdds numbers.\n");
  const git = (...args) =>
    execFileSync("git", args, {
      cwd: ws,
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: "Agent",
        GIT_AUTHOR_EMAIL: "agent@example.com",
        GIT_COMMITTER_NAME: "Agent",
        GIT_COMMITTER_EMAIL: "agent@example.com",
        GIT_AUTHOR_DATE: "2026-01-01T00:00:00Z",
        GIT_COMMITTER_DATE: "2026-01-01T00:00:00Z",
      },
      stdio: "ignore",
    });
  git("init", "-q", "-b", "main");
  git("add", "-A");
  git("commit", "-qm", "calc: add()");
}

/** `"$N"` / `"$last"` in session_id, as `conch replay` resolves them. */
function resolve(args, started, last, number) {
  const value = args.session_id;
  if (typeof value !== "string") return args;
  const match = /^\$(?:(\d+)|last)$/.exec(value);
  if (match === null) return args;
  const id = match[1] === undefined ? last : started.get(Number(match[1]));
  if (id === undefined || id === null) throw new Error(`line ${number}: ${value} started no session`);
  return { ...args, session_id: id };
}

/** The line of agent-tasks.jsonl that started session `id`. */
function startedLine(started, id) {
  for (const [line, started_] of started) if (started_ === id) return line;
  return null;
}

/** What varies from run to run, masked: session ids, timings, paths under the scratch directory. */
function mask(text, root) {
  return text
    .replaceAll(root, "<root>")
    .replace(/session ID \d+/g, "session ID <id>")
    .replace(/process id \d+/gi, "process id <id>")
    .replace(/Wall time: [\d.]+ seconds/g, "Wall time: <t> seconds")
    .replace(/\(idle [\d.]+ (?:s|min)\)/g, "(idle <t>)")
    .replace(/^\d+\t/gm, "<id>\t")
    .replace(/\tage \d+(?:h\d+m|m\d+s|s)\t/g, "\tage <t>\t")
    .replace(/^Ran (\d+) tests? in [\d.]+s$/gm, "Ran $1 tests in <t>s")
    .replace(/Chunk ID: \w+/g, "Chunk ID: <c>")
    .replace(/\/\S*\/spill\/\S+/g, "<spill>")
    .replace(/Serving HTTP on .*\n?/g, "Serving HTTP on <addr>\n")
    .replace(/\b\d{1,3}(?:\.\d{1,3}){3} - - \[[^\]]+\]/g, "<addr> - - [<date>]");
}

async function replay(settleMs) {
  const dir = scratch("conch-agent-tasks-");
  const { root } = dir;
  try {
    workspace(dir);
    const runtime = await scratchRuntime(dir, settleMs === null ? "" : `settle_ms = ${settleMs}\n`);
    const tools = await runtime.toolSet();
    // When each session's output last arrived, when it exited, and the session a call started.
    const lastOutput = new Map();
    const exitedAt = new Map();
    let startedId;
    const stop = runtime.orchestrator.sessions.observe((event) => {
      if (event.type === "output") lastOutput.set(event.id, performance.now());
      else if (event.type === "exited") exitedAt.set(event.id, performance.now());
      else if (event.type === "started") startedId = event.id;
    });
    const started = new Map();
    let last = null;
    const results = [];
    for (const [index, call] of calls.entries()) {
      const number = index + 1;
      const args = resolve(call.arguments, started, last, number);
      startedId = undefined;
      const begin = performance.now();
      const { text, result } = await tools.call(call.tool, args);
      const end = performance.now();
      const session = call.tool === "write_stdin" ? args.session_id : startedId;
      // A session that exited within its start is still its line's: a later poll is told it ended.
      if (call.tool === "exec_command" && startedId !== undefined) {
        started.set(number, startedId);
        last = startedId;
      }
      const isSessionCall = call.tool === "exec_command" || call.tool === "write_stdin";
      const ready = Math.max(
        begin,
        ...[lastOutput.get(session), exitedAt.get(session)].filter((at) => at !== undefined && at <= end),
      );
      const running = result.running === true;
      results.push({
        number,
        tool: call.tool,
        // Which session's output this call read: the line that started it.
        session: isSessionCall
          ? call.tool === "exec_command"
            ? number
            : startedLine(started, args.session_id)
          : null,
        ms: end - begin,
        idleMs: isSessionCall ? end - ready : 0,
        windowBound: isSessionCall && running && end - begin >= windowOf(call) - 1,
        text: mask(text, root),
      });
    }
    stop();
    await runtime.orchestrator.terminateSessions();
    await runtime.close();
    return results;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

const sum = (values) => values.reduce((a, b) => a + b, 0);
function summarize(results) {
  const totals = (part) => ({
    calls: part.length,
    ms: sum(part.map((r) => r.ms)),
    idleMs: sum(part.map((r) => r.idleMs)),
    windowBoundMs: sum(part.filter((r) => r.windowBound).map((r) => r.ms)),
  });
  const tasks = TASKS.map((task) => ({
    name: task.name,
    ...totals(results.filter((r) => r.number >= task.first && r.number <= task.last)),
  }));
  const all = totals(results);
  return { tasks, ...all, idleShare: all.idleMs / all.ms, windowBoundShare: all.windowBoundMs / all.ms };
}

/**
 * What a run's model read, to compare: a one-shot call's text; a session's output over every call that
 * read it, and how it ended (the last status line).
 */
function outputs(results) {
  const read = new Map();
  for (const r of results) {
    if (r.session === null) {
      read.set(`line ${r.number}`, r.text);
      continue;
    }
    const key = `session started at line ${r.session}`;
    const output = r.text.includes("\nOutput:\n") ? r.text.slice(r.text.indexOf("\nOutput:\n") + 9) : "";
    const status = /^Process (?:running|exited with code -?\d+)/m.exec(r.text)?.[0] ?? r.text;
    const seen = read.get(key) ?? { output: "", status: "" };
    // A poll after the end is told the session exited: it adds nothing the model had not read.
    const ended = /^session \d+ exited with code/.test(r.text);
    read.set(key, { output: seen.output + output, status: ended ? seen.status : status });
  }
  return read;
}

const before = await replay(0);
const after = await replay(null);
const beforeRead = outputs(before);
const afterRead = outputs(after);
const differences = [...beforeRead.keys()].filter(
  (key) => JSON.stringify(beforeRead.get(key)) !== JSON.stringify(afterRead.get(key)),
);
const summary = {
  calls: calls.length,
  before: summarize(before),
  after: summarize(after),
  differences,
};

if (flags.has("--json")) {
  process.stdout.write(`${JSON.stringify(summary)}\n`);
} else {
  const s = (ms) => `${(ms / 1000).toFixed(2)} s`;
  const pct = (share) => `${(share * 100).toFixed(0)} %`;
  console.table(
    [...summary.before.tasks.keys()].map((i) => {
      const b = summary.before.tasks[i];
      const a = summary.after.tasks[i];
      return {
        task: `${b.name} (${b.calls} calls)`,
        "before: wall": s(b.ms),
        "before: idle": s(b.idleMs),
        "after: wall": s(a.ms),
        "after: idle": s(a.idleMs),
      };
    }),
  );
  for (const [name, run] of [
    ["before", summary.before],
    ["after", summary.after],
  ]) {
    console.log(
      `${name}: ${s(run.ms)}, ${pct(run.idleShare)} idle, ${pct(run.windowBoundShare)} in calls that ended at their window`,
    );
  }
  console.log(`after is ${(summary.before.ms / summary.after.ms).toFixed(2)}x faster`);
  if (flags.has("--calls")) {
    console.table(
      before.map((b, i) => ({
        line: b.number,
        tool: b.tool,
        "before ms": b.ms.toFixed(0),
        "before idle ms": b.idleMs.toFixed(0),
        "after ms": after[i].ms.toFixed(0),
        "after idle ms": after[i].idleMs.toFixed(0),
        "after at window": after[i].windowBound ? "yes" : "",
      })),
    );
  }
  console.log(
    differences.length === 0
      ? "both runs read the same outputs: every one-shot text, and every session's output and end " +
          "(session ids and timings masked)"
      : `the outputs differ: ${differences.join(", ")}`,
  );
  for (const key of differences.slice(0, 5)) {
    console.log(
      `--- ${key}, before:\n${JSON.stringify(beforeRead.get(key))}\n--- after:\n${JSON.stringify(afterRead.get(key))}`,
    );
  }
}
