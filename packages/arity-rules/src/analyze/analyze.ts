import type { Analysis } from "../types.js";
import { type BashParser, loadBashParser } from "./parser.js";
import { analyzeScript, isTooLarge, tooLarge } from "./script.js";

// One parser for the process, made on the first analysis. A failed load is forgotten so a later call can
// try again.
let parser: Promise<BashParser> | null = null;

// The same script is often analysed several times in a row (the requirement for each policy, the safety
// check, the dangerous check): the last few analyses are kept, frozen so that sharing them is safe. A
// script read as zsh reads it has an analysis of its own: the key starts with `z` for zsh, `b` for bash.
const CACHE_SIZE = 128;
const cache = new Map<string, Analysis>();

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}

/**
 * Splits a bash script into its simple commands (literal argv after quote removal), the operators between
 * them, its redirections, and the parts that cannot be read with certainty (opaque, with a reason). A
 * `bash|sh|zsh|dash -c SCRIPT` command carries the analysis of SCRIPT. With `zsh`, the script is one zsh
 * runs (`zsh -lc SCRIPT`): it is still parsed with bash's grammar, and what zsh reads otherwise is
 * reported as `zsh-syntax` (see walker.ts). Never runs anything. The result is frozen: analyses of
 * recent scripts are shared between callers.
 * The first call loads the parser (web-tree-sitter); it rejects with ArityRulesError `PARSER_UNAVAILABLE`
 * when that fails.
 */
export async function analyze(script: string, options?: { readonly zsh?: boolean }): Promise<Analysis> {
  const zsh = options?.zsh === true;
  const key = (zsh ? "z" : "b") + script;
  const cached = cache.get(key);
  if (cached !== undefined) {
    cache.delete(key);
    cache.set(key, cached);
    return cached;
  }
  if (isTooLarge(script)) return deepFreeze(tooLarge(script));
  parser ??= loadBashParser().catch((error: unknown) => {
    parser = null;
    throw error;
  });
  const analysis = deepFreeze(analyzeScript(await parser, script, 0, zsh));
  cache.set(key, analysis);
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  return analysis;
}
