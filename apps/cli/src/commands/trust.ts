import { trustProject } from "@conch/orchestrator";
import { parseArgs } from "../args.js";
import { UsageError } from "../errors.js";
import { TRUST_HELP } from "../help.js";
import { commandDirectory } from "./execute.js";

const SPECS = { revoke: { type: "boolean" }, help: { type: "boolean" } } as const;

/**
 * `conch trust [--revoke] [DIR]`: lets the rules of the project holding DIR load, as they are now. A later
 * change to its config or any rules file (by an agent, say) un-trusts them until this is run again.
 */
export async function trustCommand(args: readonly string[]): Promise<number> {
  const { options, positionals } = parseArgs(args, SPECS, "trust", false);
  if (options.help) {
    process.stdout.write(TRUST_HELP);
    return 0;
  }
  if (positionals.length > 1) throw new UsageError("expected at most one DIR", "trust");
  const cwd = commandDirectory(positionals[0], "trust", "DIR");
  const revoke = options.revoke === true;
  const { projectDir } = await trustProject({ cwd, revoke });
  process.stdout.write(
    revoke
      ? `conch trust: ${projectDir} is no longer trusted; its rules do not load\n`
      : `conch trust: the rules of ${projectDir} load from now on, as they are now; a change to its .conch config or rules files un-trusts them until you run conch trust again\n`,
  );
  return 0;
}
