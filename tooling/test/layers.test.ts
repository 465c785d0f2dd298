import { describe, expect, it } from "vitest";
import { checkLayers } from "../scripts/layers.mjs";

type Deps = Record<string, string>;
interface Fixture {
  dependencies?: Deps;
  devDependencies?: Deps;
  peerDependencies?: Deps;
  scripts?: Record<string, string>;
  bin?: Record<string, string>;
  files?: Record<string, string>;
}

const APPS = new Set(["@conch/cli", "@conch/daemon", "@conch/other-app"]);

function pkg(name: string, fixture: Fixture = {}) {
  const { files = {}, ...deps } = fixture;
  const base = name.replace("@conch/", "");
  const dir =
    name === "@conch/test-config" ? "tooling/test-config" : `${APPS.has(name) ? "apps" : "packages"}/${base}`;
  return {
    name,
    dir,
    manifest: { name, ...deps },
    files: Object.entries(files).map(([path, text]) => ({ path, text })),
  };
}

const check = (...packages: ReturnType<typeof pkg>[]): string[] => checkLayers({ packages });

describe("checkLayers", () => {
  it("passes a package that uses exactly its allowed lower-layer dependencies", () => {
    expect(
      check(
        pkg("@conch/protocol", { files: { "src/index.ts": 'import { z } from "zod";\n' } }),
        pkg("@conch/approval", {
          dependencies: { "@conch/protocol": "workspace:^", "@conch/arity-rules": "workspace:^" },
          files: {
            "src/index.ts": [
              'import { ExecRequest } from "@conch/protocol";',
              'import type { Parsed } from "@conch/arity-rules";',
              'export { splitCommands } from "@conch/arity-rules";',
              'export * from "@conch/protocol/internal";',
              'const lazy = () => import("@conch/arity-rules");',
              'import "@conch/approval";',
            ].join("\n"),
          },
        }),
        pkg("@conch/orchestrator", {
          dependencies: {
            "@conch/protocol": "workspace:^",
            "@conch/approval": "workspace:^",
            "@conch/sandbox-linux": "workspace:^",
          },
          files: { "src/index.ts": 'import { bwrap } from "@conch/sandbox-linux";\n' },
        }),
      ),
    ).toEqual([]);
  });

  it("fails a dependency on a package of the same layer, declared and imported", () => {
    expect(
      check(
        pkg("@conch/exec-core", {
          dependencies: { "@conch/protocol": "workspace:^", "@conch/shell-detect": "workspace:^" },
          files: { "src/spawn.ts": 'import { detectShell } from "@conch/shell-detect";\n' },
        }),
      ),
    ).toEqual([
      "packages/exec-core/package.json: @conch/exec-core (layer 1) depends on @conch/shell-detect (layer 1) in dependencies: packages in the same layer must not depend on each other (DESIGN.md section 2)",
      "packages/exec-core/src/spawn.ts: @conch/exec-core (layer 1) imports @conch/shell-detect (layer 1): packages in the same layer must not depend on each other (DESIGN.md section 2)",
    ]);
  });

  it("fails a dependency on a higher layer", () => {
    expect(
      check(
        pkg("@conch/protocol", {
          dependencies: { "@conch/unified-exec": "workspace:^" },
          files: { "src/index.ts": 'export type { Session } from "@conch/unified-exec";\n' },
        }),
      ),
    ).toEqual([
      "packages/protocol/package.json: @conch/protocol (layer 0) depends on @conch/unified-exec (layer 2) in dependencies: a package may depend only on lower layers (DESIGN.md section 2)",
      "packages/protocol/src/index.ts: @conch/protocol (layer 0) imports @conch/unified-exec (layer 2): a package may depend only on lower layers (DESIGN.md section 2)",
    ]);
  });

  it("fails a declared dependency that breaks the layers even when nothing imports it", () => {
    expect(
      check(pkg("@conch/sandbox-core", { devDependencies: { "@conch/sandbox-linux": "workspace:*" } })),
    ).toEqual([
      "packages/sandbox-core/package.json: @conch/sandbox-core (layer 2) depends on @conch/sandbox-linux (layer 3) in devDependencies: a package may depend only on lower layers (DESIGN.md section 2)",
    ]);
  });

  it("fails a lower-layer dependency that is not in the package's allowed list", () => {
    expect(
      check(
        pkg("@conch/sandbox-linux", {
          dependencies: { "@conch/sandbox-core": "workspace:^", "@conch/exec-core": "workspace:^" },
          files: { "src/bwrap.ts": 'import type { RunOptions } from "@conch/exec-core";\n' },
        }),
        pkg("@conch/approval", {
          dependencies: { "@conch/protocol": "workspace:^" },
          files: { "src/index.ts": 'import { run } from "@conch/exec-core";\n' },
        }),
      ),
    ).toEqual([
      "packages/approval/src/index.ts: @conch/approval (layer 2) imports @conch/exec-core (layer 1): not among its allowed internal dependencies (protocol, arity-rules, exec-policy) in DESIGN.md section 2",
      "packages/sandbox-linux/package.json: @conch/sandbox-linux (layer 3) depends on @conch/exec-core (layer 1) in dependencies: not among its allowed internal dependencies (protocol, sandbox-core) in DESIGN.md section 2",
      "packages/sandbox-linux/src/bwrap.ts: @conch/sandbox-linux (layer 3) imports @conch/exec-core (layer 1): not among its allowed internal dependencies (protocol, sandbox-core) in DESIGN.md section 2",
    ]);
  });

  it("fails an import the package.json does not declare, type-only imports included", () => {
    expect(
      check(
        pkg("@conch/exec-core", {
          files: {
            "src/run.ts": 'import { ExecRequest } from "@conch/protocol";\n',
            "src/types.ts": 'import type { ExecResult } from "@conch/protocol";\n',
            "src/lazy.ts": 'type P = typeof import("@conch/protocol");\n',
            "test/run.test.ts": 'import { z } from "@conch/protocol";\n',
          },
        }),
      ),
    ).toEqual([
      "packages/exec-core/src/lazy.ts: @conch/exec-core (layer 1) imports @conch/protocol (layer 0): not declared in package.json dependencies",
      "packages/exec-core/src/run.ts: @conch/exec-core (layer 1) imports @conch/protocol (layer 0): not declared in package.json dependencies",
      "packages/exec-core/src/types.ts: @conch/exec-core (layer 1) imports @conch/protocol (layer 0): not declared in package.json dependencies",
      "packages/exec-core/test/run.test.ts: @conch/exec-core (layer 1) imports @conch/protocol (layer 0): not declared in package.json dependencies or devDependencies",
    ]);
  });

  it("lets tests and type-only imports use devDependencies, but not runtime source", () => {
    expect(
      check(
        pkg("@conch/unified-exec", {
          devDependencies: { "@conch/exec-core": "workspace:*", "@conch/protocol": "workspace:*" },
          files: {
            "src/types.ts": 'import type { RunResult } from "@conch/exec-core";\n',
            "src/session.test.ts": 'import { run } from "@conch/exec-core";\n',
            "test/pty.test.ts": 'import { run } from "@conch/exec-core";\n',
            "src/session.ts": 'import { type ExecRequest } from "@conch/protocol";\n',
          },
        }),
      ),
    ).toEqual([
      "packages/unified-exec/src/session.ts: @conch/unified-exec (layer 2) imports @conch/protocol (layer 0): imported at runtime by non-test source but declared only in devDependencies: move it to dependencies",
    ]);
  });

  it("ignores imports in comments and strings", () => {
    expect(
      check(
        pkg("@conch/protocol", {
          files: {
            "src/index.ts": [
              '// import { run } from "@conch/exec-core";',
              "/* export * from '@conch/orchestrator';",
              '   const m = await import("@conch/approval"); */',
              "const doc = \"import { x } from '@conch/cli'\";",
              'const tpl = `import("@conch/daemon")`;',
              'const url = "https://example.com"; // import "@conch/sandbox-core"',
              'export const re = /\\/\\* import "@conch\\/arity-rules" /;',
            ].join("\n"),
          },
        }),
      ),
    ).toEqual([]);
  });

  it("lets apps use any package, but not another app", () => {
    expect(
      check(
        pkg("@conch/daemon", {
          dependencies: {
            "@conch/orchestrator": "workspace:^",
            "@conch/protocol": "workspace:^",
            "@conch/sandbox-linux": "workspace:^",
            "@conch/cli": "workspace:^",
          },
          files: {
            "src/main.ts": [
              'import { ToolOrchestrator } from "@conch/orchestrator";',
              'import { bwrapCommand } from "@conch/sandbox-linux";',
              'import { parse } from "@conch/protocol";',
            ].join("\n"),
          },
        }),
      ),
    ).toEqual([
      "apps/daemon/package.json: @conch/daemon (app) depends on @conch/cli (app) in dependencies: apps must not depend on each other (DESIGN.md section 2)",
    ]);
  });

  it("takes the workspace packages a bundled app imports from devDependencies, and only from there", () => {
    expect(
      check(
        pkg("@conch/cli", {
          dependencies: { "@conch/protocol": "workspace:^", "web-tree-sitter": "^0.25.10" },
          devDependencies: { "@conch/orchestrator": "workspace:*" },
          files: {
            "src/main.ts": [
              'import { ToolOrchestrator } from "@conch/orchestrator";',
              'import { parse } from "@conch/protocol";',
              'import { run } from "@conch/exec-core";',
            ].join("\n"),
          },
        }),
      ),
    ).toEqual([
      "apps/cli/package.json: @conch/cli (app) depends on @conch/protocol (layer 0) in dependencies: this app's build bundles it into dist, so a consumer must not install it: declare it in devDependencies",
      "apps/cli/src/main.ts: @conch/cli (app) imports @conch/exec-core (layer 1): not declared in package.json devDependencies (it is bundled)",
    ]);
  });

  it("fails a workspace package or an import that is not in the layer table", () => {
    expect(
      check(
        pkg("@conch/other-app", { dependencies: { "@conch/protocol": "workspace:^" } }),
        pkg("@conch/exec-core", {
          dependencies: { "@conch/protocol": "workspace:^" },
          files: { "src/index.ts": 'import { x } from "@conch/telemetry";\n' },
        }),
      ),
    ).toEqual([
      "apps/other-app/package.json: @conch/other-app is not in the layer table: add it to DESIGN.md section 2 and tooling/scripts/layers.mjs",
      "packages/exec-core/src/index.ts: @conch/exec-core (layer 1) imports @conch/telemetry (unknown): @conch/telemetry is not in the layer table: add it to DESIGN.md section 2 and tooling/scripts/layers.mjs",
    ]);
  });

  it("fails a relative import that leaves the package, and checks the layer of the package it lands in", () => {
    expect(
      check(
        pkg("@conch/exec-core", {
          dependencies: { "@conch/protocol": "workspace:^" },
          files: {
            "src/spawn.ts": [
              'import { ToolOrchestrator } from "../../orchestrator/src/index.js";',
              'import { ExecRequest } from "../../protocol/src/index.js";',
              'import { inside } from "./inside.js";',
              'import { up } from "../src/inside.js";',
              'import manifest from "../package.json" with { type: "json" };',
            ].join("\n"),
            "test/run.test.ts": [
              'import { run } from "../src/index.js";',
              'import { root } from "../../../vitest.config.ts";',
              'import { abs } from "/work/main/packages/protocol/src/index.ts";',
            ].join("\n"),
          },
        }),
        pkg("@conch/orchestrator"),
        pkg("@conch/protocol"),
      ),
    ).toEqual([
      'packages/exec-core/src/spawn.ts: @conch/exec-core (layer 1) imports "../../orchestrator/src/index.js" (packages/orchestrator/src/index.js) by a relative path into @conch/orchestrator (layer 4): another package is imported only by name, through its exports',
      'packages/exec-core/src/spawn.ts: @conch/exec-core (layer 1) imports "../../protocol/src/index.js" (packages/protocol/src/index.js) by a relative path into @conch/protocol (layer 0): another package is imported only by name, through its exports',
      "packages/exec-core/src/spawn.ts: @conch/exec-core (layer 1) imports @conch/orchestrator (layer 4): a package may depend only on lower layers (DESIGN.md section 2)",
      'packages/exec-core/test/run.test.ts: @conch/exec-core (layer 1) imports "../../../vitest.config.ts" (vitest.config.ts) by a relative path that leaves the package: a package reaches only its own files and its dependencies',
      'packages/exec-core/test/run.test.ts: @conch/exec-core (layer 1) imports "/work/main/packages/protocol/src/index.ts", an absolute path: a package reaches only its own files and its dependencies',
    ]);
  });

  it("lets an app's test run another app's built bin, and nothing else of it", () => {
    expect(
      check(
        pkg("@conch/daemon", {
          files: {
            "test/e2e.test.ts": 'const CONCH = new URL("../../cli/dist/bin.js", import.meta.url);\n',
            "test/other.test.ts": 'const ARGS = new URL("../../cli/dist/args.js", import.meta.url);\n',
            "src/main.ts": 'const CONCH = new URL("../../cli/dist/bin.js", import.meta.url);\n',
          },
        }),
        pkg("@conch/cli", { bin: { conch: "./dist/bin.js" } }),
        pkg("@conch/protocol", {
          files: {
            "test/x.test.ts": 'const CONCH = new URL("../../../apps/cli/dist/bin.js", import.meta.url);\n',
          },
        }),
      ),
    ).toEqual([
      'apps/daemon/src/main.ts: @conch/daemon (app) reads "../../cli/dist/bin.js" (apps/cli/dist/bin.js) by a relative path into @conch/cli (app): another package is imported only by name, through its exports',
      'apps/daemon/test/other.test.ts: @conch/daemon (app) reads "../../cli/dist/args.js" (apps/cli/dist/args.js) by a relative path into @conch/cli (app): another package is imported only by name, through its exports',
      'packages/protocol/test/x.test.ts: @conch/protocol (layer 0) reads "../../../apps/cli/dist/bin.js" (apps/cli/dist/bin.js) by a relative path into @conch/cli (app): another package is imported only by name, through its exports',
    ]);
  });

  it("fails any reach into tooling/: imports, files read by URL, and package scripts", () => {
    expect(
      check(
        pkg("@conch/approval", {
          scripts: { test: "vitest run", bench: "node ../../tooling/bench/run.mjs --only approval" },
          files: {
            "vitest.config.ts": 'import { conchVitestConfig } from "../../tooling/vitest.base.ts";\n',
            "test/corpus.test.ts": [
              'const url = new URL("../../../tooling/corpus/cases.json", import.meta.url);',
              'const fixture = new URL("./fixtures/a.json", import.meta.url);',
              'const elsewhere = new URL("../../../tooling/corpus/cases.json", "file:///");',
            ].join("\n"),
          },
        }),
      ),
    ).toEqual([
      'packages/approval/package.json: @conch/approval (layer 2) script "bench" reaches tooling/bench/run.mjs, outside the package: run a dependency\'s bin instead',
      'packages/approval/test/corpus.test.ts: @conch/approval (layer 2) reads "../../../tooling/corpus/cases.json" (tooling/corpus/cases.json) in tooling/: packages never reach into tooling/; what tests share is @conch/test-config, imported by name',
      'packages/approval/vitest.config.ts: @conch/approval (layer 2) imports "../../tooling/vitest.base.ts" (tooling/vitest.base.ts) in tooling/: packages never reach into tooling/; what tests share is @conch/test-config, imported by name',
    ]);
  });

  it("reads dynamic imports, require, resolve calls, vitest mocks and re-exports", () => {
    expect(
      check(
        pkg("@conch/sandbox-core", {
          dependencies: { "@conch/protocol": "workspace:^" },
          files: {
            "src/lazy.ts": [
              'const orchestrator = await import("@conch/orchestrator");',
              "const tpl = await import(`@conch/unified-exec`);",
              'const wasm = createRequire(import.meta.url).resolve("@conch/arity-rules/grammar.wasm");',
              'const where = import.meta.resolve("@conch/shell-detect");',
              "const computed = await import(name);",
            ].join("\n"),
            "src/index.ts": [
              'export { ExecRequest } from "@conch/protocol";',
              'export * from "@conch/exec-core";',
              'export * as approval from "@conch/approval";',
            ].join("\n"),
            "src/legacy.cts": [
              'const linux = require("@conch/sandbox-linux");',
              'import cli = require("@conch/cli");',
              'const resolved = require.resolve("@conch/daemon");',
            ].join("\n"),
            "test/mock.test.ts": 'vi.mock("@conch/approval", () => ({}));\n',
          },
        }),
      ),
    ).toEqual([
      "packages/sandbox-core/src/index.ts: @conch/sandbox-core (layer 2) imports @conch/approval (layer 2): packages in the same layer must not depend on each other (DESIGN.md section 2)",
      "packages/sandbox-core/src/index.ts: @conch/sandbox-core (layer 2) imports @conch/exec-core (layer 1): not among its allowed internal dependencies (protocol) in DESIGN.md section 2",
      "packages/sandbox-core/src/lazy.ts: @conch/sandbox-core (layer 2) imports @conch/arity-rules (layer 1): not among its allowed internal dependencies (protocol) in DESIGN.md section 2",
      "packages/sandbox-core/src/lazy.ts: @conch/sandbox-core (layer 2) imports @conch/orchestrator (layer 4): a package may depend only on lower layers (DESIGN.md section 2)",
      "packages/sandbox-core/src/lazy.ts: @conch/sandbox-core (layer 2) imports @conch/shell-detect (layer 1): not among its allowed internal dependencies (protocol) in DESIGN.md section 2",
      "packages/sandbox-core/src/lazy.ts: @conch/sandbox-core (layer 2) imports @conch/unified-exec (layer 2): packages in the same layer must not depend on each other (DESIGN.md section 2)",
      "packages/sandbox-core/src/legacy.cts: @conch/sandbox-core (layer 2) imports @conch/cli (app): a package may depend only on lower layers (DESIGN.md section 2)",
      "packages/sandbox-core/src/legacy.cts: @conch/sandbox-core (layer 2) imports @conch/daemon (app): a package may depend only on lower layers (DESIGN.md section 2)",
      "packages/sandbox-core/src/legacy.cts: @conch/sandbox-core (layer 2) imports @conch/sandbox-linux (layer 3): a package may depend only on lower layers (DESIGN.md section 2)",
      "packages/sandbox-core/test/mock.test.ts: @conch/sandbox-core (layer 2) imports @conch/approval (layer 2): packages in the same layer must not depend on each other (DESIGN.md section 2)",
    ]);
  });

  it("tells type-only imports from runtime ones in every form, JSDoc in JavaScript included", () => {
    expect(
      check(
        pkg("@conch/unified-exec", {
          devDependencies: { "@conch/exec-core": "workspace:*" },
          files: {
            "src/types.ts": [
              'import type { RunResult } from "@conch/exec-core";',
              'export type { ExecRequest } from "@conch/exec-core";',
              'type Lazy = typeof import("@conch/exec-core");',
              'type Member = import("@conch/exec-core").RunResult;',
              'import type run = require("@conch/exec-core");',
              '/** @type {import("@conch/orchestrator").Tool} */',
              "export type T = RunResult;",
            ].join("\n"),
            "src/runtime.ts": [
              'import { type RunResult } from "@conch/exec-core";',
              'const later = import("@conch/exec-core").then((m) => m.run);',
            ].join("\n"),
            "src/helper.mjs": [
              '/** @type {import("@conch/exec-core").RunResult} */',
              "let result;",
              '/** @import { ExecRequest } from "@conch/exec-core" */',
              '/** @param {import("@conch/orchestrator").Tool} tool */',
              "export const use = (tool) => tool;",
            ].join("\n"),
          },
        }),
      ),
    ).toEqual([
      "packages/unified-exec/src/helper.mjs: @conch/unified-exec (layer 2) imports @conch/orchestrator (layer 4): a package may depend only on lower layers (DESIGN.md section 2)",
      "packages/unified-exec/src/runtime.ts: @conch/unified-exec (layer 2) imports @conch/exec-core (layer 1): imported at runtime by non-test source but declared only in devDependencies: move it to dependencies",
    ]);
  });

  it("scans the config files at the package root as dev files", () => {
    expect(
      check(
        pkg("@conch/orchestrator", {
          devDependencies: { "@conch/test-config": "workspace:*" },
          files: {
            "vitest.config.ts": 'import { conchVitestConfig } from "@conch/test-config/vitest";\n',
            "build.mjs": 'import { bundle } from "@conch/cli/build";\n',
            "tsdown.config.ts": 'import { entries } from "@conch/protocol/entries";\n',
          },
        }),
      ),
    ).toEqual([
      "packages/orchestrator/build.mjs: @conch/orchestrator (layer 4) imports @conch/cli (app): a package may depend only on lower layers (DESIGN.md section 2)",
      "packages/orchestrator/tsdown.config.ts: @conch/orchestrator (layer 4) imports @conch/protocol (layer 0): not declared in package.json dependencies or devDependencies",
    ]);
  });

  it("accepts the dev-only test config in tests and config files, and nowhere else", () => {
    expect(
      check(
        pkg("@conch/test-config", {
          devDependencies: { vitest: "^4.1.12" },
          files: { "src/index.ts": 'import { describe } from "vitest";\n' },
        }),
        pkg("@conch/exec-core", {
          devDependencies: { "@conch/test-config": "workspace:*" },
          files: {
            "vitest.config.ts": 'import { conchVitestConfig } from "@conch/test-config/vitest";\n',
            "test/run.test.ts": 'import { describeWith } from "@conch/test-config";\n',
            "src/run.test.ts": 'import { readCorpus } from "@conch/test-config";\n',
            "src/run.ts": 'import type { Need } from "@conch/test-config";\n',
          },
        }),
        pkg("@conch/protocol", { dependencies: { "@conch/test-config": "workspace:^" } }),
      ),
    ).toEqual([
      "packages/exec-core/src/run.ts: @conch/exec-core (layer 1) imports @conch/test-config (dev-only): @conch/test-config is dev-only: only tests and config files may import it, never the package's source",
      "packages/protocol/package.json: @conch/protocol (layer 0) depends on @conch/test-config (dev-only) in dependencies: @conch/test-config is dev-only (tests and config files): declare it in devDependencies",
    ]);
  });

  it("keeps the test config free of workspace packages", () => {
    expect(
      check(
        pkg("@conch/test-config", {
          devDependencies: { "@conch/protocol": "workspace:*" },
          files: { "src/gate.ts": 'import { isConchError } from "@conch/protocol";\n' },
        }),
        pkg("@conch/protocol", { devDependencies: { "@conch/test-config": "workspace:*" } }),
      ),
    ).toEqual([
      "dependency cycle among workspace packages: @conch/protocol -> @conch/test-config -> @conch/protocol (in package.json)",
      "tooling/test-config/package.json: @conch/test-config (dev-only) depends on @conch/protocol (layer 0) in devDependencies: @conch/test-config is not a layer: every package's tests use it, so it depends on no workspace package",
      "tooling/test-config/src/gate.ts: @conch/test-config (dev-only) imports @conch/protocol (layer 0): @conch/test-config is not a layer: every package's tests use it, so it depends on no workspace package",
    ]);
  });

  it("reports each dependency cycle once, through its first package", () => {
    expect(
      check(
        pkg("@conch/approval", { dependencies: { "@conch/arity-rules": "workspace:^" } }),
        pkg("@conch/arity-rules", { devDependencies: { "@conch/sandbox-core": "workspace:*" } }),
        pkg("@conch/sandbox-core", { devDependencies: { "@conch/approval": "workspace:*" } }),
      ).filter((line) => line.startsWith("dependency cycle")),
    ).toEqual([
      "dependency cycle among workspace packages: @conch/approval -> @conch/arity-rules -> @conch/sandbox-core -> @conch/approval (in package.json)",
    ]);
  });
});
