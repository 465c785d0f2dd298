import type { ExecResult } from "@conch/protocol";

const MIB = 1024 * 1024;

/**
 * Each resource limit the kernel enforced on a command (a one-shot, or a session once it has exited),
 * named with its config key.
 */
export function limitsNotice(reached: ExecResult["limitsReached"]): string[] {
  return reached.map(({ kind, limit }) => {
    switch (kind) {
      case "memory":
        return `Killed: the command reached its memory limit of ${Math.round(limit / MIB)} MB (limits.memory_mb in the user's Conch config).`;
      case "processes":
        return `The command reached its process limit of ${limit} (limits.processes): starting more processes and threads failed.`;
      case "file":
        return `The command reached its file size limit of ${Math.round(limit / MIB)} MB (limits.file_mb): no file can grow past it.`;
      case "tmp":
        return `/tmp is full: it holds at most ${Math.round(limit / MIB)} MB (limits.tmp_mb); remove what is no longer needed from it, or write large files in the workspace.`;
    }
    return `The command reached a limit (${kind}).`;
  });
}
