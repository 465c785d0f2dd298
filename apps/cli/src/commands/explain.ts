import {
  approvalRequirement,
  evaluatePolicy,
  loadPolicy,
  loadPolicyFiles,
  type RequirementType,
  visibleText,
} from "@conch/approval";
import {
  type Analysis,
  analyze,
  approvalPrefix,
  dangerousCommandMatch,
  externalPaths,
  isKnownSafeCommand,
  shellScript,
} from "@conch/arity-rules";
import { APPROVAL_POLICIES, type ApprovalPolicy, SANDBOX_MODES, type SandboxMode } from "@conch/protocol";
import { parseArgs } from "../args.js";
import { UsageError } from "../errors.js";
import { EXPLAIN_HELP } from "../help.js";
import { jsonLine } from "../output/json-line.js";
import { commandDirectory } from "./execute.js";

const SPECS = {
  json: { type: "boolean" },
  argv: { type: "boolean" },
  rules: { type: "string", multiple: true },
  cwd: { type: "string" },
  sandbox: { type: "string" },
  help: { type: "boolean" },
} as const;

/** Every simple command, with `bash -c '...'` replaced by the commands of its script. */
function flatten(analysis: Analysis): string[][] {
  return analysis.commands.flatMap((command) => (command.nested ? flatten(command.nested) : [command.argv]));
}

export async function explainCommand(args: readonly string[]): Promise<number> {
  const { options, positionals } = parseArgs(args, SPECS, "explain", false);
  if (options.help) {
    process.stdout.write(EXPLAIN_HELP);
    return 0;
  }
  const sandbox = (options.sandbox as string | undefined) ?? "workspace-write";
  if (!(SANDBOX_MODES as readonly string[]).includes(sandbox)) {
    throw new UsageError(
      `--sandbox: expected one of ${SANDBOX_MODES.join(", ")}, received "${sandbox}"`,
      "explain",
    );
  }
  let argv: string[];
  let script: string | undefined;
  if (options.argv) {
    if (positionals.length === 0) throw new UsageError("missing the ARGV to explain after --", "explain");
    argv = positionals;
    script = shellScript(argv)?.script;
  } else {
    if (positionals.length !== 1) {
      throw new UsageError(
        `expected one SCRIPT argument, received ${positionals.length}; quote the script`,
        "explain",
      );
    }
    script = positionals[0] as string;
    argv = ["bash", "-lc", script];
  }
  const cwd = commandDirectory(options.cwd, "explain");
  const rulesFiles = (options.rules as string[] | undefined) ?? [];
  const policy = rulesFiles.length > 0 ? await loadPolicyFiles(rulesFiles) : loadPolicy([]);
  const analysis: Analysis =
    script === undefined
      ? {
          commands: [{ argv, redirects: [], text: argv.join(" "), nested: null }],
          operators: [],
          redirects: [],
          opaque: [],
        }
      : await analyze(script);
  const commands = flatten(analysis);
  const dangerous = await dangerousCommandMatch(argv);
  const decisions = {} as Record<ApprovalPolicy, RequirementType>;
  const reasons = {} as Record<ApprovalPolicy, string | null>;
  for (const approvalPolicy of APPROVAL_POLICIES) {
    const requirement = await approvalRequirement({
      argv,
      execPolicy: policy,
      approvalPolicy,
      sandboxMode: sandbox as SandboxMode,
      sandboxPermissions: "use_default",
    });
    decisions[approvalPolicy] = requirement.type;
    reasons[approvalPolicy] = requirement.reason;
  }
  const report = {
    commands,
    operators: analysis.operators,
    opaque: analysis.opaque.map(({ reason, text }) => ({ reason, text })),
    redirects: analysis.redirects,
    safe: await isKnownSafeCommand(argv),
    dangerous: dangerous !== null,
    dangerousReason: dangerous?.reason ?? null,
    prefixes: commands.map((command) => approvalPrefix(command)),
    externalPaths: externalPaths(analysis, [cwd], { cwd }),
    matchedRules: evaluatePolicy(policy, commands.length > 0 ? commands : [argv], {
      fallback: "allow",
    }).matchedRules.filter((match) => match.type === "prefixRuleMatch"),
    decisions,
    reasons,
  };
  if (options.json) {
    process.stdout.write(jsonLine(report));
    return 0;
  }
  const lines: string[] = [];
  // The script's words and texts, paths and the rules' justifications, each on one line and escaped
  // (visibleText): a script could otherwise print a line of this report, or act on the terminal.
  const show = (text: string): string => visibleText(text);
  const quote = (words: readonly string[]): string =>
    words.map((w) => (/^[\w./:@%+=,-]+$/.test(w) ? w : show(JSON.stringify(w)))).join(" ");
  lines.push(`Commands (${commands.length}):`);
  commands.forEach((command, i) => {
    lines.push(`  ${i + 1}. ${quote(command)}    [prefix: ${quote(report.prefixes[i] ?? [])}]`);
  });
  if (report.operators.length > 0) lines.push(`Operators: ${report.operators.join(" ")}`);
  lines.push(
    report.opaque.length === 0
      ? "Opaque parts: none; the script was read with certainty"
      : `Opaque parts (never auto-approved):\n${report.opaque.map((o) => `  - ${o.reason}: ${show(o.text)}`).join("\n")}`,
  );
  if (report.redirects.length > 0) {
    lines.push(
      `Redirects: ${report.redirects.map((r) => `${r.fd ?? ""}${r.operator}${show(r.target ?? "?")} (${r.kind})`).join(", ")}`,
    );
  }
  if (report.externalPaths.length > 0) {
    lines.push(`Paths outside ${show(cwd)}: ${report.externalPaths.map(show).join(", ")}`);
  }
  lines.push(`Known safe: ${report.safe ? "yes" : "no"}`);
  lines.push(`Dangerous: ${dangerous === null ? "no" : `yes, ${show(dangerous.reason)}`}`);
  lines.push(
    report.matchedRules.length === 0
      ? "Matched rules: none"
      : `Matched rules:\n${report.matchedRules.map((m) => `  - ${quote(m.matchedPrefix)} → ${m.decision}${m.justification ? ` (${show(m.justification)})` : ""}`).join("\n")}`,
  );
  lines.push(`Decision with sandbox ${sandbox}:`);
  for (const approvalPolicy of APPROVAL_POLICIES) {
    const reason = reasons[approvalPolicy];
    lines.push(
      `  ${approvalPolicy.padEnd(11)} ${decisions[approvalPolicy]}${reason ? `: ${show(reason)}` : ""}`,
    );
  }
  process.stdout.write(`${lines.join("\n")}\n`);
  return 0;
}
