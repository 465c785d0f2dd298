import type { JsonSchema } from "@conch/protocol/schemas";
import type { Shell } from "@conch/shell-detect";
import type { z } from "zod";
import type { ToolCallResult } from "../model-text/model-result.js";
import type { ToolOrchestrator } from "../orchestrator/tool-orchestrator.js";
import type { RunContext } from "../orchestrator/types.js";

export type { ToolCallResult };

/** What a handler needs besides its arguments. */
export interface ToolContext extends RunContext {
  readonly orchestrator: ToolOrchestrator;
  /** The shell that runs scripts (`shell_command`, `bash`). */
  readonly shell: () => Shell;
  /** The configured cap on model output tokens; a call may ask for fewer. */
  readonly maxOutputTokens: number;
  /** The budget of a one-shot command's text (shell_command, shell, bash): smaller by default. */
  readonly oneShotOutputTokens: number;
  /** A shell_command that outlives its timeout becomes a session the model can poll (config). */
  readonly durableOneShot: boolean;
  /**
   * How long one call may take, or null for no limit: a shell_command whose timeout is longer returns as
   * a session at this point, and is still killed at its timeout (conchd: clients give up at 60 s).
   */
  readonly callLimitMs: number | null;
  /** The arguments the model gave itself (top-level names), as opposed to defaults the schema filled. */
  readonly given: ReadonlySet<string>;
}

/** One tool: its name, what the model reads about it, its schemas and what it does. */
export interface ToolDefinition<Schema extends z.ZodObject = z.ZodObject> {
  readonly name: string;
  /**
   * `command`: a call starts a command (shell_command, exec_command, terminal_open, ...); `session`: it
   * writes to, reads, signals, closes or lists sessions already started.
   */
  readonly kind: "command" | "session";
  readonly description: string;
  readonly inputSchema: Schema;
  readonly jsonSchema: JsonSchema;
  /** Whether this call may change anything (false only for commands known to be read-only). */
  isMutating(input: z.infer<Schema>): Promise<boolean>;
  handler(input: z.infer<Schema>, context: ToolContext): Promise<ToolCallResult>;
}
