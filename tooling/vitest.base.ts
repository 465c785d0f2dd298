import { defineConfig } from "vitest/config";

// Tests read the live TypeScript source of sibling packages through the `@conch/source` export
// condition, so they never depend on a stale build.
export const conchVitestConfig: ReturnType<typeof defineConfig> = defineConfig({
  resolve: { conditions: ["@conch/source", "import", "module", "node", "default"] },
  ssr: { resolve: { conditions: ["@conch/source", "import", "module", "node", "default"] } },
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 30_000,
  },
});
