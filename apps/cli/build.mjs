// The conch bin, built for a fast start: a CLI starts once per command, and Node's loader spent ~40 ms
// of each start resolving, reading and compiling ~20 ESM chunks. Now:
//
// - dist/conch.js: the whole CLI as one CommonJS file (minified, ASCII only; the source map lies beside
//   it, left out of the tarball), with nothing to resolve;
// - dist/conch.cache: V8's code cache for it, made here by running the CLI once, so that a start reads
//   compiled code instead of compiling (V8 checks it is for this Node and these flags, and compiles
//   afresh when it is not: a stale cache only costs time);
// - dist/bin.js: the bin, a few lines that load conch.js with that cache and call its `main`;
// - dist/package.json: `"type": "commonjs"`, since this package's own type is module.
//
// `CONCH_NO_MINIFY=1 node build.mjs` keeps the names, for reading a CPU profile; it is not checked for
// the two things below that only a minified bundle guarantees (ASCII, no import()), and not shipped.
//
// Type checking stays with tsc (`pnpm typecheck`). The workspace packages are read from source (the
// `@conch/source` condition); what loads native code from its own package directory stays external and
// is a dependency of this package; the workspace packages it bundles are devDependencies. web-tree-sitter
// is bundled too: its wasm runtime (tree-sitter.wasm) and the bash grammar that @conch/arity-rules ships
// (tree-sitter-bash.wasm) are copied next to dist/bin.js with their licenses, and arity-rules is told
// where they are (setWasmLocation) before anything analyses.
import { spawnSync } from "node:child_process";
import { chmod, copyFile, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { build } from "esbuild";

const here = new URL(".", import.meta.url).pathname;
const dist = `${here}dist`;

// The bin. `MAKE_CACHE` is replaced to make the maker. V8's flags are part of the code cache's key: the
// cache is made and checked with Node's own, and the one flag conch sets (--liftoff-only, when the
// bash parser loads: see below) comes after the check.
const BIN = `#!/usr/bin/env node
"use strict";
// The conch CLI: conch.js, compiled from V8's code cache when it is this Node's (see build.mjs in
// @conch/cli): conch-run.cache, only what a one-shot run needs, for run and exec; conch.cache for
// everything else.
const { readFileSync } = require("node:fs");
const { join } = require("node:path");
const { Script } = require("node:vm");

const file = join(__dirname, "conch.js");
const command = process.argv[2];
/*CACHE_FILE*/
let cachedData;
try {
  cachedData = readFileSync(join(__dirname, cacheFile));
} catch {
  // None: compiled as any script.
}
// Read as Latin-1: the file is ASCII, so this is its text, made without a UTF-8 decode.
const source = readFileSync(file, "latin1");
const script = new Script(\`(function (exports, require, module, __filename, __dirname) {\${source}\\n})\`, {
  filename: file,
  cachedData,
});
const cli = { exports: {} };
script.runInThisContext()(cli.exports, require, cli, file, __dirname);
/*MAKE_CACHE*/
cli.exports.main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
`;

// Each command the maker runs compiles more of the CLI into the cache: what a one-shot run, a tool
// call and the help need, in a git repository (the sandbox asks git about it), each twice (the second
// finds what the first left: the shell snapshot's record, the sandbox probe). A start reads the whole
// cache it is given, so run and exec get one of their own, a third smaller (about 2 ms of a start).
const RUN = ["run", "--approval", "never", "--sandbox", "workspace-write", "--", "true"];
const TOOL_CALL = ["tool", "call", "shell_command", JSON.stringify({ command: "echo cached" })];
const CACHES = {
  "conch.cache": [["--help"], RUN, RUN, TOOL_CALL, TOOL_CALL],
  "conch-run.cache": [RUN, RUN],
};
// Which cache a start reads: the bin's line, and the maker's (which makes the one it is told).
const PICK_CACHE =
  'const cacheFile = command === "run" || command === "exec" ? "conch-run.cache" : "conch.cache";';

const maker = (cacheFile) =>
  BIN.replace("/*CACHE_FILE*/", `const cacheFile = ${JSON.stringify(cacheFile)};`).replace(
    /\/\*MAKE_CACHE\*\/\n[\s\S]*$/,
    `(async () => {
  for (const argv of ${JSON.stringify(CACHES[cacheFile])}) await cli.exports.main(argv).catch(() => 1);
  // The tool calls loaded the bash parser, which set --liftoff-only (and with it no tier-up): back to
  // Node's own flags, which a start checks the cache with (the checker below fails the build if not).
  for (const flag of ["--no-liftoff-only", "--wasm-tier-up", "--wasm-dynamic-tiering"]) {
    require("node:v8").setFlagsFromString(flag);
  }
  require("node:fs").writeFileSync(join(__dirname, cacheFile), script.createCachedData());
  process.exit(0);
})();
`,
  );

// What says whether this Node takes a cache: the bin's own check, printed.
const checker = (cacheFile) =>
  BIN.replace("/*CACHE_FILE*/", `const cacheFile = ${JSON.stringify(cacheFile)};`)
    .replace(/\/\*MAKE_CACHE\*\/\n[\s\S]*$/, "process.stdout.write(String(script.cachedDataRejected));\n")
    .replace(/script\.runInThisContext\(\)\(cli\.exports, require, cli, file, __dirname\);\n/, "");

// The entry: the CLI's main, for the bin to call; arity-rules through a wrapper that tells it where the
// wasm files are before anything can analyse.
const MODULES = {
  "conch:cli": `export { main } from "./src/main.ts";\n`,
  "conch:arity-rules": `import { setWasmLocation } from "@conch/arity-rules";
setWasmLocation({
  treeSitter: new URL("./tree-sitter.wasm", import.meta.url),
  bash: new URL("./tree-sitter-bash.wasm", import.meta.url),
});
export * from "@conch/arity-rules";
`,
};

// A script vm.Script compiled from a code cache has no loader for import(): web-tree-sitter's two
// dynamic imports of Node's own modules become requires (through a name its own `var require`, which
// Emscripten declares in the same function, cannot hide). The build fails if they are not found, or
// if any import() is left in the bundle.
//
// And web-tree-sitter (which loads when the first script is parsed, not at start) first sets
// --liftoff-only: conch lives for one command; V8 would tier tree-sitter's WebAssembly up to optimised
// code in the background, and the process then waits about half a second at exit for that compile to
// finish. Baseline code is plenty for one parse, and a command that parses nothing loads no node:v8.
const DYNAMIC_IMPORTS = ['await import("fs/promises")', 'await import("module")'];
const LIFTOFF_ONLY = '__conchRequire("node:v8").setFlagsFromString("--liftoff-only");\n';

/** @type {import("esbuild").Plugin} */
const noDynamicImport = {
  name: "conch-no-dynamic-import",
  setup(pluginBuild) {
    pluginBuild.onLoad({ filter: /[\\/]web-tree-sitter[\\/]tree-sitter\.js$/ }, async ({ path }) => {
      let contents = await readFile(path, "utf8");
      for (const expression of DYNAMIC_IMPORTS) {
        if (!contents.includes(expression)) throw new Error(`build: ${path} no longer has ${expression}`);
        contents = contents.replaceAll(expression, expression.replace("import(", "__conchRequire("));
      }
      return { contents: LIFTOFF_ONLY + contents, loader: "js" };
    });
  },
};

// Node's own modules that only some commands use, loaded on first use rather than at every start (the
// bundle's modules all initialise at start, and with them their imports): each import binds a proxy
// that requires the module when a name of it is first read. Every import of these is by name
// (`import { x } from "node:crypto"`), which the bundle reads as `module.x` where it is used.
const LAZY_BUILTINS = [
  "node:crypto",
  "node:readline",
  "node:readline/promises",
  "node:timers/promises",
  "node:net",
  "node:module",
  "node:fs/promises",
  "node:v8",
];

/** @type {import("esbuild").Plugin} */
const lazyBuiltins = {
  name: "conch-lazy-builtins",
  setup(pluginBuild) {
    const names = new Set(LAZY_BUILTINS);
    pluginBuild.onResolve({ filter: /^node:/ }, ({ path, namespace }) =>
      names.has(path) && namespace !== "conch-lazy" ? { path, namespace: "conch-lazy" } : undefined,
    );
    // The bundle copies a module's names when it imports one (getters that read the proxy on use): the
    // names are this Node's, listed now, so that listing them loads nothing.
    pluginBuild.onLoad({ filter: /.*/, namespace: "conch-lazy" }, ({ path }) => ({
      contents: `let loaded;
const load = () => (loaded ??= __conchRequire(${JSON.stringify(path)}));
const names = ${JSON.stringify(Object.keys(createRequire(import.meta.url)(path)))};
module.exports = new Proxy({}, {
  get: (_, name) => load()[name],
  has: (_, name) => name in load(),
  ownKeys: () => names,
  getOwnPropertyDescriptor: (_, name) =>
    names.includes(name) ? { configurable: true, enumerable: true, writable: true, value: undefined } : undefined,
});
`,
      loader: "js",
    }));
  },
};

/** @type {import("esbuild").Plugin} */
const entry = {
  name: "conch-entry",
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^conch:/ }, ({ path }) => ({ path, namespace: "conch" }));
    // Outside the wrapper itself, @conch/arity-rules means the wrapper.
    pluginBuild.onResolve({ filter: /^@conch\/arity-rules$/ }, ({ importer }) =>
      importer === "conch:arity-rules" ? undefined : { path: "conch:arity-rules", namespace: "conch" },
    );
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
  entryPoints: [{ in: "conch:cli", out: "conch" }],
  outdir: "dist",
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node20.19",
  conditions: ["@conch/source"],
  external: ["@lydell/node-pty", "@xterm/headless"],
  plugins: [entry, noDynamicImport, lazyBuiltins],
  // Every module's import.meta.url is the bundle's: what they find beside themselves (the package's
  // manifest at ../package.json, the wasm files) lies beside dist/conch.js.
  //
  // performance.now() is the only use of the performance global, whose first read loads Node's
  // perf_hooks: a clock of process.hrtime measures the same durations without it.
  define: { "import.meta.url": "__conchUrl", "performance.now": "__conchNow" },
  banner: {
    js:
      'var __conchUrl = require("node:url").pathToFileURL(__filename).href, __conchRequire = require, ' +
      "__conchNow = () => Number(process.hrtime.bigint()) / 1e6;",
  },
  minify: !process.env.CONCH_NO_MINIFY,
  charset: "ascii",
  // Written beside the bundle for local debugging (node --enable-source-maps), but not linked from it:
  // the tarball leaves maps out.
  sourcemap: "external",
  metafile: true,
  logLevel: "warning",
});

const bundle = await readFile(join(dist, "conch.js"));
const nonAscii = bundle.findIndex((byte) => byte > 0x7f);
if (nonAscii !== -1 && !process.env.CONCH_NO_MINIFY)
  throw new Error(`build: dist/conch.js is not ASCII at byte ${nonAscii}`);
const dynamicImport = /(?<![\w$.])import\s*\(/.exec(bundle.toString("latin1"));
if (dynamicImport !== null && !process.env.CONCH_NO_MINIFY)
  throw new Error(`build: dist/conch.js has an import() at ${dynamicImport.index}`);

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
  writeFile(join(dist, "package.json"), `${JSON.stringify({ type: "commonjs" }, null, 2)}\n`),
  writeFile(join(dist, "bin.js"), BIN.replace("/*CACHE_FILE*/", PICK_CACHE).replace("/*MAKE_CACHE*/\n", "")),
]);
await chmod(join(dist, "bin.js"), 0o755);
// The Landlock helper of @conch/sandbox-linux, bundled above: its binaries beside dist/conch.js, where
// the bundle looks for them (checked against their digests there as in the package).
const helperDir = join(
  dirname(createRequire(import.meta.url).resolve("@conch/sandbox-linux/package.json")),
  "bin",
);
for (const arch of ["x64", "arm64"]) {
  const name = `conch-sandbox-helper-linux-${arch}`;
  await copyFile(join(helperDir, name), join(dist, name));
  await chmod(join(dist, name), 0o755);
}

// The code cache: the maker runs the commands in a scratch home and directory of its own (nothing of
// the person's config or state is read or written), then the checker must find the cache taken.
const scratch = await mkdtemp(join(tmpdir(), "conch-build-cache-"));
try {
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: scratch,
    XDG_CONFIG_HOME: join(scratch, "config"),
    XDG_STATE_HOME: join(scratch, "state"),
    XDG_CACHE_HOME: join(scratch, "cache"),
    TMPDIR: scratch,
  };
  // No git is no failure here: the runs then take the paths of a directory outside any repository.
  spawnSync("git", ["init", "-q", scratch], { env, stdio: "ignore" });
  for (const cacheFile of Object.keys(CACHES)) {
    await writeFile(join(dist, "make-cache.js"), maker(cacheFile));
    await writeFile(join(dist, "check-cache.js"), checker(cacheFile));
    const made = spawnSync(process.execPath, [join(dist, "make-cache.js")], {
      cwd: scratch,
      env,
      stdio: ["ignore", "ignore", "pipe"],
      timeout: 120_000,
      encoding: "utf8",
    });
    if (made.status !== 0) throw new Error(`build: making ${cacheFile} failed: ${made.stderr}`);
    const checked = spawnSync(process.execPath, [join(dist, "check-cache.js")], { encoding: "utf8" });
    if (checked.stdout !== "false") {
      throw new Error(
        `build: this Node rejects ${cacheFile} just made (${checked.stdout} ${checked.stderr})`,
      );
    }
  }
} finally {
  await Promise.all([
    rm(join(dist, "make-cache.js"), { force: true }),
    rm(join(dist, "check-cache.js"), { force: true }),
    rm(scratch, { recursive: true, force: true }),
  ]);
}
