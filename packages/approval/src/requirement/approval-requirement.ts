// Whether a command may run, must be approved first, or must never run: Codex's
// `create_exec_approval_requirement_for_command`, over Conch's analyser and rules.
import {
  dangerousCommandMatch,
  type Reach,
  type ReachedCommand,
  reachableCommands,
  type UnreadPart,
} from "@conch/arity-rules";
import {
  type Decision,
  type ExecPolicy,
  evaluateExecPolicy,
  executableName,
  matchCommand,
  normalizeAbsolutePath,
  type PrefixRule,
  type PrefixRuleMatch,
  possibleRestrictiveMatches,
  type RuleMatch,
  ruleOfMatch,
  strictestDecision,
} from "@conch/exec-policy";
import { deriveRequestedPrefixRule, prefixRuleForAllow, prefixRuleForPrompt } from "./amendment.js";
import { commandsForExecPolicy } from "./exec-policy-commands.js";
import { programResolver, type UntrustedProgram } from "./program-resolution.js";
import {
  dangerExplanation,
  ESCALATION_EXPLANATION,
  escalationRejectedReason,
  forbiddenReason,
  mostSpecific,
  notKnownSafeExplanation,
  PROMPT_CONFLICT_REASON,
  policyExplanation,
  possibleRuleExplanation,
  possibleRuleReason,
  possibleRuleRejectedReason,
  promptReason,
  type RequirementExplanation,
  ruleExplanation,
  unreadExplanation,
  unreadPromptReason,
  unreadRejectedReason,
  untrustedProgramExplanation,
  untrustedProgramReason,
} from "./reasons.js";
import { renderCommand } from "./render-command.js";
import type {
  ApprovalRequirement,
  ApprovalRequirementInput,
  ExplainedRequirement,
  ProgramLookup,
} from "./types.js";
import { type HeuristicVerdict, judgeUnmatchedCommand } from "./unmatched-command.js";

function forbidden(reason: string, explanation: RequirementExplanation | null): ExplainedRequirement {
  return {
    requirement: { type: "forbidden", reason, proposedRule: null, bypassSandbox: false },
    explanation,
  };
}

/**
 * The requirement for one command. A `bash|zsh|sh|dash -c|-lc SCRIPT` read with certainty is split into
 * its simple commands, and each is checked against the rules; a command no rule matches falls back to
 * the heuristics (known safe, dangerous, then the approval policy). The strictest decision wins
 * (forbidden > prompt > allow). A script the analyser cannot read with certainty is judged whole and
 * never counts as known safe; rules that prompt for or forbid a command inside it still apply. When the
 * rules prompt for or forbid anything at all, a command line that cannot be read completely (see
 * `reachableCommands`) needs approval at least, and is refused under `never`. The sandbox is lifted only
 * when every part is certainly read and allowed by a rule that says `sandbox = "none"`. With `programs`,
 * a command line that reaches a program that is not the one its name says (see `ProgramLookup`) has no
 * part known safe or allowed by a rule, and keeps the sandbox. Never runs anything; `programs` is
 * resolved by reading file metadata only.
 */
export async function approvalRequirement(input: ApprovalRequirementInput): Promise<ApprovalRequirement> {
  return (await explainedApprovalRequirement(input)).requirement;
}

/**
 * `approvalRequirement`, with what decided a requirement other than `skip` in words a model can act on
 * (see `RequirementExplanation`): the part of the command line, the rule and where it is written, the
 * danger, or the policy, and what to do instead. The explanation is null for `skip`, and for an
 * escalation refused outright, whose reason already says what to do.
 */
export async function explainedApprovalRequirement(
  input: ApprovalRequirementInput,
): Promise<ExplainedRequirement> {
  const { argv, execPolicy: policy, approvalPolicy, sandboxMode, sandboxPermissions, programs } = input;
  if (sandboxPermissions === "require_escalated" && approvalPolicy !== "on-request") {
    return forbidden(escalationRejectedReason(approvalPolicy), null);
  }

  const parsed = await commandsForExecPolicy(argv);
  // Rules that prompt for or forbid a program apply to whatever runs it, however it is reached: behind
  // wrappers and runners (`timeout 5 rm`, `sudo rm`), in substitutions, eval, trap or find -exec, and in
  // scripts judged as a whole. Rules that allow apply only to the parsed commands.
  const reach = await reachableCommands(argv);
  const resolved = programs === undefined ? null : resolvePrograms(argv, reach, programs);
  const untrusted = resolved?.untrusted ?? null;
  // A program that is not the one its name says is not what an allow rule or the known-safe list means.
  const ruling = untrusted === null ? policy : withoutAllowRules(policy);
  const context = {
    approvalPolicy,
    sandboxMode,
    sandboxPermissions,
    usedComplexParsing: !parsed.mayBeKnownSafe || reach.unread.length > 0 || untrusted !== null,
  };
  const verdicts = new Map<string, HeuristicVerdict>();
  for (const command of parsed.commands) {
    verdicts.set(JSON.stringify(command), await judgeUnmatchedCommand(command, context));
  }
  const verdictOf = (command: readonly string[]): HeuristicVerdict => {
    const verdict = verdicts.get(JSON.stringify(command));
    if (verdict === undefined) throw new Error(`no heuristic verdict for ${JSON.stringify(command)}`);
    return verdict;
  };
  const fallback = (command: readonly string[]): Decision => verdictOf(command).decision;

  const evaluation = evaluateExecPolicy(ruling, parsed.commands, { fallback });
  // A PATH set on the command line changes which program a name runs, not which name a rule sees.
  const unreadParts = reach.unread.filter((part) => part.reason !== "program-path");
  const judged = new Set([argv, ...parsed.commands].map((command) => JSON.stringify(command)));
  const reached: ReachedCommand[] = [
    ...parsed.innerCommands.map((command) => ({ argv: command })),
    ...reach.commands,
  ].filter((command) => !judged.has(JSON.stringify(command.argv)));
  const mentioned = mentionedRestrictions(argv, unreadParts, policy);
  // The parsed commands were matched as Codex resolves names (an absolute path only, and not when
  // `host_executable()` lists other paths for the name); a restrictive rule holds for the program
  // whatever path names it (`./rm`, `bin/rm`, `../../usr/bin/rm`, `/bin/rm`), as for reached commands.
  const renamed = parsed.commands.flatMap((command) =>
    restrictiveMatches(policy, command).filter(
      (match) => !evaluation.matchedRules.some((found) => sameMatch(found, match)),
    ),
  );
  const restrictions = [
    ...renamed,
    ...reached.flatMap((command) => restrictiveMatches(policy, command.argv)),
    ...mentioned.certain,
  ];
  // Restrictive rules that may apply, but not certainly: they ask, and never forbid.
  const possible = [
    ...reached.flatMap((command) => possibleRestrictiveMatches(policy, command.argv, command.dynamic ?? [])),
    ...mentioned.possible,
  ];
  const matchedRules: RuleMatch[] = [...evaluation.matchedRules, ...restrictions];
  // A command line that cannot be read completely may run a program a rule restricts without naming it
  // where a rule could see it (`a=rm; $a f`, `echo rm f | sh`): it needs approval at least.
  const unread = hasRestrictiveRules(policy) ? (unreadParts[0] ?? null) : null;
  const ruled = strictestDecision(matchedRules.map((match) => match.decision)) as Decision;
  const uncertain = unread !== null || possible.length > 0;
  // Danger only the whole line shows (`curl x | sh`: neither part is dangerous alone) asks like a
  // dangerous command, or is forbidden under never, unless a rule allowed every part.
  const lineDanger =
    parsed.commands.length > 1 &&
    !parsed.commands.some((command) => verdictOf(command).dangerous !== null) &&
    !parsed.commands.every((command) =>
      matchCommand(policy, command, "resolve").some((match) => match.decision === "allow"),
    )
      ? await dangerousCommandMatch(argv)
      : null;
  const asked = (uncertain || lineDanger !== null) && ruled === "allow" ? "prompt" : ruled;
  const decision =
    lineDanger !== null && asked === "prompt" && approvalPolicy === "never" ? "forbidden" : asked;
  // A heredoc command's words are not all of what runs, so no rule is proposed from them; nor when the
  // prompt comes from what could not be read, since no allow rule would lift it.
  const proposalsAllowed = !parsed.usedComplexParsing && !uncertain && untrusted === null;
  const uncertainReason = (rejected: boolean): string | null => {
    if (unread !== null)
      return rejected ? unreadRejectedReason(argv, unread) : unreadPromptReason(argv, unread);
    const [first] = possible;
    if (first === undefined) return null;
    return rejected ? possibleRuleRejectedReason(argv, first) : possibleRuleReason(argv, first);
  };
  const uncertainExplanation = (): RequirementExplanation | null => {
    if (unread !== null) return unreadExplanation(unread, approvalPolicy);
    const [first] = possible;
    return first === undefined ? null : possibleRuleExplanation(first, approvalPolicy);
  };
  // The rule that decided it, with the simple command it matched (none when only named where the
  // command line cannot be read).
  const ruleDecided = (decision: "prompt" | "forbidden"): RequirementExplanation | null => {
    const match = mostSpecific(matchedRules, decision);
    if (match === null) return null;
    const part =
      [...parsed.commands, ...reached.map((command) => command.argv)].find((command) =>
        matchCommand(policy, command, "restrictive").some((found) => sameRule(found, match)),
      ) ?? null;
    return ruleExplanation(part, match, ruleOfMatch(policy, match), approvalPolicy);
  };
  // What the heuristics asked about: a dangerous command first, then the first command they asked for.
  const heuristicsDecided = (): RequirementExplanation | null => {
    const asked = matchedRules.flatMap((match) =>
      match.type === "heuristicsRuleMatch" && match.decision !== "allow" ? [match.command] : [],
    );
    for (const command of asked) {
      const danger = verdictOf(command).dangerous;
      if (danger !== null) return dangerExplanation(danger, approvalPolicy);
    }
    const [first] = asked;
    if (first === undefined) return null;
    if (sandboxPermissions === "require_escalated") return ESCALATION_EXPLANATION;
    return approvalPolicy === "untrusted" ? notKnownSafeExplanation(first) : null;
  };

  switch (decision) {
    case "forbidden": {
      const refused = matchedRules.find(
        (match) => match.type === "heuristicsRuleMatch" && match.decision === "forbidden",
      );
      const dangerous =
        refused?.type === "heuristicsRuleMatch" ? verdictOf(refused.command).dangerous : lineDanger;
      const explanation =
        ruleDecided("forbidden") ??
        (dangerous === null ? null : dangerExplanation(dangerous, approvalPolicy)) ??
        policyExplanation(argv, approvalPolicy);
      return forbidden(forbiddenReason(argv, matchedRules, dangerous), explanation);
    }
    case "prompt": {
      const ruleReason = promptReason(argv, matchedRules);
      const explanation =
        ruleDecided("prompt") ??
        uncertainExplanation() ??
        (untrusted === null ? null : untrustedProgramExplanation(untrusted)) ??
        (lineDanger === null ? null : dangerExplanation(lineDanger, approvalPolicy)) ??
        heuristicsDecided() ??
        policyExplanation(argv, approvalPolicy);
      if (approvalPolicy === "never") {
        return forbidden(
          ruleReason === null ? (uncertainReason(true) ?? PROMPT_CONFLICT_REASON) : PROMPT_CONFLICT_REASON,
          explanation,
        );
      }
      const requested = proposalsAllowed
        ? deriveRequestedPrefixRule(input.prefixRule, matchedRules, policy, parsed.commands, fallback)
        : null;
      return {
        requirement: {
          type: "needs-approval",
          reason:
            ruleReason ??
            uncertainReason(false) ??
            (untrusted === null ? null : untrustedProgramReason(argv, untrusted)) ??
            (lineDanger === null ? null : `\`${renderCommand(argv)}\` is dangerous: ${lineDanger.reason}`),
          proposedRule: requested ?? (proposalsAllowed ? prefixRuleForPrompt(matchedRules) : null),
          bypassSandbox: false,
        },
        explanation,
      };
    }
    case "allow":
      return {
        requirement: {
          type: "skip",
          reason: null,
          proposedRule: proposalsAllowed ? prefixRuleForAllow(matchedRules) : null,
          bypassSandbox:
            parsed.mayBeKnownSafe &&
            reach.unread.length === 0 &&
            (resolved === null || (untrusted === null && resolved.certain)) &&
            [...parsed.commands, ...reached.map((command) => command.argv)].every((command) =>
              liftsSandbox(policy, command),
            ),
        },
        explanation: null,
      };
  }
}

/** The prompt and forbidden rules for a program's name, whatever path names it. */
function restrictiveMatches(policy: ExecPolicy, command: readonly string[]): PrefixRuleMatch[] {
  return matchCommand(policy, command, "restrictive").filter((match) => match.decision !== "allow");
}

/** A rule match already reported: the same rule, matched on the same words. */
function sameMatch(found: RuleMatch, match: PrefixRuleMatch): boolean {
  return (
    found.type === "prefixRuleMatch" &&
    sameRule(found, match) &&
    found.resolvedProgram === match.resolvedProgram
  );
}

/** The same rule's match: the one the requirement names, found again on the command it came from. */
function sameRule(a: PrefixRuleMatch, b: PrefixRuleMatch): boolean {
  return (
    a.decision === b.decision &&
    a.justification === b.justification &&
    a.matchedPrefix.length === b.matchedPrefix.length &&
    a.matchedPrefix.every((token, index) => token === b.matchedPrefix[index])
  );
}

/**
 * Only a rule that says so leaves the sandbox: an allow rule with `sandbox = "none"` matching the
 * command. An allow rule alone means "run without asking", in the sandbox; the heuristics never lift it.
 * The program must be named as the rule names it, or by a path `host_executable()` lists for it: a rule
 * for `npm` must not take `./npm` or `/work/repo/npm`, a file the agent may have written, out of the
 * sandbox.
 */
function liftsSandbox(policy: ExecPolicy, command: readonly string[]): boolean {
  const [first] = command;
  const name = first === undefined ? null : executableName(first);
  const listed =
    first !== undefined &&
    name !== null &&
    first.startsWith("/") &&
    policy.hostExecutables.get(name)?.includes(normalizeAbsolutePath(first)) === true;
  return matchCommand(policy, command, listed ? "resolve" : "exact").some(
    (match) => match.decision === "allow" && match.sandbox === "none",
  );
}

/** The policy without its allow rules, for a command line whose programs are not what their names say. */
function withoutAllowRules(policy: ExecPolicy): ExecPolicy {
  const rulesByProgram = new Map<string, PrefixRule[]>();
  for (const [program, rules] of policy.rulesByProgram) {
    const restrictive = rules.filter((rule) => rule.decision !== "allow");
    if (restrictive.length > 0) rulesByProgram.set(program, restrictive);
  }
  return { ...policy, rulesByProgram };
}

// Builtins that change the shell's working directory, which relative paths are resolved against.
const DIRECTORY_CHANGES: ReadonlySet<string> = new Set(["cd", "pushd", "popd"]);

/**
 * The first program the command line reaches that is not the one its name says, and whether every one
 * of them certainly resolves where it does now (see `Resolution`). Builtins the shell runs itself and
 * names known only when the command runs are not looked up; a name inside a command line that sets PATH
 * resolves nowhere known.
 */
function resolvePrograms(
  argv: readonly string[],
  reach: Reach,
  lookup: ProgramLookup,
): { untrusted: UntrustedProgram | null; certain: boolean } {
  const changesDirectory = reach.commands.some(
    (command) => command.builtin === true && DIRECTORY_CHANGES.has(command.argv[0] ?? ""),
  );
  const pathChanged = reach.unread.some((part) => part.reason === "program-path");
  const resolve = programResolver(lookup, changesDirectory);
  let certain = true;
  const seen = new Set<string>();
  for (const command of reach.commands) {
    const [program] = command.argv;
    if (command.builtin === true || program === undefined || program === "" || command.dynamic?.includes(0)) {
      continue;
    }
    if (seen.has(program)) continue;
    seen.add(program);
    // The command line itself and its runners (suffixes of argv) start before anything in it sets PATH.
    const outermost =
      command.argv.length <= argv.length &&
      command.argv.every((word, index) => word === argv[argv.length - command.argv.length + index]);
    if (pathChanged && !outermost && !program.includes("/")) {
      return {
        untrusted: { name: program, resolved: null, target: null, entry: null, reason: "path-changed" },
        certain: false,
      };
    }
    const resolution = resolve(program);
    if (resolution.untrusted !== null) return { untrusted: resolution.untrusted, certain: false };
    certain &&= resolution.certain;
  }
  return { untrusted: null, certain };
}

function hasRestrictiveRules(policy: ExecPolicy): boolean {
  for (const rules of policy.rulesByProgram.values()) {
    if (rules.some((rule) => rule.decision !== "allow")) return true;
  }
  return false;
}

// Characters that cannot be part of a program's name: on each side of a name, they bound it.
const NAME_CHARACTERS = "A-Za-z0-9_.+";

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * A command line that cannot be read completely may run any program its text names: every rule that
 * prompts for or forbids a program applies when that program's name appears anywhere in the words, with
 * line continuations, backslashes and quotes taken out (`r\<newline>m`, `r''m`, `"r"m` are `rm`), after
 * any character that cannot be in a name (`$a=rm`, `${x:-rm}`, `/bin/rm`, `!rm`). A rule on the program
 * alone applies as it is (`certain`); one with a longer pattern (`git push`) only may (`possible`), as the
 * name alone does not say the rest. Fails closed; an allow rule never applies this way.
 */
function mentionedRestrictions(
  argv: readonly string[],
  unread: readonly UnreadPart[],
  policy: ExecPolicy,
): { certain: PrefixRuleMatch[]; possible: PrefixRuleMatch[] } {
  const found = { certain: [] as PrefixRuleMatch[], possible: [] as PrefixRuleMatch[] };
  if (unread.length === 0) return found;
  const text = argv
    .join(" ")
    .replace(/\\\r?\n/g, "")
    .replace(/[\\'"]/g, "");
  for (const [program, rules] of policy.rulesByProgram) {
    const name = new RegExp(`(^|[^${NAME_CHARACTERS}])${escapeRegExp(program)}(?![${NAME_CHARACTERS}-])`);
    if (!name.test(text)) continue;
    for (const rule of rules) {
      if (rule.decision === "allow") continue;
      const programOnly = rule.rest.length === 0;
      (programOnly ? found.certain : found.possible).push({
        type: "prefixRuleMatch",
        matchedPrefix: [program],
        decision: programOnly ? rule.decision : "prompt",
        resolvedProgram: null,
        justification: rule.justification,
      });
    }
  }
  return found;
}
