import { ToolResultSchema } from "@conch/protocol/schemas";
import { createToolSet, type ToolSet, type ToolSetOptions } from "../src/tools/tool-set.js";

/**
 * `createToolSet` for tests: every result a call gives back is parsed with protocol's ToolResultSchema,
 * the contract the CLI's `--json` and an MCP tool's `outputSchema` promise, so a result that leaves it
 * fails the test that produced it.
 */
export async function checkedToolSet(options: ToolSetOptions): Promise<ToolSet> {
  const set = await createToolSet(options);
  return {
    ...set,
    call: async (name, args, context) => {
      const result = await set.call(name, args, context);
      ToolResultSchema.parse(result.result);
      return result;
    },
  };
}
