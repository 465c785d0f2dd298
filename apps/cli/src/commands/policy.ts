import { checkExecPolicy, loadExecPolicyFiles } from "@conch/exec-policy";
import { parseArgs } from "../args.js";
import { UsageError } from "../errors.js";
import { EXIT_OK, EXIT_USAGE } from "../exit-codes.js";
import { POLICY_HELP } from "../help.js";
import { jsonLine } from "../output/json-line.js";

const SPECS = {
  rules: { type: "string", multiple: true },
  help: { type: "boolean" },
} as const;

/** `conch policy check --rules FILE... -- ARGV...`: what `codex execpolicy check` prints, for .rules and .toml. */
export async function policyCommand(args: readonly string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === undefined || sub === "--help" || sub === "-h") {
    process.stdout.write(POLICY_HELP);
    return sub === undefined ? EXIT_USAGE : EXIT_OK;
  }
  if (sub !== "check")
    throw new UsageError(`unknown subcommand ${JSON.stringify(sub)} (expected check)`, "policy");
  const { options, positionals } = parseArgs(rest, SPECS, "policy", true);
  if (options.help) {
    process.stdout.write(POLICY_HELP);
    return 0;
  }
  const rules = options.rules ?? [];
  if (rules.length === 0) throw new UsageError("missing --rules FILE", "policy");
  if (positionals.length === 0) throw new UsageError("missing the ARGV to check after --", "policy");
  const policy = await loadExecPolicyFiles(rules);
  process.stdout.write(jsonLine(checkExecPolicy(policy, positionals)));
  return 0;
}
