import { analyzeNow } from "../analyze/analyze.js";
import type { Analysis } from "../types.js";

// Scripts nest (shells, substitutions, trap and eval strings, and the second reading of an sh script),
// and each level is analysed again, so one classification gets a fixed amount of script to read: sixteen
// times the analyser's own input limit, far more than any real command needs. Each analysis also costs
// a fixed amount, so tiny scripts cannot be analysed without end either.
const BUDGET_CHARS = 16 * 65_536;
const COST_PER_ANALYSIS = 1024;

/** The analyses one classification may run, counted in characters of script. */
export class AnalysisBudget {
  private remaining = BUDGET_CHARS;

  /**
   * The analysis of script (as zsh reads it with `zsh`), or null when the budget is spent (the caller
   * then fails closed). Read with analyzeNow: the classification runs inside whenParserLoaded.
   */
  analyze(script: string, zsh = false): Analysis | null {
    const cost = script.length + COST_PER_ANALYSIS;
    if (cost > this.remaining) return null;
    this.remaining -= cost;
    return analyzeNow(script, zsh);
  }
}
