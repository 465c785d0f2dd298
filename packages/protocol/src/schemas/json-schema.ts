import { z } from "zod";

export type JsonSchema = Record<string, unknown>;

/** The JSON Schema (draft 2020-12) of what a schema accepts as input, as a model or MCP client sees it. */
export function toJsonSchema(schema: z.ZodType): JsonSchema {
  return z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as JsonSchema;
}
