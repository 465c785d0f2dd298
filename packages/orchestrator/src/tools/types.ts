import type { JsonSchema } from "@conch/protocol";
import type { Shell } from "@conch/shell-detect";
import type { z } from "zod";
import type { ToolOrchestrator } from "../orchestrator/tool-orchestrator.js";
import type { RunContext } from "../orchestrator/types.js";

/** What happened to a tool call, in one word. */
export const TOOL_CALL_STATUSES: readonly ["ok", "rejected", "invalid", "failed"] = [
  "ok",
  "rejected",
  "invalid",
  "failed",
] as const;
export type ToolCallStatus = (typeof TOOL_CALL_STATUSES)[number];

/**
 * The structured result beside the model text (snake_case: it goes over the wire as is). `ok`: the
 * command ran, whatever its exit code; `rejected`: it never ran (policy, rule, person, sandbox
 * unavailable); `invalid`: the arguments were wrong, nothing ran; `failed`: it could not start.
 */
export interface ToolResultData {
  readonly tool: string;
  readonly status: ToolCallStatus;
  readonly exit_code: number | null;
  readonly wall_time_ms: number | null;
  readonly timed_out: boolean;
  readonly canceled: boolean;
  /** The sandbox the command last ran under (`bwrap`, `none`), or null when it did not run. */
  readonly sandbox: string | null;
  /** The sandbox denied the command and it was not retried outside it. */
  readonly denied: boolean;
  /** It was denied in the sandbox, approved, and ran again outside it. */
  readonly escalated: boolean;
  readonly truncated: boolean;
  /** Where the full output was saved, when the text is truncated (or the output was binary). */
  readonly spill_path: string | null;
  /** `forbidden`, `denied-by-user`, ...: why a rejected command never ran. */
  readonly rejection: string | null;
  /** A Conch error code for `invalid` and `failed`. */
  readonly error_code: string | null;
  /** The live session to poll or write to (exec_command, write_stdin, terminal tools) while it runs. */
  readonly session_id: number | null;
  /** A session's process is still running. */
  readonly running: boolean;
}

/** What a tool call gives back: the exact text for the model, and the same facts as data. */
export interface ToolCallResult {
  readonly text: string;
  readonly result: ToolResultData;
}

/** What a handler needs besides its arguments. */
export interface ToolContext extends RunContext {
  readonly orchestrator: ToolOrchestrator;
  /** The shell that runs scripts (`shell_command`, `bash`). */
  readonly shell: () => Shell;
  /** The configured cap on model output tokens; a call may ask for fewer. */
  readonly maxOutputTokens: number;
  /** A shell_command that outlives its timeout becomes a session the model can poll (config). */
  readonly durableOneShot: boolean;
}

/** One tool: its name, what the model reads about it, its schemas and what it does. */
export interface ToolDefinition<Schema extends z.ZodObject = z.ZodObject> {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Schema;
  readonly jsonSchema: JsonSchema;
  /** Whether this call may change anything (false only for commands known to be read-only). */
  isMutating(input: z.infer<Schema>): Promise<boolean>;
  handler(input: z.infer<Schema>, context: ToolContext): Promise<ToolCallResult>;
}
