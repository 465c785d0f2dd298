// The texts a model reads when a command is refused or waits for approval. Where Codex has a text, it
// is Codex's word for word, so a model trained on Codex recognises it.
import type { DangerousKind, DangerousMatch, UnreadPart, UnreadReason } from "@conch/arity-rules";
import type { PrefixRule, PrefixRuleMatch, RuleMatch } from "@conch/exec-policy";
import type { ApprovalPolicy } from "@conch/protocol";
import type { UntrustedProgram } from "./program-resolution.js";
import { renderCommand } from "./render-command.js";

export const PROMPT_CONFLICT_REASON = "approval required by policy, but AskForApproval is set to Never";

/** Under any policy but `on-request`, nobody grants escalation (Codex says so in its shell handlers). */
export function escalationRejectedReason(approvalPolicy: ApprovalPolicy): string {
  return (
    `approval policy is ${approvalPolicy}; reject command — you should not ask for escalated permissions ` +
    `if the approval policy is ${approvalPolicy}. Run it again with sandbox_permissions "use_default".`
  );
}

/** The matching rule with the longest prefix, the last of equals (Rust's `max_by_key`). */
export function mostSpecific(
  matchedRules: readonly RuleMatch[],
  decision: "prompt" | "forbidden",
): PrefixRuleMatch | null {
  let best: PrefixRuleMatch | null = null;
  for (const match of matchedRules) {
    if (match.type !== "prefixRuleMatch" || match.decision !== decision) continue;
    if (best === null || match.matchedPrefix.length >= best.matchedPrefix.length) best = match;
  }
  return best;
}

/** Why a prompt is needed, only when a rule asks for it; the heuristics' prompts carry no reason. */
export function promptReason(argv: readonly string[], matchedRules: readonly RuleMatch[]): string | null {
  const rule = mostSpecific(matchedRules, "prompt");
  if (rule === null) return null;
  const command = renderCommand(argv);
  return rule.justification === null
    ? `\`${command}\` requires approval by policy`
    : `\`${command}\` requires approval: ${rule.justification}`;
}

/**
 * Why the command is refused: the most specific forbidding rule (its justification, or the prefix it
 * forbids), else the dangerous command the heuristics refused under `never`.
 */
export function forbiddenReason(
  argv: readonly string[],
  matchedRules: readonly RuleMatch[],
  dangerous: DangerousMatch | null,
): string {
  const command = renderCommand(argv);
  const rule = mostSpecific(matchedRules, "forbidden");
  if (rule !== null) {
    return rule.justification === null
      ? `\`${command}\` rejected: policy forbids commands starting with \`${renderCommand(rule.matchedPrefix)}\``
      : `\`${command}\` rejected: ${rule.justification}`;
  }
  if (dangerous === null) return `\`${command}\` rejected: blocked by policy`;
  if (dangerous.kind === "forced-rm") {
    return `\`${command}\` rejected: rm -f style commands are not permitted. Use a safer approach`;
  }
  return `\`${command}\` rejected: ${dangerous.reason}; such commands are not permitted. Use a safer approach`;
}

// What each construct that keeps a command line from being read is, in words a model can act on.
const UNREAD_DESCRIPTIONS: Readonly<Record<UnreadReason, string>> = {
  "parse-error": "a syntax error",
  "unsupported-syntax": "syntax that bash reads differently from the analyser",
  "too-large": "a script too large to read",
  "too-deep": "scripts or runners nested too deeply to read",
  "dynamic-command-name": "a command name known only when the script runs",
  "dynamic-script": "shell text or a value run as code, known only when the script runs",
  "shell-input": "a shell reading its commands from input or a file",
  "unread-shell": "a shell whose language is not read",
  source: "a file run with source or .",
  "input-command": "a command line completed from input",
  alias: "a command name made to run something else",
  "git-alias": "a git alias or a command git does not provide",
  "git-config": "a git setting that may name a program to run",
  "command-variable": "a variable naming code for a program to run",
  "unmodelled-builtin": "a shell builtin the analyser does not model",
  "evaluated-text": "text bash evaluates as code where it takes a variable name or a number",
  "command-option": "an option that gives a program a command, a script or a program to run",
  "program-path":
    "a PATH, working directory or root the command line sets, so a name may run another program",
  "zsh-syntax": "text zsh reads differently from bash",
  "command-input":
    "a program that runs commands typed or fed into it, as ed, an editor or a pager runs `!cmd`",
};

function unreadText(unread: UnreadPart): string {
  return (
    `the script could not be read completely (${UNREAD_DESCRIPTIONS[unread.reason]}: ` +
    `\`${unread.text}\`), so the rules cannot tell every command it runs`
  );
}

/** Why a command line that cannot be read needs approval while rules restrict what may run. */
export function unreadPromptReason(argv: readonly string[], unread: UnreadPart): string {
  return `\`${renderCommand(argv)}\` requires approval: ${unreadText(unread)}`;
}

/** The same under `never`, where nobody can approve it; what to do is the explanation's advice. */
export function unreadRejectedReason(argv: readonly string[], unread: UnreadPart): string {
  return `\`${renderCommand(argv)}\` rejected: ${unreadText(unread)}, and AskForApproval is set to Never`;
}

function possibleRuleText(match: PrefixRuleMatch): string {
  const word = match.matchedPrefix.at(-1) as string;
  const because = match.justification === null ? "" : ` (${match.justification})`;
  return (
    `\`${renderCommand(match.matchedPrefix)}\` may be a command a rule restricts${because}: ` +
    `\`${word}\` is known only when it runs`
  );
}

/** Why a command that only may match a restrictive rule (a word in it is not literal) needs approval. */
export function possibleRuleReason(argv: readonly string[], match: PrefixRuleMatch): string {
  return `\`${renderCommand(argv)}\` requires approval: ${possibleRuleText(match)}`;
}

/** The same under `never`; what to do is the explanation's advice. */
export function possibleRuleRejectedReason(argv: readonly string[], match: PrefixRuleMatch): string {
  return `\`${renderCommand(argv)}\` rejected: ${possibleRuleText(match)}, and AskForApproval is set to Never`;
}

/** What a program that is not the one its name says resolved to, in words a model can act on. */
function untrustedText(program: UntrustedProgram): string {
  const name = program.name.slice(program.name.lastIndexOf("/") + 1);
  const means = `so it is not the ${name} the rules and the known-safe list mean`;
  const { resolved, target, entry } = program;
  const verb = program.name.includes("/") ? "is" : "resolves to";
  switch (program.reason) {
    case "writable-root":
      return target === null
        ? `\`${program.name}\` ${verb} ${resolved}, inside the workspace, ${means}`
        : `\`${program.name}\` ${verb} ${resolved}, inside the workspace (a link to ${target}, which the agent can change), ${means}`;
    case "leads-into-writable-root":
      return `\`${program.name}\` ${verb} ${resolved}, which leads to ${target}, inside the workspace, ${means}`;
    case "relative-entry":
      return entry === ""
        ? `\`${program.name}\` resolves to ${resolved} through an empty PATH entry (the working directory), ${means}`
        : `\`${program.name}\` resolves to ${resolved} through the relative PATH entry \`${entry}\`, ${means}`;
    case "path-changed":
      return `\`${program.name}\` is looked up through a PATH the command line sets, so it may not be the ${name} the rules and the known-safe list mean`;
    case "not-resolved":
      return `\`${program.name}\` could not be resolved before it runs, so it may not be the ${name} the rules and the known-safe list mean`;
  }
}

/** Why a command that reaches a program that is not the one its name says needs approval. */
export function untrustedProgramReason(argv: readonly string[], program: UntrustedProgram): string {
  return `\`${renderCommand(argv)}\` requires approval: ${untrustedText(program)}`;
}

/**
 * Why a command was refused or needs a yes, and what the model can do about it: what the orchestrator
 * adds below the reason, which stays Codex's text where Codex has one.
 */
export interface RequirementExplanation {
  /**
   * One sentence naming what decided it: the part of the command line (a simple command, or the text
   * that could not be read) and the rule with the file and line it was written at, the danger, or the
   * approval policy.
   */
  readonly why: string;
  /** What the model can do instead, as an instruction; ends with a full stop. */
  readonly advice: string;
  /** For a refusal: why no person was asked (a rule forbids it, or the policy is never); else null. */
  readonly notAsked: string | null;
}

const NEVER_ASKS = "the approval policy is never";
const RULE_FORBIDS = "what a rule forbids cannot be approved";

function neverAsks(approvalPolicy: ApprovalPolicy): string | null {
  return approvalPolicy === "never" ? NEVER_ASKS : null;
}

function where(rule: PrefixRule | null): string {
  return rule?.source === undefined ? "" : ` (${rule.source.path}:${rule.source.line})`;
}

/**
 * A prompt or forbidden rule decided it: `part` is the simple command it matched (null when the
 * command line only names the program where it cannot be read), `rule` the rule, for its file and line.
 */
export function ruleExplanation(
  part: readonly string[] | null,
  match: PrefixRuleMatch,
  rule: PrefixRule | null,
  approvalPolicy: ApprovalPolicy,
): RequirementExplanation {
  const prefix = renderCommand(match.matchedPrefix);
  const forbids = match.decision === "forbidden";
  const verb = forbids ? "forbids" : "asks first for";
  const because = forbids || match.justification === null ? "" : `: ${match.justification}`;
  const why =
    part === null
      ? `the command line names \`${prefix}\` where it cannot be read, and a rule${where(rule)} ${verb} it${because}`
      : `\`${renderCommand(part)}\` matches a rule${where(rule)} that ${verb} \`${prefix}\`${because}`;
  return {
    why,
    advice: forbids
      ? `Do the task without \`${prefix}\`, or tell the user that a rule forbids it.`
      : `Do the task without \`${prefix}\`, or tell the user that it needs their approval.`,
    notAsked: forbids ? RULE_FORBIDS : neverAsks(approvalPolicy),
  };
}

// What to do instead of each dangerous command, as the model can do it.
const DANGER_ADVICE: Readonly<Record<DangerousKind, string>> = {
  "forced-rm": "Drop -f/--force and name each path to delete, or tell the user what should be deleted.",
  "git-reset-hard":
    "Keep the changes: stash them (git stash) or restore named files (git restore PATH), or tell the user.",
  "git-clean-force": "Delete untracked files by name with rm (without -f), or tell the user.",
  "git-push-force": "Push without forcing, or tell the user that a force push is needed.",
  "dd-write": "Write the file another way (cp, tee, a redirect), or tell the user.",
  mkfs: "Tell the user that a file system needs to be created.",
  "recursive-chmod-root": "Change the permissions of named paths only.",
  "recursive-chown-root": "Change the ownership of named paths only.",
  "find-delete": "List the matches with find first, then delete them by name with rm (without -f).",
  "remote-script": "Download the script to a file, read it, then run that file.",
  "kernel-setting": "Leave the kernel's settings as they are, or tell the user which setting needs changing.",
};

/** A dangerous command decided it (asked about under most policies, refused under never). */
export function dangerExplanation(
  danger: DangerousMatch,
  approvalPolicy: ApprovalPolicy,
): RequirementExplanation {
  return {
    why: `\`${renderCommand(danger.argv)}\` is dangerous: ${danger.reason}`,
    advice: DANGER_ADVICE[danger.kind],
    notAsked: neverAsks(approvalPolicy),
  };
}

/** A command line that could not be read completely, while rules restrict what may run. */
export function unreadExplanation(
  unread: UnreadPart,
  approvalPolicy: ApprovalPolicy,
): RequirementExplanation {
  return {
    why: unreadText(unread),
    advice: "Write it so that every command it runs is named literally.",
    notAsked: neverAsks(approvalPolicy),
  };
}

/** A command that only may match a restrictive rule: a word of it is known only when it runs. */
export function possibleRuleExplanation(
  match: PrefixRuleMatch,
  approvalPolicy: ApprovalPolicy,
): RequirementExplanation {
  const word = match.matchedPrefix.at(-1) as string;
  return {
    why: possibleRuleText(match),
    advice: `Write \`${word}\` as the literal word it stands for.`,
    notAsked: neverAsks(approvalPolicy),
  };
}

/** A program that is not the one its name says (only ever asked about, never refused). */
export function untrustedProgramExplanation(program: UntrustedProgram): RequirementExplanation {
  return {
    why: untrustedText(program),
    advice: "Run the program by an absolute path outside the workspace, or tell the user.",
    notAsked: null,
  };
}

/** `untrusted` asks about every command not known to be read-only. */
export function notKnownSafeExplanation(part: readonly string[]): RequirementExplanation {
  return {
    why:
      `\`${renderCommand(part)}\` is not known to be read-only, and under the approval policy untrusted ` +
      "only commands known to be read-only run unasked",
    advice: "Use read-only commands only, or tell the user what you need to run and why.",
    notAsked: null,
  };
}

/** The model asked to leave the sandbox (`require_escalated`), which only a person can allow. */
export const ESCALATION_EXPLANATION: RequirementExplanation = {
  why: 'the command asks to run outside the sandbox (sandbox_permissions: "require_escalated"), which only a person can allow',
  advice:
    'Run it again without sandbox_permissions "require_escalated" to run it in the sandbox, or tell the user why it must run outside.',
  notAsked: null,
};

/** A refusal or prompt with nothing more specific to say: the policy's, not a rule's or a danger's. */
export function policyExplanation(
  argv: readonly string[],
  approvalPolicy: ApprovalPolicy,
): RequirementExplanation {
  return {
    why: `\`${renderCommand(argv)}\` needs approval under the approval policy ${approvalPolicy}`,
    advice: "Tell the user what you need to run and why.",
    notAsked: neverAsks(approvalPolicy),
  };
}
