import { describe, expect, it } from "vitest";
import { checkLayers } from "../scripts/layers.mjs";

type Deps = Record<string, string>;
interface Fixture {
  dependencies?: Deps;
  devDependencies?: Deps;
  peerDependencies?: Deps;
  files?: Record<string, string>;
}

const APPS = new Set(["@conch/cli", "@conch/daemon", "@conch/other-app"]);

function pkg(name: string, fixture: Fixture = {}) {
  const { files = {}, ...deps } = fixture;
  const dir = `${APPS.has(name) ? "apps" : "packages"}/${name.replace("@conch/", "")}`;
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
          dependencies: { "@conch/sandbox-core": "workspace:^", "@conch/protocol": "workspace:^" },
          files: { "src/bwrap.ts": 'import type { SandboxPolicy } from "@conch/protocol";\n' },
        }),
        pkg("@conch/approval", {
          dependencies: { "@conch/protocol": "workspace:^" },
          files: { "src/index.ts": 'import { run } from "@conch/exec-core";\n' },
        }),
      ),
    ).toEqual([
      "packages/approval/src/index.ts: @conch/approval (layer 2) imports @conch/exec-core (layer 1): not among its allowed internal dependencies (protocol, arity-rules) in DESIGN.md section 2",
      "packages/sandbox-linux/package.json: @conch/sandbox-linux (layer 3) depends on @conch/protocol (layer 0) in dependencies: not among its allowed internal dependencies (sandbox-core) in DESIGN.md section 2",
      "packages/sandbox-linux/src/bwrap.ts: @conch/sandbox-linux (layer 3) imports @conch/protocol (layer 0): not among its allowed internal dependencies (sandbox-core) in DESIGN.md section 2",
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
        pkg("@conch/cli", {
          dependencies: {
            "@conch/orchestrator": "workspace:^",
            "@conch/protocol": "workspace:^",
            "@conch/sandbox-linux": "workspace:^",
            "@conch/daemon": "workspace:^",
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
      "apps/cli/package.json: @conch/cli (app) depends on @conch/daemon (app) in dependencies: apps must not depend on each other (DESIGN.md section 2)",
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
});
