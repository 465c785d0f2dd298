import { parseArgs } from "../args.js";
import { UsageError } from "../errors.js";
import { RUN_HELP } from "../help.js";
import { execute, ORCHESTRATED_SPECS } from "./execute.js";
import { policyOptions } from "./policy-options.js";

export async function runCommand(args: readonly string[]): Promise<number> {
  const { options, positionals } = parseArgs(args, ORCHESTRATED_SPECS, "run", true);
  if (options.help) {
    process.stdout.write(RUN_HELP);
    return 0;
  }
  if (positionals.length === 0) throw new UsageError("missing the command to run", "run");
  return execute("run", { argv: positionals }, options, policyOptions(options, "run"));
}
