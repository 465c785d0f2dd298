import type { Analysis } from "../types.js";
import { AnalysisCache } from "./analysis-cache.js";
import { type BashParser, loadBashParser } from "./parser.js";
import { analyzeScript, isTooLarge, tooLarge } from "./script.js";

// One parser for the process, made on the first analysis. A failed load is forgotten so a later call can
// try again.
let parser: Promise<BashParser> | null = null;
// The parser once it is loaded, for analyses that do not wait (analyzeNow).
let loaded: BashParser | null = null;

function loadParser(): Promise<BashParser> {
  parser ??= loadBashParser().then(
    (bash) => {
      loaded = bash;
      return bash;
    },
    (error: unknown) => {
      parser = null;
      throw error;
    },
  );
  return parser;
}

// The last analyses (see analysis-cache.ts), frozen so that sharing them is safe.
const cache = new AnalysisCache<Analysis>(128);

// Frozen by shape: the generic walk over Object.values cost more than the freezing. Redirections and
// opaque parts are shared between a command, its analysis and the analyses around it; freezing one again
// changes nothing.
function freezeAnalysis(analysis: Analysis): Analysis {
  if (Object.isFrozen(analysis)) return analysis;
  Object.freeze(analysis);
  for (const command of Object.freeze(analysis.commands)) {
    Object.freeze(command);
    Object.freeze(command.argv);
    freezeEach(command.redirects);
    if (command.dynamic !== undefined) Object.freeze(command.dynamic);
    if (command.nested !== null) freezeAnalysis(command.nested);
  }
  Object.freeze(analysis.operators);
  freezeEach(analysis.redirects);
  freezeEach(analysis.opaque);
  return analysis;
}

function freezeEach(items: readonly object[]): void {
  Object.freeze(items);
  for (const item of items) Object.freeze(item);
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
export function analyze(script: string, options?: { readonly zsh?: boolean }): Promise<Analysis> {
  return whenParserLoaded(() => analyzeNow(script, options?.zsh === true));
}

/** Thrown by analyzeNow for a script that needs the parser before it is loaded. */
class ParserNotLoaded extends Error {}

/**
 * The analysis analyze() gives, without waiting: throws ParserNotLoaded when the script is neither in the
 * cache nor too large and the parser is not loaded yet. The safety checks read scripts with it inside
 * whenParserLoaded, so that a whole classification runs without a promise per analysis.
 */
export function analyzeNow(script: string, zsh: boolean): Analysis {
  const hit = cache.get(script, zsh);
  if (hit !== undefined) return hit;
  if (isTooLarge(script)) return freezeAnalysis(tooLarge(script));
  if (loaded === null) throw new ParserNotLoaded();
  const analysis = freezeAnalysis(analyzeScript(loaded, script, 0, zsh));
  cache.add(script, zsh, analysis);
  return analysis;
}

/**
 * What compute returns, compute reading scripts with analyzeNow: when it needed the parser before that
 * was loaded, the parser is loaded (or the load's ArityRulesError `PARSER_UNAVAILABLE` rejects) and
 * compute runs again from the start. compute must have no effect but on the analysis cache.
 */
export async function whenParserLoaded<T>(compute: () => T): Promise<T> {
  for (;;) {
    try {
      return compute();
    } catch (error) {
      if (!(error instanceof ParserNotLoaded)) throw error;
    }
    await loadParser();
  }
}
