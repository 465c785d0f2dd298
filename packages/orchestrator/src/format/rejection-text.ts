// What the model reads when its command did not run, and what the person asked reads of why: the
// orchestrator's rejection and failure texts, in one place.

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

/** A command that needs a yes where nobody can be asked; `hint` says how a person could allow it. */
export function noApproverText(reason: string | null, hint: string | null): string {
  return (
    `${reason ?? "this command needs approval"}, and no one can be asked here; ` +
    `the command did not run${hint === null ? "" : ` (${hint})`}`
  );
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
