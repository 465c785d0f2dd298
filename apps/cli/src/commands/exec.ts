import { deriveExecArgs, detectShell, resolveShell } from "@conch/shell-detect";
import { parseArgs } from "../args.js";
import { UsageError } from "../errors.js";
import { EXEC_HELP } from "../help.js";
import { execute, ORCHESTRATED_SPECS } from "./execute.js";
import { policyOptions } from "./policy-options.js";

const EXEC_SPECS = {
  ...ORCHESTRATED_SPECS,
  login: { type: "boolean" },
  shell: { type: "string" },
} as const;

export async function execCommand(args: readonly string[]): Promise<number> {
  const { options, positionals } = parseArgs(args, EXEC_SPECS, "exec", false);
  if (options.help) {
    process.stdout.write(EXEC_HELP);
    return 0;
  }
  if (positionals.length === 0) throw new UsageError("missing the SCRIPT to run", "exec");
  if (positionals.length > 1) {
    throw new UsageError(
      `expected one SCRIPT argument, received ${positionals.length}; quote the script`,
      "exec",
    );
  }
  const shellOption = options.shell;
  const shell = shellOption === undefined ? detectShell() : resolveShell(shellOption);
  const script = positionals[0] as string;
  const argv = deriveExecArgs(shell, script, { login: options.login === true });
  return execute("exec", { argv, script }, options, policyOptions(options, "exec"));
}
