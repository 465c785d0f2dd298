import { explainCommand as explainReport } from "@conch/approval";
import { loadExecPolicy, loadExecPolicyFiles } from "@conch/exec-policy";
import { APPROVAL_POLICIES, SANDBOX_MODES, visibleText } from "@conch/protocol";
import { parseArgs } from "../args.js";
import { UsageError } from "../errors.js";
import { EXPLAIN_HELP } from "../help.js";
import { jsonLine, snakeKeys } from "../output/json-line.js";
import { commandDirectory } from "./execute.js";

const SPECS = {
  json: { type: "boolean" },
  argv: { type: "boolean" },
  rules: { type: "string", multiple: true },
  cwd: { type: "string" },
  sandbox: { type: "string" },
  help: { type: "boolean" },
} as const;

export async function explainCommand(args: readonly string[]): Promise<number> {
  const { options, positionals } = parseArgs(args, SPECS, "explain", false);
  if (options.help) {
    process.stdout.write(EXPLAIN_HELP);
    return 0;
  }
  const requested = options.sandbox ?? "workspace-write";
  const sandbox = SANDBOX_MODES.find((mode) => mode === requested);
  if (sandbox === undefined) {
    throw new UsageError(
      `--sandbox: expected one of ${SANDBOX_MODES.join(", ")}, received "${requested}"`,
      "explain",
    );
  }
  let command: string[] | string;
  if (options.argv) {
    if (positionals.length === 0) throw new UsageError("missing the ARGV to explain after --", "explain");
    command = positionals;
  } else {
    if (positionals.length !== 1) {
      throw new UsageError(
        `expected one SCRIPT argument, received ${positionals.length}; quote the script`,
        "explain",
      );
    }
    command = positionals[0] as string;
  }
  const cwd = commandDirectory(options.cwd, "explain");
  const rulesFiles = options.rules ?? [];
  const execPolicy = rulesFiles.length > 0 ? await loadExecPolicyFiles(rulesFiles) : loadExecPolicy([]);
  const report = await explainReport(command, { cwd, execPolicy, sandboxMode: sandbox });
  if (options.json) {
    process.stdout.write(jsonLine(snakeKeys(report)));
    return 0;
  }
  const lines: string[] = [];
  // The script's words and texts, paths and the rules' justifications, each on one line and escaped
  // (visibleText): a script could otherwise print a line of this report, or act on the terminal.
  const show = (text: string): string => visibleText(text);
  const quote = (words: readonly string[]): string =>
    words.map((w) => (/^[\w./:@%+=,-]+$/.test(w) ? w : show(JSON.stringify(w)))).join(" ");
  lines.push(`Commands (${report.commands.length}):`);
  report.commands.forEach((words, i) => {
    lines.push(`  ${i + 1}. ${quote(words)}    [prefix: ${quote(report.prefixes[i] ?? [])}]`);
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
  lines.push(`Dangerous: ${report.dangerousReason === null ? "no" : `yes, ${show(report.dangerousReason)}`}`);
  lines.push(
    report.matchedRules.length === 0
      ? "Matched rules: none"
      : `Matched rules:\n${report.matchedRules.map((m) => `  - ${quote(m.matchedPrefix)} → ${m.decision}${m.justification ? ` (${show(m.justification)})` : ""}`).join("\n")}`,
  );
  lines.push(`Decision with sandbox ${sandbox}:`);
  for (const approvalPolicy of APPROVAL_POLICIES) {
    const reason = report.reasons[approvalPolicy];
    lines.push(
      `  ${approvalPolicy.padEnd(11)} ${report.decisions[approvalPolicy]}${reason ? `: ${show(reason)}` : ""}`,
    );
  }
  process.stdout.write(`${lines.join("\n")}\n`);
  return 0;
}
