import type { Parser } from "web-tree-sitter";
import type { Analysis } from "../types.js";
import { loadBashParser } from "./parser.js";
import { analyzeScript, isTooLarge, tooLarge } from "./script.js";

// One parser for the process, made on the first analysis. A failed load is forgotten so a later call can
// try again.
let parser: Promise<Parser> | null = null;

/**
 * Splits a bash script into its simple commands (literal argv after quote removal), the operators between
 * them, its redirections, and the parts that cannot be read with certainty (opaque, with a reason). A
 * `bash|sh|zsh|dash -c SCRIPT` command carries the analysis of SCRIPT. Never runs anything.
 * The first call loads the parser (web-tree-sitter); it rejects with ArityRulesError `PARSER_UNAVAILABLE`
 * when that fails.
 */
export async function analyze(script: string): Promise<Analysis> {
  if (isTooLarge(script)) return tooLarge(script);
  parser ??= loadBashParser().catch((error: unknown) => {
    parser = null;
    throw error;
  });
  return analyzeScript(await parser, script, 0);
}
