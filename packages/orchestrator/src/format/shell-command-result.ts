// Port of Codex's shell_command text (codex-rs/core/src/tools/mod.rs: format_exec_output_for_model,
// build_content_with_timeout).

import { CollectedOutput } from "../output/collected-output.js";

export interface ShellCommandResultInput {
  readonly exitCode: number;
  /** Feeds both the wall time and, on timeout, the milliseconds in the first output line. */
  readonly durationMs: number;
  /** The full output, or what a collector kept of it (head, tail and exact counts). */
  readonly output: string | CollectedOutput;
  readonly maxTokens: number;
  readonly timedOut?: boolean;
}

/**
 * The exact text Codex returns for shell_command: `Exit code`, `Wall time` (rounded to 0.1 s, always
 * with its one decimal, as Codex's `{:.1}` prints it: `1.0`), `Total output lines` only when truncation changed
 * the line count, then `Output:` and the middle-truncated text.
 */
export function formatShellCommandResult(input: ShellCommandResultInput): string {
  const output = typeof input.output === "string" ? CollectedOutput.of(input.output) : input.output;
  const content = input.timedOut
    ? output.withPrefix(`command timed out after ${Math.floor(input.durationMs)} milliseconds\n`)
    : output;
  const totalLines = content.lineCount();
  const formatted = content.truncate(input.maxTokens).text;

  const sections = [`Exit code: ${input.exitCode}`, `Wall time: ${formatTenths(input.durationMs)} seconds`];
  if (totalLines !== countLines(formatted)) sections.push(`Total output lines: ${totalLines}`);
  sections.push("Output:", formatted);
  return sections.join("\n");
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
