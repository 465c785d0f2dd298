import type { ToolCallResult, ToolSet } from "@conch/orchestrator";
import type { JsonSchema } from "@conch/protocol/schemas";
import { ToolResultSchema } from "@conch/protocol/schemas";
import type {
  CallToolResult,
  McpServer,
  StandardSchemaWithJSON,
  ToolAnnotations,
} from "@modelcontextprotocol/server";
import type { CallApprovals } from "./approvals.js";

/**
 * A tool's JSON Schema as the SDK takes it, accepting whatever arrives: the tool set validates the
 * arguments itself, and its messages name the field and what was expected, where the SDK's would be
 * zod's issue list. What the client sees in `tools/list` is the very schema `conch tool list` prints.
 */
function advertised(jsonSchema: JsonSchema): StandardSchemaWithJSON {
  return {
    "~standard": {
      version: 1,
      vendor: "conch",
      validate: (value) => ({ value }),
      jsonSchema: { input: () => jsonSchema, output: () => jsonSchema },
    },
  };
}

/** A tool set's result as MCP's: the model's text, the same facts as structured data, and `isError`. */
function callToolResult({ text, result }: ToolCallResult): CallToolResult {
  return {
    content: [{ type: "text", text }],
    structuredContent: { ...result },
    // A command that ran is not an error, whatever its exit code: the text and exit_code say how it went.
    ...(result.status === "ok" ? {} : { isError: true }),
  };
}

/**
 * What a client may tell its user about every tool here: each runs commands that can change anything
 * the sandbox lets them, never idempotently; `openWorld` says whether they can reach the network.
 */
function toolAnnotations(openWorld: boolean): ToolAnnotations {
  return { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: openWorld };
}

/**
 * Registers every tool of `set` on `server`, each call going through the tool set (and so the
 * orchestrator), asking about its command through `approvals`: the client's form, or out of band.
 */
export function registerTools(
  server: McpServer,
  set: ToolSet,
  openWorld: boolean,
  approvals: CallApprovals,
): void {
  const annotations = toolAnnotations(openWorld);
  for (const tool of set.tools) {
    server.registerTool(
      tool.name,
      {
        description: tool.description,
        inputSchema: advertised(tool.jsonSchema),
        outputSchema: ToolResultSchema,
        annotations,
      },
      // A cancelled request (notifications/cancelled) aborts the wait as an interrupted turn does: a
      // one-shot command is killed, a live session keeps running.
      async (args, ctx) => {
        const { approver, inputRequired } = approvals.forCall(ctx, server);
        const result = await set.call(tool.name, args, { signal: ctx.mcpReq.signal, approver });
        // A 2026-07-28 client is asked by returning the question; its retry runs the call again.
        return (await inputRequired()) ?? callToolResult(result);
      },
    );
  }
}
