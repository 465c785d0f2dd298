/**
 * A durable shell_command still running at its timeout: it was kept as a session, and the text says how
 * to poll or stop it. `output` is already cut to the budget; `note` is an optional line after it.
 */
export function formatDurableRunning(input: {
  readonly sessionId: number;
  readonly durationMs: number;
  readonly timeoutMs: number | undefined;
  readonly output: string;
  readonly note: string | null;
  /** Set when it returned early, before its own timeout: it is killed then (ms from its start). */
  readonly killAtMs?: number;
}): string {
  const { sessionId: id, output } = input;
  const kept =
    input.killAtMs === undefined
      ? `[Still running after ${input.timeoutMs} ms, so it was kept rather than killed: poll it with write_stdin `
      : `[Still running after ${input.timeoutMs} ms, so this call returns and the command keeps running until ` +
        `its timeout_ms (${input.killAtMs} ms): poll it with write_stdin `;
  return (
    `Process running with session ID ${id}\nWall time: ${(input.durationMs / 1000).toFixed(1)} seconds\n` +
    `Output:\n${output}${output.endsWith("\n") || output === "" ? "" : "\n"}` +
    (input.note === null ? "" : `${input.note}\n`) +
    kept +
    `{"session_id": ${id}}, or stop it with write_stdin {"session_id": ${id}, "chars": "\\u0003"}]`
  );
}
