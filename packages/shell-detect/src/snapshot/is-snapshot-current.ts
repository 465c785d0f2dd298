import { statSync } from "node:fs";
import { invalidRequestError } from "../errors.js";
import type { ShellSnapshot } from "./shell-snapshot.js";
import { mtimeOf } from "./sources.js";

const DEFAULT_SNAPSHOT_TTL_MS = 3_600_000;

export interface SnapshotCurrencyOptions {
  /** How long a snapshot is trusted at most. Default 3600000 (an hour). */
  readonly ttlMs?: number;
  /** The time to judge by, in milliseconds since the epoch. Default: now. */
  readonly now?: number;
}

/**
 * Whether `snapshot` still stands for what the shell would load: younger than `ttlMs`, its file still
 * there, and every startup file as present (or absent) and with the same mtime as at capture. One stat
 * per file, so cheap enough to ask before every command. A clock that went back counts as stale.
 */
export function isSnapshotCurrent(snapshot: ShellSnapshot, options?: SnapshotCurrencyOptions): boolean {
  const ttlMs = options?.ttlMs ?? DEFAULT_SNAPSHOT_TTL_MS;
  const now = options?.now ?? Date.now();
  if (typeof ttlMs !== "number" || !(ttlMs >= 0)) {
    throw invalidRequestError("options.ttlMs", "a number of milliseconds, 0 or more", ttlMs);
  }
  if (typeof now !== "number" || Number.isNaN(now)) {
    throw invalidRequestError("options.now", "milliseconds since the epoch", now);
  }
  const age = now - snapshot.capturedAt;
  if (!(age >= 0 && age < ttlMs) || !isFile(snapshot.path)) {
    return false;
  }
  return snapshot.sources.every(({ path, mtimeMs }) => mtimeOf(path) === mtimeMs);
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
