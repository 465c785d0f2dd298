// Loading web-tree-sitter and the tree-sitter-bash grammar (both wasm). Nothing here runs at import time:
// the CLI starts without paying for a parser it may not need.

import { createRequire } from "node:module";
import type { Parser } from "web-tree-sitter";
import { ArityRulesError } from "../errors.js";

type WebTreeSitter = typeof import("web-tree-sitter");

// Parser.init() instantiates the wasm runtime, and calling it again would replace the runtime under every
// parser already made, so it runs once per process.
let runtime: Promise<WebTreeSitter> | null = null;

function loadRuntime(): Promise<WebTreeSitter> {
  runtime ??= import("web-tree-sitter").then(
    async (module) => {
      await module.Parser.init();
      return module;
    },
    (error: unknown) => {
      runtime = null;
      throw error;
    },
  );
  return runtime;
}

/** Where tree-sitter-bash keeps its wasm grammar. */
function bashWasmPath(): string {
  return createRequire(import.meta.url).resolve("tree-sitter-bash/tree-sitter-bash.wasm");
}

/** A parser for bash, or an ArityRulesError `PARSER_UNAVAILABLE` saying why there is none. */
export async function loadBashParser(wasmPath?: string): Promise<Parser> {
  try {
    const { Language, Parser } = await loadRuntime();
    const language = await Language.load(wasmPath ?? bashWasmPath());
    const parser = new Parser();
    parser.setLanguage(language);
    return parser;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ArityRulesError(
      "PARSER_UNAVAILABLE",
      `cannot load the bash parser (web-tree-sitter with tree-sitter-bash): ${reason}`,
      { cause: error },
    );
  }
}
