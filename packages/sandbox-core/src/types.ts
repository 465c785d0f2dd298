// The shapes every sandbox package shares. Anything exported from index.ts is public API.
import type { SandboxMode, SpawnSpec } from "@conch/protocol";

/**
 * How much a command may touch (DESIGN.md §5): the policy Conch enforces. Only workspace-write takes
 * options. A policy in Codex's wire form becomes one with `fromCodexSandboxPolicy`.
 */
export type SandboxPolicy =
  | { mode: Exclude<SandboxMode, "workspace-write"> }
  | { mode: "workspace-write"; writableRoots?: string[]; networkAccess?: boolean };

/** A writable root and the paths inside it that stay read-only. */
export interface WritableRoot {
  /** Canonical absolute path. */
  root: string;
  /**
   * Canonical absolute paths inside `root` that exist and must stay read-only: `.git` (and the gitdir a
   * `.git` file names), `.conch`, `.agents`, shell startup files, and Conch's own config and state.
   */
  readOnlySubpaths: string[];
}

/**
 * What the command sees at `/tmp` (and at the host's `$TMPDIR`, when that is another absolute path).
 * - `private`: a persistent directory of this workspace (under Conch's state dir), bound writable, so
 *   calls of one project share it and nothing of the host's `/tmp` is visible;
 * - `empty`: a fresh, empty tmpfs for each command (read-only mode: nothing reaches the host);
 * - `host`: the host's own, untouched (no sandbox).
 */
export type TmpRule =
  | { kind: "private"; source: string; targets: string[] }
  | { kind: "empty"; targets: string[] }
  | { kind: "host" };

/** A path whose contents the command must not read (a secret, Conch's own state). */
export interface HiddenPath {
  /** Canonical absolute path that exists. */
  path: string;
  /** A directory is replaced by an empty unreadable one, a file by an empty unreadable file. */
  type: "dir" | "file";
  /** Canonical paths inside `path` that stay readable, read-only (this workspace's spill files). */
  readable: string[];
}

/** A policy resolved for one command: what a backend enforces. */
export interface SandboxRules {
  mode: SandboxMode;
  /** Readable roots (`/` for every mode today), less `hidden`. */
  readableRoots: string[];
  /** Empty under read-only. Disjoint: none lies inside another. */
  writableRoots: WritableRoot[];
  tmp: TmpRule;
  /** Reads denied by default (`~/.ssh`, ...) and by config, minus exceptions; none contains a writable root. */
  hidden: HiddenPath[];
  network: boolean;
}

export type { SpawnSpec };

export type Availability = { available: true } | { available: false; reason: string; fix: string };

export interface SandboxBackend {
  /** `bwrap` (Linux), `seatbelt` (macOS), ... — the value of `CONCH_SANDBOX` in the child. */
  readonly name: string;
  readonly platform: NodeJS.Platform;
  /** Whether this backend can sandbox here, and if not, why and how to fix it. Cached by the backend. */
  available(): Promise<Availability>;
  /** `spec` rewritten to run under `rules`; `options.tty` for PTY sessions (no new session). */
  transform(spec: SpawnSpec, rules: SandboxRules, options?: { tty?: boolean }): Promise<SpawnSpec>;
}
