// The policy words of Codex's protocol (codex-rs/protocol), so config files, flags and MCP clients written
// for Codex mean the same here. Each list runs from strictest to loosest: a project config may only move
// a setting toward the front.

/**
 * When a person is asked before a command runs (Codex's `AskForApproval`):
 * - `untrusted`: only known-safe commands run unasked.
 * - `on-failure`: everything runs in the sandbox unasked; a sandbox denial asks before an unsandboxed retry.
 * - `on-request`: the model asks for escalation (`require_escalated` with a justification).
 * - `never`: nobody is ever asked; what would need asking is rejected with a reason.
 */
export const APPROVAL_POLICIES = ["untrusted", "on-failure", "on-request", "never"] as const;
export type ApprovalPolicy = (typeof APPROVAL_POLICIES)[number];

/**
 * What a command may touch (Codex's `SandboxPolicy` types): `read-only`; `workspace-write` (the session's
 * cwd, a private /tmp, configured roots); `danger-full-access` (no sandbox); `external-sandbox` (Conch
 * already runs inside a sandbox it does not manage, so it adds none).
 */
export const SANDBOX_MODES = [
  "read-only",
  "workspace-write",
  "danger-full-access",
  "external-sandbox",
] as const;
export type SandboxMode = (typeof SANDBOX_MODES)[number];

/** What a tool call asks of the sandbox: `require_escalated` asks to run outside it. */
export const SANDBOX_PERMISSIONS = ["use_default", "require_escalated"] as const;
export type SandboxPermissions = (typeof SANDBOX_PERMISSIONS)[number];

/**
 * A person's answer to an approval request (Codex's `ReviewDecision`):
 * - `approved`: run it this once.
 * - `approved_for_session`: run it, and the same command (same cwd, sandbox permissions, tty) again
 *   without asking until the session ends.
 * - `approved_always`: run it, and store its proposed prefix rule as an allow rule.
 * - `denied`: do not run it; the model is told and may try something else.
 * - `abort`: do not run it, and stop the turn.
 */
export const REVIEW_DECISIONS = [
  "approved",
  "approved_for_session",
  "approved_always",
  "denied",
  "abort",
] as const;
export type ReviewDecision = (typeof REVIEW_DECISIONS)[number];

/** Whether the sandbox Conch runs inside (`external-sandbox`) lets commands reach the network. */
export const NETWORK_ACCESS_MODES = ["restricted", "enabled"] as const;
export type NetworkAccessMode = (typeof NETWORK_ACCESS_MODES)[number];

/**
 * A sandbox policy in Codex's wire form: tagged by `type`, fields in snake_case, Codex's defaults filled
 * in. sandbox-core's `fromCodexSandboxPolicy` turns it into the policy Conch enforces.
 */
export type CodexSandboxPolicy =
  | { type: "read-only" }
  | {
      type: "workspace-write";
      /** Absolute paths writable in addition to the working directory and temp dirs. */
      writable_roots: string[];
      network_access: boolean;
      exclude_tmpdir_env_var: boolean;
      exclude_slash_tmp: boolean;
    }
  | { type: "danger-full-access" }
  | { type: "external-sandbox"; network_access: NetworkAccessMode };
