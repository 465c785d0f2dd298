// `pnpm test`: every package's suite (turbo, two at a time on two cores), the tooling's own tests, and
// the security suites again as uid 65534. Each step runs even when one before it failed, and the failed
// tests of all of them are listed once more at the very end (the shared vitest config appends them to
// the file CONCH_TEST_FAILURES names), so the tail of a long log says what failed. Exits 1 if any did.
//   node tooling/scripts/test.mjs [--no-unprivileged] [--force]
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const args = process.argv.slice(2);
for (const arg of args) {
  if (arg !== "--no-unprivileged" && arg !== "--force") {
    console.error(`test: unknown argument ${JSON.stringify(arg)}; expected --no-unprivileged or --force`);
    process.exit(2);
  }
}

const dir = mkdtempSync(join(tmpdir(), "conch-test-failures-"));
const failures = join(dir, "failures.txt");
const env = { ...process.env, CONCH_TEST_FAILURES: failures };
const bin = (name) => join(ROOT, "node_modules", ".bin", name);

const steps = [
  {
    name: "the packages' suites",
    argv: [
      bin("turbo"),
      "run",
      "test",
      "--continue",
      "--concurrency=100%",
      ...(args.includes("--force") ? ["--force"] : []),
    ],
  },
  { name: "the tooling's tests", argv: [bin("vitest"), "run", "--root", "tooling"] },
];
if (!args.includes("--no-unprivileged")) {
  steps.push({
    name: "the security suites as uid 65534",
    argv: [process.execPath, join(ROOT, "tooling", "scripts", "test-unprivileged.mjs")],
  });
}

const failed = [];
try {
  for (const step of steps) {
    const [command, ...rest] = step.argv;
    const run = spawnSync(command, rest, { cwd: ROOT, stdio: "inherit", env });
    if (run.error !== undefined) console.error(`test: ${step.name} could not start: ${run.error.message}`);
    if (run.status !== 0) failed.push(step.name);
  }
  if (failed.length > 0) {
    console.error(`\ntest: FAILED: ${failed.join("; ")}`);
    const listed = existsSync(failures) ? readFileSync(failures, "utf8").trim() : "";
    console.error(
      listed === ""
        ? "test: no failed test was recorded (a build, a task or a runner failed: see its output above)"
        : `test: the failed tests, again:\n\n${listed}`,
    );
  } else {
    console.log(`\ntest: all passed (${steps.map((s) => s.name).join("; ")})`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exit(failed.length > 0 ? 1 : 0);
