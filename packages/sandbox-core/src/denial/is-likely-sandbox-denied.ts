/** Output wording that usually means the sandbox, not the command, made it fail (DESIGN.md §5). */
export const SANDBOX_DENIAL_KEYWORDS: readonly string[] = [
  "operation not permitted",
  "permission denied",
  "read-only file system",
  "seccomp",
  "sandbox",
  "landlock",
  "failed to write file",
  // git, when the repository's config (bound read-only) cannot be changed: the rename over it fails
  // with EBUSY, which none of the words above name.
  "could not write config file",
  "could not lock config file",
];

/** In a session, output later than this after spawn is the program's business, not a denial. */
export const SESSION_DENIAL_WINDOW_MS = 150;

export interface DenialCheckOptions {
  /** The check is for a long-lived session (PTY or pipes) rather than a one-shot run. */
  session?: boolean;
  /** Milliseconds between the session's spawn and the failure being judged. */
  sinceSpawnMs?: number;
  /** The session has exited: its final exit code and output are being judged. */
  exited?: boolean;
}

/**
 * Best-effort guess that a sandboxed command failed because the sandbox denied it: a non-zero exit
 * code and denial wording in the output (case-insensitive). There is no deterministic signal, so
 * the exit codes 2, 126 and 127 never count on their own, and neither does any other code.
 * Call it only for sandboxed runs; `null` (killed by a signal) is never a denial.
 *
 * For sessions only failures within `SESSION_DENIAL_WINDOW_MS` of spawn or at exit count: mid-session,
 * "permission denied" is usually the program talking about its own work.
 */
export function isLikelySandboxDenied(
  exitCode: number | null,
  output: string,
  options: DenialCheckOptions = {},
): boolean {
  if (exitCode === null || exitCode === 0) return false;
  if (options.session === true) {
    const early = options.sinceSpawnMs !== undefined && options.sinceSpawnMs <= SESSION_DENIAL_WINDOW_MS;
    if (!early && options.exited !== true) return false;
  }
  const lower = output.toLowerCase();
  return SANDBOX_DENIAL_KEYWORDS.some((keyword) => lower.includes(keyword));
}
