import { type JsonSchema, toJsonSchema } from "@conch/protocol/schemas";
import type { z } from "zod";
import type { ToolDefinition } from "./types.js";

/**
 * A tool definition with the JSON Schema derived from its zod schema, so the two never disagree. The
 * JSON Schema is made when first read (a tool list), not when the tool is defined: a call never reads it.
 */
export function defineTool<S extends z.ZodObject>(
  tool: Omit<ToolDefinition<S>, "jsonSchema">,
): ToolDefinition<S> {
  let jsonSchema: JsonSchema | undefined;
  return {
    ...tool,
    get jsonSchema() {
      jsonSchema ??= toJsonSchema(tool.inputSchema);
      return jsonSchema;
    },
  };
}
