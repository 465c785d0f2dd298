import { defineConfig } from "vitest/config";
import { FailureReporter } from "./test-config/src/failure-reporter.js";

// Tests of the repository scripts in tooling/scripts: `npx vitest run --root tooling`. The root
// vitest.config.ts lists only workspace packages as projects, so these stay out of it.
export default defineConfig({
  test: { include: ["test/**/*.test.ts"], reporters: ["default", new FailureReporter()] },
});
