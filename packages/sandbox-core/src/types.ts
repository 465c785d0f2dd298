// The shapes every sandbox package shares. Anything exported from index.ts is public API.

/** How much a command may touch (DESIGN.md §5). */
export type SandboxPolicy =
  | { mode: "read-only" }
  | { mode: "workspace-write"; writableRoots?: string[]; networkAccess?: boolean }
  | { mode: "danger-full-access" }
  | { mode: "external-sandbox" };

export type SandboxMode = SandboxPolicy["mode"];

/** A writable root and the paths inside it that stay read-only. */
export interface WritableRoot {
  /** Canonical absolute path. */
  root: string;
  /** Canonical absolute paths inside `root` that must stay read-only (`.git`, its real gitdir, `.conch`, `.agents`). */
  readOnlySubpaths: string[];
  /** Paths inside `root` that do not exist yet and must not be created (the cwd's `.conch`). */
  blockedMissing: string[];
}

/** A policy resolved against a cwd: what a backend enforces. */
export interface SandboxRules {
  mode: SandboxMode;
  /** Readable roots (`/` for every mode today). */
  readableRoots: string[];
  /** Empty under read-only. */
  writableRoots: WritableRoot[];
  network: boolean;
}

/** What is spawned: a backend rewrites it to run inside the sandbox. */
export interface SpawnSpec {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  /** Data the child reads on extra descriptors 3, 4, ... (e.g. a seccomp program for `bwrap --seccomp 3`). */
  extraFds: Uint8Array[];
}

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
