// Port of Codex's exec_command/write_stdin response text (codex-rs/core/src/tools/context.rs
// `ExecCommandToolOutput::response_header`, formerly `format_response` in tools/handlers/unified_exec.rs).

interface UnifiedExecResultBase {
  /** Omitted from the text when empty, as in Codex. */
  readonly chunkId: string;
  readonly durationMs: number;
  /** Omitted from the text when undefined, as in Codex. */
  readonly originalTokenCount?: number;
  /** Already truncated to the call's token budget. */
  readonly output: string;
}

export type UnifiedExecResultInput = UnifiedExecResultBase &
  ({ readonly exitCode: number } | { readonly sessionId: number });

/** The exact text Codex returns for exec_command and write_stdin. */
export function formatUnifiedExecResult(input: UnifiedExecResultInput): string {
  const sections: string[] = [];
  if (input.chunkId !== "") sections.push(`Chunk ID: ${input.chunkId}`);
  sections.push(`Wall time: ${formatSecondsFixed4(input.durationMs / 1000)} seconds`);
  if ("exitCode" in input) {
    sections.push(`Process exited with code ${input.exitCode}`);
  } else {
    // Codex: "Training still uses 'session ID'."
    sections.push(`Process running with session ID ${input.sessionId}`);
  }
  if (input.originalTokenCount !== undefined) {
    sections.push(`Original token count: ${input.originalTokenCount}`);
  }
  sections.push("Output:", input.output);
  return sections.join("\n");
}

/**
 * Rust's `{:.4}`: like `toFixed(4)` except that an exact tie rounds half to even. A double is an
 * exact tie at four decimals only when it is an odd multiple of 1/32.
 */
function formatSecondsFixed4(seconds: number): string {
  const thirtySeconds = seconds * 32;
  if (Number.isInteger(thirtySeconds) && thirtySeconds % 2 === 1) {
    const floor = Math.floor(seconds * 10_000);
    return ((floor % 2 === 0 ? floor : floor + 1) / 10_000).toFixed(4);
  }
  return seconds.toFixed(4);
}
