// What `conch explain` shows, as data: how a command line was read, what the safety checks say about it,
// which rules match, and what each approval policy would require. Nothing here runs the command.
import { isAbsolute } from "node:path";
import {
  type Analysis,
  analyze,
  approvalPrefix,
  dangerousCommandMatch,
  externalPaths,
  isKnownSafeCommand,
  type OpaquePart,
  type Operator,
  type Redirect,
  shellScript,
} from "@conch/arity-rules";
import {
  type ExecPolicy,
  evaluateExecPolicy,
  loadExecPolicy,
  type PrefixRuleMatch,
} from "@conch/exec-policy";
import {
  APPROVAL_POLICIES,
  type ApprovalPolicy,
  expectedReceived,
  SANDBOX_MODES,
  type SandboxMode,
} from "@conch/protocol";
import { approvalRequirement } from "../requirement/approval-requirement.js";
import type { ProgramLookup, RequirementType } from "../requirement/types.js";

export interface ExplainOptions {
  /** The absolute directory the command starts in; paths it touches outside it are listed. */
  readonly cwd: string;
  /** The exec-policy rules. Default: none. */
  readonly execPolicy?: ExecPolicy;
  /** The sandbox the command would run in. Default `workspace-write`. */
  readonly sandboxMode?: SandboxMode;
  /** Where bare program names resolve, as for `approvalRequirement`. Default: not looked up. */
  readonly programs?: ProgramLookup;
}

/** `explainCommand`'s answer: plain data, ready for `JSON.stringify` (`conch explain --json` prints it). */
export interface ExplainReport {
  /** Every simple command, in source order, with `bash -c '…'` replaced by the commands of its script. */
  commands: string[][];
  /** `operators[i]` joins the top-level commands i and i + 1. */
  operators: Operator[];
  /** The constructs that were not read with certainty; never auto-approved. Empty: read with certainty. */
  opaque: OpaquePart[];
  redirects: Redirect[];
  /** `isKnownSafeCommand` of the argv. */
  safe: boolean;
  /** Whether `dangerousCommandMatch` found a dangerous command, and why. */
  dangerous: boolean;
  dangerousReason: string | null;
  /** The prefix an approval of `commands[i]` would cover (`approvalPrefix`). */
  prefixes: string[][];
  /** Paths the command line names outside `cwd`. */
  externalPaths: string[];
  /** The exec-policy rules that match a command (no heuristics entries). */
  matchedRules: PrefixRuleMatch[];
  /** The requirement under each approval policy, with the given sandbox mode and default permissions. */
  decisions: Record<ApprovalPolicy, RequirementType>;
  /** The requirement's reason under each approval policy (null when it gives none). */
  reasons: Record<ApprovalPolicy, string | null>;
}

function flatten(analysis: Analysis): string[][] {
  return analysis.commands.flatMap((command) => (command.nested ? flatten(command.nested) : [command.argv]));
}

interface ShellScriptText {
  readonly text: string;
  readonly zsh: boolean;
}

function commandLine(command: readonly string[] | string): {
  argv: string[];
  script: ShellScriptText | null;
} {
  if (typeof command === "string")
    return { argv: ["bash", "-lc", command], script: { text: command, zsh: false } };
  if (!Array.isArray(command) || command.length === 0 || !command.every((word) => typeof word === "string")) {
    throw new TypeError(
      `explainCommand: ${expectedReceived("command", "a script (string) or a non-empty argv (string[])", command)}`,
    );
  }
  const wrapped = shellScript(command);
  return {
    argv: [...command],
    script: wrapped === null ? null : { text: wrapped.script, zsh: wrapped.shell === "zsh" },
  };
}

function checkOptions(options: ExplainOptions): void {
  if (typeof options.cwd !== "string" || !isAbsolute(options.cwd)) {
    throw new TypeError(
      `explainCommand: ${expectedReceived("options.cwd", "an absolute path", options.cwd)}`,
    );
  }
  const { sandboxMode } = options;
  if (sandboxMode !== undefined && !(SANDBOX_MODES as readonly string[]).includes(sandboxMode)) {
    throw new TypeError(
      `explainCommand: ${expectedReceived("options.sandboxMode", `one of ${SANDBOX_MODES.join(", ")}`, sandboxMode)}`,
    );
  }
}

/**
 * Explains one command line without running it: a script (run as `bash -lc SCRIPT`) or an argv (a
 * `bash|sh|zsh|dash -c|-lc SCRIPT` argv is read through its script). The report is what `conch explain`
 * prints: the commands read and their approval prefixes, opaque parts, redirects, paths outside `cwd`,
 * known-safe and dangerous verdicts, matching rules, and the requirement under every approval policy.
 * Throws a TypeError for a malformed command or option.
 */
export async function explainCommand(
  command: readonly string[] | string,
  options: ExplainOptions,
): Promise<ExplainReport> {
  checkOptions(options);
  const { argv, script } = commandLine(command);
  const { cwd } = options;
  const execPolicy = options.execPolicy ?? loadExecPolicy([]);
  const sandboxMode = options.sandboxMode ?? "workspace-write";
  const analysis: Analysis =
    script === null
      ? {
          commands: [{ argv, redirects: [], text: argv.join(" "), nested: null }],
          operators: [],
          redirects: [],
          opaque: [],
        }
      : await analyze(script.text, { zsh: script.zsh });
  const commands = flatten(analysis);
  const dangerous = await dangerousCommandMatch(argv);
  const decisions = {} as Record<ApprovalPolicy, RequirementType>;
  const reasons = {} as Record<ApprovalPolicy, string | null>;
  for (const approvalPolicy of APPROVAL_POLICIES) {
    const requirement = await approvalRequirement({
      argv,
      execPolicy,
      approvalPolicy,
      sandboxMode,
      sandboxPermissions: "use_default",
      ...(options.programs === undefined ? {} : { programs: options.programs }),
    });
    decisions[approvalPolicy] = requirement.type;
    reasons[approvalPolicy] = requirement.reason;
  }
  const matchedRules = evaluateExecPolicy(execPolicy, commands.length > 0 ? commands : [argv], {
    fallback: "allow",
  }).matchedRules.filter((match): match is PrefixRuleMatch => match.type === "prefixRuleMatch");
  return {
    commands,
    operators: analysis.operators,
    opaque: analysis.opaque.map(({ reason, text }) => ({ reason, text })),
    redirects: analysis.redirects,
    safe: await isKnownSafeCommand(argv),
    dangerous: dangerous !== null,
    dangerousReason: dangerous?.reason ?? null,
    prefixes: commands.map((words) => approvalPrefix(words)),
    externalPaths: externalPaths(analysis, [cwd], { cwd }),
    matchedRules,
    decisions,
    reasons,
  };
}
