import { parseArgs } from "../args.js";
import { UsageError } from "../errors.js";
import { RUN_HELP } from "../help.js";
import { execute } from "./execute.js";

export const COMMON_SPECS = {
  "timeout-ms": { type: "integer" },
  cwd: { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean" },
} as const;

export async function runCommand(args: readonly string[]): Promise<number> {
  const { options, positionals } = parseArgs(args, COMMON_SPECS, "run", true);
  if (options.help) {
    process.stdout.write(RUN_HELP);
    return 0;
  }
  if (positionals.length === 0) throw new UsageError("missing the command to run", "run");
  return execute(
    { argv: positionals, cwd: (options.cwd as string | undefined) ?? process.cwd() },
    { json: options.json === true, timeoutMs: options["timeout-ms"] as number | undefined },
  );
}
