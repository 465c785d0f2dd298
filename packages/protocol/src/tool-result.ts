/**
 * What happened to a tool call, in one word. `ok`: the command ran, whatever its exit code; `rejected`:
 * it never ran (policy, rule, person, sandbox unavailable); `invalid`: the arguments were wrong, nothing
 * ran; `failed`: it could not start.
 */
export const TOOL_CALL_STATUSES = ["ok", "rejected", "invalid", "failed"] as const;
export type ToolCallStatus = (typeof TOOL_CALL_STATUSES)[number];

/** Why a command never ran. */
export const REJECTION_KINDS = [
  "forbidden",
  "denied-by-user",
  "aborted-by-user",
  "no-approver",
  "not-approved",
  "approval-pending",
  "sandbox-unavailable",
  "canceled",
] as const;
export type RejectionKind = (typeof REJECTION_KINDS)[number];

/**
 * The structured result of every tool call, beside the text the model reads: what the CLI's
 * `tool call --json` prints and an MCP tool's `structuredContent`. snake_case, as it goes on the wire.
 */
export interface ToolResult {
  tool: string;
  status: ToolCallStatus;
  /** The command's exit code; null when it did not run or still runs. */
  exit_code: number | null;
  wall_time_ms: number | null;
  timed_out: boolean;
  canceled: boolean;
  /** The sandbox the command last ran under (`bwrap`, `none`), or null when it did not run. */
  sandbox: string | null;
  /** The sandbox denied the command and it was not retried outside it. */
  denied: boolean;
  /** It was denied in the sandbox, approved, and ran again outside it. */
  escalated: boolean;
  truncated: boolean;
  /** Where the full output was saved, when the text is truncated (or the output was binary). */
  spill_path: string | null;
  /** Why a rejected command never ran. */
  rejection: RejectionKind | null;
  /** A Conch error code (or `INTERNAL`) for `invalid` and `failed`. */
  error_code: string | null;
  /** The live session to poll or write to (exec_command, write_stdin, terminal tools) while it runs. */
  session_id: number | null;
  /** A session's process is still running. */
  running: boolean;
  /**
   * Arguments the call accepted but did not use (`justification` without `sandbox_permissions:
   * "require_escalated"`); the text says so in a note. Empty otherwise.
   */
  unused_arguments: string[];
}
