// Port of Codex's shell_command text (codex-rs/core/src/tools/mod.rs: format_exec_output_for_model,
// build_content_with_timeout), with Conch's cut: whole lines left out, and one marker line saying
// which and where they are.

import { shellCommandContent } from "../output/shell-content.js";
import { type SpillPointer, UNSAVED } from "../spill/spill-pointer.js";
import { CollectedOutput } from "../text/collected-output.js";
import { joinCut } from "../text/truncate.js";
import { omissionMarker } from "./spill-notice.js";

export interface ShellCommandResultInput {
  readonly exitCode: number;
  /** Feeds both the wall time and, on timeout, the milliseconds in the first output line. */
  readonly durationMs: number;
  /** The full output, or what a collector kept of it (head, tail and exact counts). */
  readonly output: string | CollectedOutput;
  readonly maxTokens: number;
  readonly timedOut?: boolean;
  /** Where the whole output is, for the marker of a cut; not saved by default. */
  readonly spill?: SpillPointer;
}

export interface ShellCommandText {
  readonly text: string;
  /** The output had to be cut to fit `maxTokens`. */
  readonly truncated: boolean;
}

/**
 * The exact text Codex returns for shell_command: `Exit code`, `Wall time` (rounded to 0.1 s, always
 * with its one decimal, as Codex's `{:.1}` prints it: `1.0`), `Total output lines` (of the whole
 * output) only when the cut changed the line count, then `Output:` and the text, cut to the budget.
 */
export function formatShellCommandResult(input: ShellCommandResultInput): ShellCommandText {
  const output = typeof input.output === "string" ? CollectedOutput.of(input.output) : input.output;
  const timedOut = input.timedOut === true;
  const content = shellCommandContent(output, timedOut, input.durationMs);
  const totalLines = content.lineCount();
  // The timeout notice is the content's first line, and no line of the saved output.
  const cut = content.cut(input.maxTokens, timedOut ? -1 : 0);
  const spill = input.spill ?? UNSAVED;
  // The spill file holds the output from its first byte; a timeout notice in front of it is not in it.
  const formatted = joinCut(cut, (omission) => omissionMarker(omission, spill, timedOut ? null : 0));

  const sections = [`Exit code: ${input.exitCode}`, `Wall time: ${formatTenths(input.durationMs)} seconds`];
  if (totalLines !== countLines(formatted)) sections.push(`Total output lines: ${totalLines}`);
  sections.push("Output:", formatted);
  return { text: sections.join("\n"), truncated: cut.omission !== null };
}

/** Rust's `str::lines().count()`: a trailing newline does not start another line. */
function countLines(text: string): number {
  if (text === "") return 0;
  let newlines = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) newlines++;
  return text.endsWith("\n") ? newlines : newlines + 1;
}

/** Codex rounds `as_secs_f32() * 10` and prints the f32 with `{}`: shortest form, no trailing `.0`. */
function formatTenths(durationMs: number): string {
  const tenths = Math.round(Math.fround(Math.fround(durationMs / 1000) * 10));
  const whole = Math.trunc(tenths / 10);
  const fraction = tenths % 10;
  return `${whole}.${fraction}`;
}
