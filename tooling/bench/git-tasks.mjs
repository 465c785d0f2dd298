// Replays an agent's ordinary git work (git-tasks.jsonl: two commits, an amend, an interactive rebase,
// a branch and a tag) through the codex tools under the default policy (on-request, workspace-write),
// as a model does: a call the sandbox denies is made again with sandbox_permissions "require_escalated",
// which asks the person. Counts the approvals asked for and the calls that failed, and checks on the
// host that the work happened.
//
//   node tooling/bench/git-tasks.mjs [--json]
import { execFileSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { scratch, scratchRuntime } from "./scratch.mjs";

const file = fileURLToPath(new URL("git-tasks.jsonl", import.meta.url));
const calls = readFileSync(file, "utf8")
  .split("\n")
  .filter((line) => line.trim() !== "")
  .map((line) => JSON.parse(line));

/** A repository like an agent's, with the person's git identity in the home's .gitconfig. */
function workspace({ cwd, home }) {
  writeFileSync(join(home, ".gitconfig"), "[user]\n\tname = Agent\n\temail = agent@example.com\n");
  writeFileSync(join(cwd, "calc.py"), "def add(a, b):\n    return a - b\n");
  writeFileSync(join(cwd, "README.md"), "# calc\n");
  const git = (...args) =>
    execFileSync("git", args, { cwd, env: { ...process.env, HOME: home }, stdio: "ignore" });
  git("init", "-q", "-b", "main");
  git("add", "-A");
  git("commit", "-qm", "calc: add()");
}

// Not under /tmp: the sandbox gives commands a private /tmp, where the home's .gitconfig would be gone.
const tmpdir = process.env.TMPDIR;
process.env.TMPDIR = "/var/tmp";
const dir = scratch("conch-git-tasks-");
if (tmpdir === undefined) delete process.env.TMPDIR;
else process.env.TMPDIR = tmpdir;
let approvals = 0;
let failed = 0;
const begin = performance.now();
try {
  workspace(dir);
  const runtime = await scratchRuntime(dir, "");
  const approver = {
    async request() {
      approvals += 1;
      return "approved";
    },
  };
  const tools = await runtime.toolSet();
  for (const call of calls) {
    const context = { approver };
    let { result, text } = await tools.call(call.tool, call.arguments, context);
    if (result.denied === true) {
      ({ result, text } = await tools.call(
        call.tool,
        {
          ...call.arguments,
          sandbox_permissions: "require_escalated",
          justification: "git needs to write .git",
        },
        context,
      ));
    }
    if (result.status !== "ok" || result.exit_code !== 0) {
      failed += 1;
      if (process.argv.includes("--calls")) console.error(JSON.stringify(call.arguments), text.slice(0, 600));
    }
  }
  const host = (...args) => execFileSync("git", args, { cwd: dir.cwd, encoding: "utf8" });
  // Two commits on the first: the README's, amended, squashed into the fix by the interactive rebase.
  const log = host("log", "--format=%s", "main");
  const done =
    log === "calc: add adds\ncalc: add()\n" &&
    host("log", "-1", "--format=%B").includes("README: say negatives work") &&
    host("tag") === "v0.2\n" &&
    host("rev-parse", "release") === host("rev-parse", "main");
  await runtime.orchestrator.terminateSessions();
  await runtime.close();
  const summary = { calls: calls.length, approvals, failed, done, ms: performance.now() - begin };
  if (process.argv.includes("--json")) console.log(JSON.stringify(summary));
  else {
    console.log(
      `${summary.calls} git calls under the default policy: ${approvals} approval(s), ${failed} failed`,
    );
    console.log(`work on the host as expected: ${done} (git log: ${JSON.stringify(log)})`);
  }
} finally {
  rmSync(dir.root, { recursive: true, force: true });
}
