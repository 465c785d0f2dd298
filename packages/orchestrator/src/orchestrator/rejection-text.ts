// What the model reads when its command did not run, and what the person asked reads of why: the
// orchestrator's rejection and failure texts, in one place. A rejection says why (the part of the
// command line, the rule and where it is written, the danger or the policy), whether a person was asked,
// and what the model can do instead; a person's own no stays Codex's "rejected by user".
import type { RequirementExplanation } from "@conch/approval";
import type { SandboxMode } from "@conch/protocol";

/** Codex's words when the person says no (orchestrator.rs), so a model trained on Codex knows them. */
export const REJECTED_BY_USER = "rejected by user";
/** The reason of a command whose call was canceled while it waited for approval. */
export const CANCELED_BEFORE_START = "canceled before the command started";
/** The reason of a forbidden command whose rule gives none. */
export const REJECTED_BY_POLICY = "rejected by policy";
/** Why a command that a rule or the policy would run unasked is asked about: it wants out of the sandbox. */
export const ESCALATION_REASON =
  "the command asks to run outside the sandbox (sandbox_permissions: require_escalated)";
/** Codex's question when a sandboxed command failed and running it outside the sandbox needs a yes. */
export const RETRY_WITHOUT_SANDBOX_REASON = "command failed; retry without sandbox?";

/** The failure message of a command whose cwd is not a directory (the tools word it by their field). */
export function cwdNotFoundText(cwd: string): string {
  return `invalid request: cwd: no such directory: ${cwd}`;
}

/** `text` as a sentence: a full stop added unless it ends in one. */
function sentence(text: string): string {
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

/**
 * A command the rules or the policy refuse: the reason (Codex's text where Codex has one), then why and
 * that nobody was asked, and what to do instead. A reason that says it all has no explanation.
 */
export function forbiddenText(reason: string, explanation: RequirementExplanation | null): string {
  if (explanation === null) return reason;
  const notAsked =
    explanation.notAsked === null ? "No one was asked." : `No one was asked: ${explanation.notAsked}.`;
  return `${reason}\nWhy: ${sentence(explanation.why)}\n${notAsked} ${explanation.advice}`;
}

/**
 * A command that needs a yes where nobody can be asked: why it needs one, and what the model can do
 * instead. `hint` says how a person could allow it where this runs (the CLI's `--approver`).
 */
export function noApproverText(explanation: RequirementExplanation | null, hint: string | null): string {
  const text =
    "this command needs approval, and no one can be asked here; " +
    `the command did not run${hint === null ? "" : ` (${hint})`}`;
  return explanation === null ? text : `${text}\nWhy: ${sentence(explanation.why)}\n${explanation.advice}`;
}

/** Why the retry outside the sandbox after a denial is asked about, for when nobody can be asked. */
export function retryExplanation(mode: SandboxMode): RequirementExplanation {
  return {
    why: `the sandbox (${mode}) appears to have blocked it, and running it again outside the sandbox needs a person's yes`,
    advice: "Change the command to stay within the writable roots, or tell the user what it needs.",
    notAsked: null,
  };
}

/** A tool's text for a command that could not start; `cwdField` names the argument that gave the cwd. */
export function notStartedText(
  tool: string,
  failure: { readonly code: string; readonly message: string },
  cwdField: string,
  cwd: string,
): string {
  return failure.code === "CWD_NOT_FOUND"
    ? `${tool}: ${cwdField}: no such directory: ${cwd}`
    : `${tool}: the command could not start: ${failure.message}`;
}
