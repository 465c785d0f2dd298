import { toJsonSchema } from "@conch/protocol/schemas";
import type { z } from "zod";
import type { ToolDefinition } from "./types.js";

/** A tool definition with the JSON Schema derived from its zod schema, so the two never disagree. */
export function defineTool<S extends z.ZodObject>(
  tool: Omit<ToolDefinition<S>, "jsonSchema">,
): ToolDefinition<S> {
  return { ...tool, jsonSchema: toJsonSchema(tool.inputSchema) };
}
