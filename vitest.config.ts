import { defineConfig } from "vitest/config";

// Root config for `vitest` in watch mode across the workspace; CI runs each package under turbo.
export default defineConfig({
  test: { projects: ["packages/*", "apps/*"] },
});
