// The conch bin as a few bundled files instead of ~120 ESM modules: Node's loader spends ~50 ms per start
// resolving and reading modules one by one, and a CLI starts for every command. Type checking stays with
// tsc (`pnpm typecheck`); this only emits JavaScript. The workspace packages are read from source (the
// `@conch/source` condition); what loads native code or wasm from its own package directory stays external
// and is a dependency of this package; the workspace packages it bundles are devDependencies.
import { rm } from "node:fs/promises";
import { build } from "esbuild";

const here = new URL(".", import.meta.url).pathname;
await rm(`${here}dist`, { recursive: true, force: true });
await build({
  absWorkingDir: here,
  entryPoints: ["src/bin.ts"],
  outdir: "dist",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20.19",
  conditions: ["@conch/source"],
  external: ["web-tree-sitter", "tree-sitter-bash", "@lydell/node-pty", "@xterm/headless"],
  chunkNames: "chunks/[name]-[hash]",
  // Written beside the bundle for local debugging, but not linked from it: the tarball leaves maps out.
  sourcemap: "external",
  logLevel: "warning",
});
