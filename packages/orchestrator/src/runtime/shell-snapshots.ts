import {
  type CaptureShellSnapshotResult,
  captureShellSnapshot,
  isSnapshotCurrent,
  type Shell,
  snapshotExecArgs,
} from "@conch/shell-detect";

export interface ShellSnapshotsOptions {
  /** Where snapshot files go (under Conch's state dir; readable inside the sandbox). */
  readonly dir: string;
  /** The environment the login shell starts with: the real one. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Which exported variables a snapshot may carry: the env policy, less what Conch sets itself. */
  readonly keep: (name: string, value: string) => boolean;
  /** A snapshot older than this is captured again (config `shell_snapshot_ttl_s`). */
  readonly ttlMs: number;
  readonly timeoutMs?: number;
  readonly now?: () => number;
}

/** Why a shell has no snapshot to run with, or the snapshot file it runs with. */
export type ShellSnapshotStatus =
  | { readonly ok: true; readonly path: string }
  | { readonly ok: false; readonly reason: string };

interface Entry {
  readonly result: Promise<CaptureShellSnapshotResult>;
  readonly startedAt: number;
}

/**
 * The user's login environment, captured once per shell and runtime (DESIGN.md §2, shell-detect) outside
 * the sandbox, and applied to every command that asked for a login shell: the profile runs once, not per
 * command, and what it prints never reaches a model. Captured again when a startup file changed or the
 * TTL passed; a capture that failed is retried only after the TTL, and meanwhile commands run as login
 * shells, as without snapshots.
 */
export class ShellSnapshots {
  readonly #options: ShellSnapshotsOptions;
  readonly #entries = new Map<string, Entry>();

  constructor(options: ShellSnapshotsOptions) {
    this.#options = options;
  }

  /** The argv that runs `script` in `shell` with its snapshot, or null to run it as a login shell. */
  async argvFor(shell: Shell, script: string): Promise<string[] | null> {
    const result = await this.#current(shell);
    return result.ok ? snapshotExecArgs(result.snapshot, script) : null;
  }

  /** What `argvFor` would use for `shell`, capturing it now if needed: for `conch sandbox --check`. */
  async status(shell: Shell): Promise<ShellSnapshotStatus> {
    const result = await this.#current(shell);
    return result.ok ? { ok: true, path: result.snapshot.path } : { ok: false, reason: result.reason };
  }

  async #current(shell: Shell): Promise<CaptureShellSnapshotResult> {
    const now = (this.#options.now ?? Date.now)();
    const entry = this.#entries.get(shell.path);
    if (entry !== undefined && (await this.#usable(entry, now))) return entry.result;
    // A call that waited alongside this one may have started the new capture already.
    const latest = this.#entries.get(shell.path);
    if (latest !== undefined && latest !== entry) return latest.result;
    const result = captureShellSnapshot(shell, {
      dir: this.#options.dir,
      env: this.#options.env,
      keep: this.#options.keep,
      ...(this.#options.timeoutMs === undefined ? {} : { timeoutMs: this.#options.timeoutMs }),
    }).catch((error: unknown) => ({ ok: false as const, reason: (error as Error).message }));
    this.#entries.set(shell.path, { result, startedAt: now });
    return result;
  }

  /** A snapshot until a startup file changes or the TTL passes; a failure until the TTL passes. */
  async #usable(entry: Entry, now: number): Promise<boolean> {
    const result = await entry.result;
    return result.ok
      ? isSnapshotCurrent(result.snapshot, { ttlMs: this.#options.ttlMs, now })
      : now - entry.startedAt < this.#options.ttlMs;
  }
}
