// Plain JavaScript, not TypeScript: Vite bundles a vitest.config.ts but leaves every bare import to
// Node, which loads this file natively, and Node 20 cannot load TypeScript. The types are vitest.d.ts.
import { defineConfig } from "vitest/config";
import { FailureReporter } from "./failure-reporter.js";

const CONDITIONS = ["@conch/source", "import", "module", "node", "default"];

// Tests read the live TypeScript source of sibling packages through the `@conch/source` export
// condition, so they never depend on a stale build.
export const conchVitestConfig = defineConfig({
  resolve: { conditions: CONDITIONS },
  ssr: { resolve: { conditions: CONDITIONS } },
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 30_000,
    reporters: ["default", new FailureReporter()],
  },
});
