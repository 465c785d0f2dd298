// What shell_command's text shows of an output, measured by the collector to decide the spill and cut by
// the model text (model-text/shell-command-result.ts) alike, so that both see the same lines.
import type { CollectedOutput } from "../text/collected-output.js";

/** The text shell_command's output starts with when the command timed out (Codex's words). */
function timeoutNotice(durationMs: number): string {
  return `command timed out after ${Math.floor(durationMs)} milliseconds\n`;
}

/** What the text shows of an output: with the timeout notice in front when the command timed out. */
export function shellCommandContent(
  output: CollectedOutput,
  timedOut: boolean,
  durationMs: number,
): CollectedOutput {
  return timedOut ? output.withPrefix(timeoutNotice(durationMs)) : output;
}
