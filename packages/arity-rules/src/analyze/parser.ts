// Loading web-tree-sitter and the bash grammar (both wasm). Nothing here runs at import time: the CLI
// starts without paying for a parser it may not need.
//
// The grammar is tree-sitter-bash 0.25.1's wasm, shipped in this package (grammar/, with its license);
// web-tree-sitter's runtime wasm (tree-sitter.wasm) is in the web-tree-sitter package. Both are found
// from this module's URL, so a consumer that bundles this package copies the two files beside its bundle
// and says where they are with setWasmLocation before the first analysis.

import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import type { Parser } from "web-tree-sitter";
import { ArityRulesError } from "../errors.js";
import { chooseFlattener, type Flattener } from "./flatten.js";
import { lockWasmLocation, wasmLocations } from "./wasm-location.js";

type WebTreeSitter = typeof import("web-tree-sitter");

/** web-tree-sitter, and the object its runtime was initialised from, which holds the wasm exports. */
export interface Runtime {
  readonly module: WebTreeSitter;
  readonly exports: object;
}

/** A bash parser, and how to copy its trees into a FlatTree. */
export interface BashParser {
  readonly parser: Parser;
  readonly flatten: Flattener;
}

// The runtime wasm in the web-tree-sitter package.
const RUNTIME_WASM = "tree-sitter.wasm";

// Parser.init() instantiates the wasm runtime, and calling it again would replace the runtime under every
// parser already made, so it runs once per process.
let runtime: Promise<Runtime> | null = null;

/** Where web-tree-sitter's runtime wasm is: the location set, or beside the web-tree-sitter this loads. */
function runtimeWasmPath(): string {
  return (
    wasmLocations().treeSitter ?? createRequire(import.meta.url).resolve(`web-tree-sitter/${RUNTIME_WASM}`)
  );
}

export function loadRuntime(): Promise<Runtime> {
  if (runtime !== null) return runtime;
  lockWasmLocation(true);
  runtime = import("web-tree-sitter")
    .then(async (module) => {
      // The runtime's wasm is read here and handed over: when web-tree-sitter reads a missing file itself,
      // it also rejects a promise nobody awaits, which ends the process instead of failing this load.
      const options = { wasmBinary: await readFile(runtimeWasmPath()) };
      // Kept: emscripten makes this object the runtime's Module and puts the wasm exports on it, which
      // the direct flattener calls (flatten.ts).
      await module.Parser.init(options);
      return { module, exports: options };
    })
    .catch((error: unknown) => {
      // Forgotten, so that a later load (perhaps at another location) can try again.
      runtime = null;
      lockWasmLocation(false);
      throw error;
    });
  return runtime;
}

/** Where the bash grammar is: the location set, or the copy shipped in this package. */
function bashWasmPath(): string {
  return (
    wasmLocations().bash ?? fileURLToPath(new URL("../../grammar/tree-sitter-bash.wasm", import.meta.url))
  );
}

/** A parser for bash, or an ArityRulesError `PARSER_UNAVAILABLE` saying why there is none. */
export async function loadBashParser(wasmPath?: string): Promise<BashParser> {
  try {
    const { module, exports } = await loadRuntime();
    const language = await module.Language.load(wasmPath ?? bashWasmPath());
    const parser = new module.Parser();
    parser.setLanguage(language);
    return { parser, flatten: chooseFlattener(exports, parser, language) };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ArityRulesError(
      "PARSER_UNAVAILABLE",
      `cannot load the bash parser (web-tree-sitter with tree-sitter-bash): ${reason}`,
      { cause: error },
    );
  }
}
