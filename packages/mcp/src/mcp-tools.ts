import type { ToolCallResult, ToolSet } from "@conch/orchestrator";
import { visibleText } from "@conch/protocol";
import type { JsonSchema } from "@conch/protocol/schemas";
import { ToolResultSchema } from "@conch/protocol/schemas";
import type {
  CallToolResult,
  McpServer,
  ServerContext,
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
 * How long one tool call may take: well under the 60 s MCP clients wait by default. A shell_command
 * with a longer timeout_ms returns as a session at this point (and is still killed at its timeout).
 */
export const CALL_LIMIT_MS = 50_000;

// At most one progress notification per this many ms.
const PROGRESS_INTERVAL_MS = 250;
// The newest line, cut to this many characters.
const PROGRESS_LINE_MAX = 200;

/**
 * When the client sent a progressToken: progress notifications carrying the newest output line, at most
 * one per 250 ms, while a command runs. Null when the client asked for none.
 */
function progressReporter(
  ctx: ServerContext,
): { onOutput: (delta: { data: Uint8Array }) => void; stop: () => void } | null {
  const token = ctx.mcpReq._meta?.progressToken;
  if (token === undefined) return null;
  let progress = 0;
  let tail = "";
  let newest: string | null = null;
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  const send = (): void => {
    timer = null;
    if (stopped || newest === null) return;
    const message = newest;
    newest = null;
    progress++;
    ctx.mcpReq
      .notify({ method: "notifications/progress", params: { progressToken: token, progress, message } })
      .catch(() => {});
    timer = setTimeout(send, PROGRESS_INTERVAL_MS);
  };
  return {
    onOutput({ data }) {
      tail = (tail + Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString("utf8")).slice(
        -4096,
      );
      const lines = tail.split(/\r?\n|\r/).filter((line) => line.trim() !== "");
      const last = lines.at(-1);
      if (last === undefined) return;
      newest = visibleText(last.slice(-PROGRESS_LINE_MAX));
      if (timer === null) send();
    },
    stop() {
      stopped = true;
      if (timer !== null) clearTimeout(timer);
    },
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
        const { approver, client, inputRequired } = approvals.forCall(ctx, server);
        const progress = progressReporter(ctx);
        const result = await set.call(tool.name, args, {
          signal: ctx.mcpReq.signal,
          approver,
          client,
          ...(progress === null ? {} : { onOutput: progress.onOutput }),
        });
        progress?.stop();
        // A 2026-07-28 client is asked by returning the question; its retry runs the call again.
        return (await inputRequired()) ?? callToolResult(result);
      },
    );
  }
}
