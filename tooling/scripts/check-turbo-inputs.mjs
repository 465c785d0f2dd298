#!/usr/bin/env node
// Proves turbo's task hashes see the files shared from outside the packages: in a throwaway copy of the
// working tree, edit each such file and check, with `turbo run … --dry=json` before and after, that
// exactly the tasks it feeds get a new hash (and that an edit feeding none changes none).
// Usage: node tooling/scripts/check-turbo-inputs.mjs
import { execFileSync } from "node:child_process";
import {
  appendFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { compareHashes, taskHashes } from "./turbo-inputs.mjs";
import { commitAll, copyWorkingTree } from "./working-tree.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));
const TASKS = ["build", "typecheck", "test"];

/** @typedef {import("./turbo-inputs.mjs").Verdict} Verdict */
// What feeds a test or a typecheck must change its hash. Builds are left to turbo for the test config:
// the root package devDepends on workspace packages (for tooling/bench), so turbo folds every file of
// their dependency closure, the test config included, into its global hash, and rebuilds. Slow, not stale.
/** @type {(_taskId: string, task: string) => Verdict} */
const TESTS_AND_TYPECHECKS = (_taskId, task) =>
  task === "test" || task === "typecheck" ? "change" : "either";

/** @type {{file: string, text: string, edit: string, expect: (taskId: string, task: string) => Verdict}[]} */
const EDITS = [
  {
    file: "tsconfig.base.json",
    text: "\n",
    edit: "tsconfig.base.json (every package's compiler options)",
    expect: () => "change",
  },
  {
    file: "tooling/test-config/src/vitest.js",
    text: "\n// edited\n",
    edit: "tooling/test-config (the vitest config every package's tests load)",
    expect: TESTS_AND_TYPECHECKS,
  },
  {
    file: "tooling/test-config/corpus/README.md",
    text: "\nedited\n",
    edit: "tooling/test-config/corpus (the vendored corpora tests read)",
    expect: TESTS_AND_TYPECHECKS,
  },
  {
    file: "docs/security.md",
    text: "\nedited\n",
    edit: "docs/ (no task's input: the control)",
    expect: () => "keep",
  },
];

const copy = mkdtempSync(join(tmpdir(), "conch-turbo-inputs-"));
try {
  copyWorkingTree(root, copy);
  // turbo hashes through git, as in a real checkout; node_modules only so it finds its own binary.
  commitAll(copy);
  if (!existsSync(join(copy, "node_modules")))
    symlinkSync(join(root, "node_modules"), join(copy, "node_modules"));

  const dry = () => {
    const out = execFileSync(join(root, "node_modules/.bin/turbo"), ["run", ...TASKS, "--dry=json"], {
      cwd: copy,
      encoding: "utf8",
      env: { ...process.env, TURBO_TELEMETRY_DISABLED: "1", TURBO_NO_UPDATE_NOTIFIER: "1" },
      maxBuffer: 64 * 1024 * 1024,
    });
    return taskHashes(JSON.parse(out));
  };

  const before = dry();
  const counts = TASKS.map((task) => `${[...before.values()].filter((t) => t.task === task).length} ${task}`);
  let failed = 0;
  for (const { file, text, edit, expect } of EDITS) {
    const path = join(copy, file);
    const original = readFileSync(path);
    appendFileSync(path, text);
    const { changed, problems } = compareHashes({ edit, expect }, before, dry());
    writeFileSync(path, original);
    if (problems.length === 0) console.log(`ok   ${edit}: ${changed} of ${before.size} hashes changed`);
    else {
      failed++;
      console.log(`FAIL ${edit}`);
      for (const line of problems) console.log(`     ${line}`);
    }
  }
  if (failed > 0) {
    console.log(
      `turbo inputs: ${failed} edit(s) not seen as they must be; fix turbo.json (globalDependencies, inputs)`,
    );
    process.exitCode = 1;
  } else {
    console.log(`turbo inputs ok: ${EDITS.length} edits over ${counts.join(", ")} tasks`);
  }
} finally {
  rmSync(copy, { recursive: true, force: true });
}
