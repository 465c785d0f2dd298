import { parseArgs } from "../args.js";
import { UsageError } from "../errors.js";
import { RUN_HELP } from "../help.js";
import { COMMON_SPECS, type ExecuteOptions, execute } from "./execute.js";

export async function runCommand(args: readonly string[]): Promise<number> {
  const { options, positionals } = parseArgs(args, COMMON_SPECS, "run", true);
  if (options.help) {
    process.stdout.write(RUN_HELP);
    return 0;
  }
  if (positionals.length === 0) throw new UsageError("missing the command to run", "run");
  return execute("run", positionals, options as ExecuteOptions);
}
