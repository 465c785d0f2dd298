// The conch bin as a few bundled files instead of ~120 ESM modules: Node's loader spends ~50 ms per start
// resolving and reading modules one by one, and a CLI starts for every command. Type checking stays with
// tsc (`pnpm typecheck`); this only emits JavaScript. The workspace packages are read from source (the
// `@conch/source` condition); what loads native code from its own package directory stays external and is
// a dependency of this package; the workspace packages it bundles are devDependencies.
//
// web-tree-sitter is bundled too. Its wasm runtime (tree-sitter.wasm) and the bash grammar that
// @conch/arity-rules ships (tree-sitter-bash.wasm) are copied next to dist/bin.js with their licenses, and
// arity-rules is told where they are (setWasmLocation) before anything analyses.
import { copyFile, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { build } from "esbuild";

const here = new URL(".", import.meta.url).pathname;
const dist = `${here}dist`;

// The entry runs a module that records the bin's own URL (it lands in dist/bin.js, so `import.meta.url` is
// the bin's), then the real bin. Every import of @conch/arity-rules goes through a wrapper that tells it
// where the wasm files are beside the bin before anything can analyse, and re-exports it: the wrapper
// loads with the first lazy chunk that needs arity-rules, so a command that never parses bash does not
// load it at start.
const MODULES = {
  "conch:bin": `#!/usr/bin/env node
import "conch:bin-url";
import "./src/bin.ts";
`,
  "conch:bin-url": `import { bin } from "conch:bin-dir";
bin.url = import.meta.url;
`,
  "conch:bin-dir": "export const bin = { url: '' };\n",
  "conch:arity-rules": `import { bin } from "conch:bin-dir";
import { setWasmLocation } from "@conch/arity-rules";
setWasmLocation({
  treeSitter: new URL("./tree-sitter.wasm", bin.url),
  bash: new URL("./tree-sitter-bash.wasm", bin.url),
});
export * from "@conch/arity-rules";
`,
};

/** @type {import("esbuild").Plugin} */
const entry = {
  name: "conch-entry",
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^conch:/ }, ({ path }) => ({
      path,
      namespace: "conch",
      sideEffects: true,
    }));
    // Outside the wrapper itself, @conch/arity-rules means the wrapper.
    pluginBuild.onResolve({ filter: /^@conch\/arity-rules$/ }, ({ importer }) =>
      importer === "conch:arity-rules" ? undefined : { path: "conch:arity-rules", namespace: "conch" },
    );
    // This package says `sideEffects: false`, which would let esbuild drop a bare import of the bin.
    pluginBuild.onResolve({ filter: /^\.\/src\/bin\.ts$/, namespace: "conch" }, () => ({
      path: join(here, "src/bin.ts"),
      sideEffects: true,
    }));
    pluginBuild.onLoad({ filter: /.*/, namespace: "conch" }, ({ path }) => ({
      contents: MODULES[path],
      loader: "js",
      resolveDir: here,
    }));
  },
};

await rm(dist, { recursive: true, force: true });
const result = await build({
  absWorkingDir: here,
  entryPoints: [{ in: "conch:bin", out: "bin" }],
  outdir: "dist",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20.19",
  conditions: ["@conch/source"],
  external: ["@lydell/node-pty", "@xterm/headless"],
  plugins: [entry],
  chunkNames: "chunks/[name]-[hash]",
  // Written beside the bundle for local debugging, but not linked from it: the tarball leaves maps out.
  sourcemap: "external",
  metafile: true,
  logLevel: "warning",
});

// tree-sitter.wasm from the very web-tree-sitter whose JavaScript was bundled, so the two always match.
const runtimeModule = Object.keys(result.metafile.inputs).find((input) =>
  /(?:^|\/)web-tree-sitter\/tree-sitter\.js$/.test(input),
);
if (runtimeModule === undefined) throw new Error("build: web-tree-sitter is not in the bundle");
const runtimeDir = dirname(resolve(here, runtimeModule));
const grammarDir = join(
  dirname(createRequire(import.meta.url).resolve("@conch/arity-rules/package.json")),
  "grammar",
);
await Promise.all([
  copyFile(join(runtimeDir, "tree-sitter.wasm"), join(dist, "tree-sitter.wasm")),
  copyFile(join(runtimeDir, "LICENSE"), join(dist, "LICENSE-web-tree-sitter")),
  copyFile(join(grammarDir, "tree-sitter-bash.wasm"), join(dist, "tree-sitter-bash.wasm")),
  copyFile(join(grammarDir, "LICENSE-tree-sitter-bash"), join(dist, "LICENSE-tree-sitter-bash")),
]);
