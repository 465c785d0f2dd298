import { z } from "zod";
import { REJECTION_KINDS, TOOL_CALL_STATUSES, type ToolResult } from "../tool-result.js";

const count = z.number().int().nonnegative();

/** The structured result of a tool call: the `outputSchema` of every MCP tool, the CLI's `--json`. */
export const ToolResultSchema = z
  .strictObject({
    tool: z.string().min(1).describe("The tool that was called."),
    status: z
      .enum(TOOL_CALL_STATUSES)
      .describe(
        "`ok`: the command ran, whatever its exit code; `rejected`: it never ran (policy, rule, person, sandbox unavailable); `invalid`: the arguments were wrong, nothing ran; `failed`: it could not start.",
      ),
    exit_code: z
      .number()
      .int()
      .nullable()
      .describe("The command's exit code (124 after a timeout); null when it did not run or still runs."),
    wall_time_ms: count.nullable().describe("How long the call waited for the command, in milliseconds."),
    timed_out: z.boolean().describe("The command was killed at its timeout."),
    canceled: z.boolean().describe("The call was canceled and the command killed."),
    sandbox: z
      .string()
      .nullable()
      .describe("The sandbox the command last ran under (`bwrap`, `none`); null when it did not run."),
    denied: z.boolean().describe("The sandbox denied the command and it was not retried outside it."),
    escalated: z
      .boolean()
      .describe(
        "It ran outside the sandbox the policy sets, with a person's yes: asked for (`require_escalated`), or denied in the sandbox and run again outside it.",
      ),
    truncated: z.boolean().describe("The text holds only the head and tail of the output."),
    spill_path: z
      .string()
      .nullable()
      .describe("Where the full output was saved when the text is truncated (or the output was binary)."),
    rejection: z.enum(REJECTION_KINDS).nullable().describe("Why a rejected command never ran."),
    error_code: z
      .string()
      .nullable()
      .describe("A Conch error code (or `INTERNAL`) when the call was invalid or failed."),
    session_id: z
      .number()
      .int()
      .nullable()
      .describe("The live session to poll or write to while its process runs."),
    running: z.boolean().describe("The session's process is still running."),
    unused_arguments: z
      .array(z.string())
      .describe(
        'Arguments the call accepted but did not use, e.g. `justification` without `sandbox_permissions: "require_escalated"`; the text notes each.',
      ),
  })
  .describe(
    "What happened to the tool call, beside the text the model reads.",
  ) satisfies z.ZodType<ToolResult>;
