// The security suites again as an unprivileged user. CI runs as root, most users do not, and several
// escapes exist for only one of the two (a host sysctl is writable only by root; a file mode stops only
// another uid). Run as root, this re-runs the suites that attempt escapes as uid/gid 65534 (nobody) with
// a home of their own; run as anyone else, the suites already ran unprivileged and there is nothing to do.
import { spawnSync } from "node:child_process";
import { appendFileSync, chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const NOBODY = 65534;

// Each entry: a package directory and the test files, relative to it, that attempt escapes for real.
const SUITES = [
  { dir: "apps/cli", files: ["test/security"] },
  {
    dir: "apps/agent",
    files: ["test/agent-stdio.test.ts", "test/agent-ws.test.ts", "test/agent-attacks.test.ts"],
  },
  { dir: "packages/sandbox-linux", files: ["test"] },
  { dir: "packages/sandbox-core", files: ["test", "src"] },
];

if (process.platform !== "linux") {
  console.log("test-unprivileged: not Linux, no uid to switch to; the suites ran as this user");
  process.exit(0);
}
if (process.getuid?.() !== 0) {
  console.log(`test-unprivileged: the suites already ran as uid ${process.getuid?.()}; nothing to repeat`);
  process.exit(0);
}
const setpriv = spawnSync("setpriv", ["--version"], { stdio: "ignore" });
if (setpriv.error !== undefined || setpriv.status !== 0) {
  console.error(
    "test-unprivileged: setpriv (util-linux) is needed to run the suites as uid 65534: apt-get install util-linux",
  );
  process.exit(1);
}

// Not under /tmp: sandboxed commands get a private /tmp, and the suites' workspaces live in /var/tmp too.
const home = mkdtempSync("/var/tmp/conch-nobody-home-");
chownSync(home, NOBODY, NOBODY);
const vitest = join(ROOT, "node_modules", "vitest", "vitest.mjs");
let failed = 0;
// The caller's list of failed tests (tooling/scripts/test.mjs), with "as uid 65534" on each entry.
function copyFailures(dir) {
  const mine = join(home, "failures.txt");
  const theirs = process.env.CONCH_TEST_FAILURES;
  if (!existsSync(mine)) return;
  const text = readFileSync(mine, "utf8").replaceAll(/^FAIL /gm, `FAIL (as uid ${NOBODY}, ${dir}) `);
  rmSync(mine, { force: true });
  if (theirs !== undefined && theirs !== "") appendFileSync(theirs, text);
}
try {
  for (const suite of SUITES) {
    console.log(`\ntest-unprivileged: ${suite.dir} ${suite.files.join(" ")} as uid ${NOBODY}`);
    // `--configLoader runner`: the default loader writes a bundled config beside vitest.config.ts, in a
    // directory this uid cannot write.
    const run = spawnSync(
      "setpriv",
      [
        `--reuid=${NOBODY}`,
        `--regid=${NOBODY}`,
        "--clear-groups",
        "--",
        process.execPath,
        vitest,
        "run",
        "--configLoader",
        "runner",
        ...suite.files,
      ],
      {
        cwd: join(ROOT, suite.dir),
        stdio: "inherit",
        env: {
          ...process.env,
          HOME: home,
          XDG_CACHE_HOME: join(home, ".cache"),
          USER: "nobody",
          LOGNAME: "nobody",
          // The failed tests go to a file this uid can write; copied to the caller's below.
          CONCH_TEST_FAILURES: join(home, "failures.txt"),
        },
      },
    );
    if (run.status !== 0) failed += 1;
    copyFailures(suite.dir);
  }
} finally {
  rmSync(home, { recursive: true, force: true });
}
if (failed > 0) {
  console.error(`test-unprivileged: ${failed} of ${SUITES.length} suites failed as uid ${NOBODY}`);
  process.exit(1);
}
console.log(`test-unprivileged: all ${SUITES.length} suites passed as uid ${NOBODY}`);
