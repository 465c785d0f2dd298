import { realpathSync } from "node:fs";
import { environmentDenyRead } from "@conch/sandbox-core";
import {
  type CaptureShellSnapshotResult,
  captureShellSnapshot,
  isSnapshotCurrent,
  type Shell,
  type ShellRunner,
  type ShellSnapshot,
  snapshotExecArgs,
} from "@conch/shell-detect";
import { readRecord, recordName, writeRecord } from "./snapshot-records.js";

export interface ShellSnapshotsOptions {
  /** Where snapshot files go (under Conch's state dir; readable inside the sandbox). */
  readonly dir: string;
  /** Where a capture's work files go (never readable inside a sandbox: they hold the whole env). */
  readonly workDir: string;
  /** The environment the login shell starts with: the real one. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Which exported variables a snapshot may carry: the env policy, less what Conch sets itself. */
  readonly keep: (name: string, value: string) => boolean;
  /** A snapshot older than this is captured again (config `shell_snapshot_ttl_s`). */
  readonly ttlMs: number;
  readonly timeoutMs?: number;
  readonly now?: () => number;
}

/** How the orchestrator lets a capture run: in its sandbox, knowing what a sandboxed command can write. */
export interface SnapshotContext {
  readonly run: ShellRunner;
  /** The session's writable roots: a startup file in one is the agent's to change. */
  readonly writableRoots: readonly string[];
}

/** What a capture says the user's shell names, for the sandbox to hide. */
export interface SnapshotNames {
  /** The history file the user's shell writes (the snapshot's HISTFILE). */
  readonly historyFile?: string;
  /** The paths the profile exports that move a credential (KUBECONFIG, GNUPGHOME…). */
  readonly exportedPaths: Readonly<Record<string, string>>;
}

/**
 * The argv a command runs with and the PATH its programs resolve in; or why there is no snapshot, with
 * what the capture named when there was one that is not used (hiding it is never wrong).
 */
export type SnapshotUse =
  | {
      readonly ok: true;
      readonly argv: string[];
      readonly pathVariable: string | null;
      readonly file: string;
      readonly names: SnapshotNames;
    }
  | { readonly ok: false; readonly reason: string; readonly names?: SnapshotNames };

interface Entry {
  readonly result: Promise<CaptureShellSnapshotResult>;
  readonly startedAt: number;
}

function isAtOrInside(path: string, root: string): boolean {
  return path === root || path.startsWith(root === "/" ? "/" : `${root}/`);
}

/**
 * The user's login environment, captured once per shell and runtime (DESIGN.md §2, shell-detect) and
 * applied to every command that asked for a login shell: the profile runs once, not per command, and
 * what it prints never reaches a model. The capture runs in the sandbox (the caller's runner): startup
 * files may run programs a sandboxed command could have written. Captured again when a startup file
 * changed or the TTL passed; a capture that failed is retried only after the TTL, and meanwhile
 * commands run as login shells, as without snapshots. A snapshot whose startup files lie in a writable
 * root is not used: the agent could have written what every later command would load. Each capture is
 * recorded on disk (`snapshot-records`) for the next process, which uses it on the same terms.
 */
export class ShellSnapshots {
  readonly #options: ShellSnapshotsOptions;
  readonly #entries = new Map<string, Entry>();

  constructor(options: ShellSnapshotsOptions) {
    this.#options = options;
  }

  /** How `script` runs in `shell` with its snapshot, or why it runs as a login shell instead. */
  async use(shell: Shell, script: string, context: SnapshotContext): Promise<SnapshotUse> {
    const result = await this.#current(shell, context);
    if (!result.ok) return result;
    const { historyFile, exportedPaths } = result.snapshot;
    const names = { ...(historyFile === null ? {} : { historyFile }), exportedPaths };
    const writable = writableSource(result.snapshot, context.writableRoots);
    if (writable !== null) {
      return {
        ok: false,
        reason:
          `the startup file ${writable} lies in a writable root, where a sandboxed command could change ` +
          "what every later command loads; commands run login shells (in the sandbox) instead",
        names,
      };
    }
    return {
      ok: true,
      argv: snapshotExecArgs(result.snapshot, script),
      pathVariable: result.snapshot.pathVariable,
      file: result.snapshot.path,
      names,
    };
  }

  async #current(shell: Shell, context: SnapshotContext): Promise<CaptureShellSnapshotResult> {
    const now = (this.#options.now ?? Date.now)();
    const entry = this.#entries.get(shell.path);
    if (entry !== undefined && (await this.#usable(entry, now))) return entry.result;
    // A call that waited alongside this one may have started the new capture already.
    const latest = this.#entries.get(shell.path);
    if (latest !== undefined && latest !== entry) return latest.result;
    const result = this.#recordedOrCaptured(shell, context, now);
    this.#entries.set(shell.path, { result, startedAt: now });
    return result;
  }

  /**
   * The snapshot an earlier Conch process captured with this environment while it is current (its
   * startup files unchanged, within the TTL), else a new capture, recorded for the processes after.
   */
  async #recordedOrCaptured(
    shell: Shell,
    context: SnapshotContext,
    now: number,
  ): Promise<CaptureShellSnapshotResult> {
    const { dir, env, keep, ttlMs } = this.#options;
    const name = recordName(shell, env, keep);
    const recorded = await readRecord(dir, name, shell);
    if (recorded !== undefined && isSnapshotCurrent(recorded, { ttlMs, now })) {
      return { ok: true, snapshot: recorded };
    }
    const result = await captureShellSnapshot(shell, {
      dir,
      workDir: this.#options.workDir,
      env,
      keep,
      run: context.run,
      ...(this.#options.timeoutMs === undefined ? {} : { timeoutMs: this.#options.timeoutMs }),
    }).catch((error: unknown) => ({ ok: false as const, reason: (error as Error).message }));
    if (!result.ok) return result;
    const snapshot = { ...result.snapshot, exportedPaths: credentialPaths(result.snapshot.exportedPaths) };
    // Not recorded, the next process captures again: slower, never wrong.
    await writeRecord(dir, name, snapshot).catch(() => {});
    return { ok: true, snapshot };
  }

  /** A snapshot until a startup file changes or the TTL passes; a failure until the TTL passes. */
  async #usable(entry: Entry, now: number): Promise<boolean> {
    const result = await entry.result;
    return result.ok
      ? isSnapshotCurrent(result.snapshot, { ttlMs: this.#options.ttlMs, now })
      : now - entry.startedAt < this.#options.ttlMs;
  }
}

/**
 * Of the paths a profile exports, those that move a credential or a history (`environmentDenyRead`):
 * only these are kept and recorded, in a directory sandboxed commands can read, where a secret that
 * merely starts with `/` (a base64 key) must not land.
 */
function credentialPaths(paths: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(paths).filter(([name, value]) => environmentDenyRead({ [name]: value }).length > 0),
  );
}

/** The first startup file that exists and resolves into one of `roots` (through a symlink too). */
function writableSource(snapshot: ShellSnapshot, roots: readonly string[]): string | null {
  for (const source of snapshot.sources) {
    if (source.mtimeMs === null) continue;
    let real: string;
    try {
      real = realpathSync(source.path);
    } catch {
      continue;
    }
    if (roots.some((root) => isAtOrInside(real, root) || isAtOrInside(source.path, root))) return source.path;
  }
  return null;
}
