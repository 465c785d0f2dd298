// Plain JavaScript for the reason vitest.js gives. Where CONCH_TEST_FAILURES names a file, each failed
// test (and each error outside a test) is appended to it as a few lines: the package, the file, the
// test's name and the first lines of its error. `pnpm test` prints that file after every package ran, so
// the end of a long CI log names what failed (turbo interleaves the packages' output, and a log that is
// cut keeps only its end).
import { appendFileSync } from "node:fs";
import { basename, relative } from "node:path";

const ERROR_LINES = 12;

function errorText(error) {
  const text = String(error?.stack ?? error?.message ?? error);
  // The message and the test's own frames; vitest's and Node's frames say nothing here.
  const lines = text
    .split("\n")
    .filter((line) => !/^\s+at .*(node_modules|node:internal|<anonymous>)/.test(line));
  return lines.slice(0, ERROR_LINES).join("\n");
}

export class FailureReporter {
  onInit(vitest) {
    this.root = vitest.config.root;
  }

  onTestRunEnd(testModules, unhandledErrors) {
    const file = process.env.CONCH_TEST_FAILURES;
    if (file === undefined || file === "") return;
    const where = basename(this.root ?? process.cwd());
    const lines = [];
    for (const module of testModules) {
      const path = relative(this.root ?? process.cwd(), module.moduleId);
      for (const error of module.errors?.() ?? []) {
        lines.push(`FAIL ${where} ${path} (the file itself)`, errorText(error), "");
      }
      for (const test of module.children.allTests()) {
        const result = test.result();
        if (result.state !== "failed") continue;
        lines.push(`FAIL ${where} ${path} > ${test.fullName}`);
        for (const error of result.errors ?? []) lines.push(errorText(error));
        lines.push("");
      }
    }
    for (const error of unhandledErrors ?? []) {
      lines.push(`FAIL ${where} (an error outside any test)`, errorText(error), "");
    }
    if (lines.length > 0) appendFileSync(file, `${lines.join("\n")}\n`);
  }
}
