// Session approvals: once the user answers `approved_for_session`, the same command in the same place
// with the same sandbox request runs without asking again until the session ends.
import { analyze, shellScript } from "@conch/arity-rules";
import type { ReviewDecision, SandboxPermissions } from "@conch/protocol";

/** What identifies one approval: the command, where it runs, what it asks of the sandbox, and its tty. */
export interface ApprovalCacheKeyInput {
  argv: readonly string[];
  cwd: string;
  sandboxPermissions: SandboxPermissions;
  tty: boolean;
}

/**
 * The command an approval is about (Codex's `canonicalize_command_for_approval`): for a
 * `bash|zsh|sh|dash -c|-lc` script that is one plain command, that command's argv, so `bash -lc 'npm
 * test'` and `/bin/bash -c "npm test"` are the same approval; for any other script, the shell and the
 * exact script text; otherwise the argv itself. A shell named by a path outside the system directories
 * is not looked into, so it stays part of the key: `./bash -lc 'npm test'` runs that file, which was
 * never approved.
 */
export async function canonicalCommand(argv: readonly string[]): Promise<readonly string[]> {
  const wrapped = shellScript(argv);
  if (wrapped === null) return [...argv];
  const analysis = await analyze(wrapped.script, { zsh: wrapped.shell === "zsh" });
  const [single] = analysis.commands;
  const isSinglePlainCommand =
    single !== undefined &&
    analysis.commands.length === 1 &&
    analysis.opaque.length === 0 &&
    analysis.redirects.length === 0 &&
    single.nested === null &&
    single.argv.length > 0;
  if (isSinglePlainCommand) return [...single.argv];
  return ["__conch_shell_script__", wrapped.shell, wrapped.flag, wrapped.script];
}

async function cacheKey(input: ApprovalCacheKeyInput): Promise<string> {
  return JSON.stringify([await canonicalCommand(input.argv), input.cwd, input.sandboxPermissions, input.tty]);
}

/**
 * The session's approvals. Only `approved_for_session` is remembered: `approved` is for one run,
 * `approved_always` becomes a stored rule, `denied` and `abort` are asked again. A cached approval only
 * stands in for asking; it never lifts a `forbidden` requirement.
 */
export class ApprovalCache {
  readonly #approved = new Set<string>();

  /** Remembers the decision if it is `approved_for_session`; other decisions change nothing. */
  async record(input: ApprovalCacheKeyInput, decision: ReviewDecision): Promise<void> {
    if (decision === "approved_for_session") this.#approved.add(await cacheKey(input));
  }

  /** True when this command was approved for the session in this cwd, with these permissions and tty. */
  async isApprovedForSession(input: ApprovalCacheKeyInput): Promise<boolean> {
    return this.#approved.has(await cacheKey(input));
  }

  /** How many approvals are remembered. */
  get size(): number {
    return this.#approved.size;
  }

  /** Forgets every approval (the session ended). */
  clear(): void {
    this.#approved.clear();
  }
}
