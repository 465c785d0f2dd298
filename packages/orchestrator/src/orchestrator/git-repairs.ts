// After a command ran in the sandbox: what it made in a repository's git dirs that would make the
// person's own git run a program or read from elsewhere, moved aside (sandbox-core's
// `checkGitAfterCommand`), in words the model can pass on.
import { relative } from "node:path";
import { checkGitAfterCommand, type GitRepair, type GitWatch } from "@conch/sandbox-core";

/** A path as the model knows it: relative to the command's directory when it lies there. */
function shown(path: string, cwd: string): string {
  const inside = relative(cwd, path);
  return inside !== "" && !inside.startsWith("..") ? inside : path;
}

/** One line for one repair. */
function gitRepairNotice(repair: GitRepair, cwd: string): string {
  const path = shown(repair.path, cwd);
  if (repair.removed === true) return `Conch removed ${path}, which this command made: ${repair.why}.`;
  if (repair.movedTo === null) return `Conch could not move ${path} aside: ${repair.why}.`;
  if (repair.disabled === true) return `Conch changed ${path} after this command: ${repair.why}.`;
  return `Conch moved ${path}, which this command made, aside to ${shown(repair.movedTo, cwd)}: ${repair.why}.`;
}

/** Checks `watch` (none: nothing to check) and says what was moved aside, a line each. */
export function repairGit(watch: GitWatch | undefined | null, cwd: string): string[] {
  if (watch === undefined || watch === null) return [];
  return checkGitAfterCommand(watch).map((repair) => gitRepairNotice(repair, cwd));
}

/** A hint with the repair lines after it, or null when there is neither. */
export function withRepairs(hint: string | null, notices: readonly string[]): string | null {
  const parts = [...notices, ...(hint === null ? [] : [hint])];
  return parts.length === 0 ? null : parts.join(" ");
}
