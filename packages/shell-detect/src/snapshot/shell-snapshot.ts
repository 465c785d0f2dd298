import type { Shell, ShellType } from "../shell-type.js";

/** The shells a snapshot can be taken of; fish, PowerShell and cmd have no POSIX startup files. */
const SNAPSHOT_SHELL_TYPES: readonly ["bash", "zsh", "sh", "dash"] = [
  "bash",
  "zsh",
  "sh",
  "dash",
] as const satisfies readonly ShellType[];

export type SnapshotShellType = (typeof SNAPSHOT_SHELL_TYPES)[number];

export function isSnapshotShellType(type: string): type is SnapshotShellType {
  return (SNAPSHOT_SHELL_TYPES as readonly string[]).includes(type);
}

export function unsupportedSnapshotReason(type: string): string {
  return `shell snapshots are not supported for ${type} (only ${SNAPSHOT_SHELL_TYPES.join(", ")})`;
}

/** A startup file as it was when the snapshot was taken: `mtimeMs` null when the file did not exist. */
export interface SnapshotSource {
  readonly path: string;
  readonly mtimeMs: number | null;
}

/**
 * What the user's login shell had set up (exported variables, aliases, functions, options), written to
 * `path` as a script that a non-login shell loads before each command. A plain object, safe to keep as
 * JSON.
 */
export interface ShellSnapshot {
  readonly shell: Shell;
  readonly path: string;
  /** When the capture started, in milliseconds since the epoch. */
  readonly capturedAt: number;
  /** The startup files the shell reads, so a change to any of them makes the snapshot stale. */
  readonly sources: readonly SnapshotSource[];
  /** The PATH the snapshot exports (what commands look programs up in), or null when it sets none. */
  readonly pathVariable: string | null;
  /**
   * The history file the shell writes (HISTFILE once the startup files are done, relative to the
   * home), or null when it keeps none: a caller hides it from sandboxed commands whatever its name.
   */
  readonly historyFile: string | null;
  /**
   * The exported variables whose value is an absolute path or a list of them (KUBECONFIG,
   * GNUPGHOME, XDG_CONFIG_HOME…) as the startup files left them, whatever the env policy keeps: a
   * caller hides the credentials they name, which the environment it started with may not say.
   */
  readonly exportedPaths: Readonly<Record<string, string>>;
}
