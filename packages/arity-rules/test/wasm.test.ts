import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { build } from "esbuild";
import { afterAll, describe, expect, it } from "vitest";
import { analyze, setWasmLocation } from "../src/index.js";

// The wasm files of the parser: the bash grammar this package ships (grammar/), and what a consumer that
// bundles the package does with them. The child processes run node on a bundle that only analyses.

const packageDir = fileURLToPath(new URL("..", import.meta.url));
const require = createRequire(import.meta.url);
const grammar = join(packageDir, "grammar", "tree-sitter-bash.wasm");
const runtimeWasm = require.resolve("web-tree-sitter/tree-sitter.wasm");
const run = promisify(execFile);

describe("the vendored bash grammar", () => {
  it("is byte-identical to tree-sitter-bash 0.25.1's wasm", () => {
    const upstream = require.resolve("tree-sitter-bash/tree-sitter-bash.wasm");
    const manifest = JSON.parse(readFileSync(join(dirname(upstream), "package.json"), "utf8")) as {
      version: string;
    };
    expect(manifest.version).toBe("0.25.1");
    expect(readFileSync(grammar).equals(readFileSync(upstream))).toBe(true);
  });

  it("ships with the license and origin of tree-sitter-bash", () => {
    const notice = readFileSync(join(packageDir, "grammar", "LICENSE-tree-sitter-bash"), "utf8");
    expect(notice).toContain("tree-sitter-bash@0.25.1");
    expect(notice).toContain("The MIT License");
    expect(notice).toContain("Copyright (c) 2017 Max Brunsfeld");
  });

  it("is in the package's files", () => {
    const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as {
      files: string[];
      dependencies: Record<string, string>;
    };
    expect(manifest.files).toContain("grammar");
    expect(Object.keys(manifest.dependencies)).not.toContain("tree-sitter-bash");
  });
});

describe("setWasmLocation", () => {
  it("refuses a new location once the parser has loaded", async () => {
    await analyze("true");
    expect(() => setWasmLocation({ bash: grammar })).toThrow(/already loaded/);
  });
});

describe("a consumer that bundles @conch/arity-rules with esbuild", () => {
  const dir = mkdtempSync(join(tmpdir(), "arity-rules-bundle-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const ENTRY = `import { analyze, setWasmLocation } from "@conch/arity-rules";
const wasm = new URL("./wasm/", import.meta.url);
if (process.argv[2] === "located") {
  setWasmLocation({
    treeSitter: new URL("tree-sitter.wasm", wasm),
    bash: new URL("tree-sitter-bash.wasm", wasm).pathname,
  });
}
try {
  const analysis = await analyze("ls | head");
  console.log(JSON.stringify({ argv: analysis.commands.map((command) => command.argv), operators: analysis.operators }));
} catch (error) {
  console.log(JSON.stringify({ code: error.code }));
}
`;

  async function bundle(): Promise<string> {
    await build({
      stdin: { contents: ENTRY, resolveDir: packageDir, sourcefile: "entry.mjs", loader: "js" },
      outfile: join(dir, "bundle.mjs"),
      bundle: true,
      format: "esm",
      platform: "node",
      target: "node20.19",
      conditions: ["@conch/source"],
      logLevel: "silent",
    });
    // The wasm files go beside the bundle, in a folder of their own: only the location finds them.
    mkdirSync(join(dir, "wasm"), { recursive: true });
    copyFileSync(runtimeWasm, join(dir, "wasm", "tree-sitter.wasm"));
    copyFileSync(grammar, join(dir, "wasm", "tree-sitter-bash.wasm"));
    return join(dir, "bundle.mjs");
  }

  it("analyses once told where the wasm files are", { timeout: 60_000 }, async () => {
    const file = await bundle();
    const { stdout } = await run(process.execPath, [file, "located"], { cwd: dir, timeout: 30_000 });
    expect(JSON.parse(stdout)).toEqual({ argv: [["ls"], ["head"]], operators: ["|"] });
  });

  it("fails with PARSER_UNAVAILABLE when it is not told", { timeout: 60_000 }, async () => {
    const file = await bundle();
    const { stdout } = await run(process.execPath, [file], { cwd: dir, timeout: 30_000 });
    expect(JSON.parse(stdout)).toEqual({ code: "PARSER_UNAVAILABLE" });
  });
});
