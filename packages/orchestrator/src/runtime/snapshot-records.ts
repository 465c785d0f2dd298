// A captured snapshot's description (a ShellSnapshot, plain JSON) kept beside its file, so the next Conch
// process (each `conch run` is one) uses it instead of starting the user's login shell again.

import { closeSync, constants, fstatSync, lstatSync, openSync, readFileSync } from "node:fs";
import { lstat, open, readdir, rename, rm } from "node:fs/promises";
import { isAbsolute, join } from "node:path";
import type { Shell, ShellSnapshot } from "@conch/shell-detect";
import { randomHex } from "./random-hex.js";
import { sha256Hex } from "./sha256.js";

const RECORD = /^record-[0-9a-f]{16}\.json$/;
const MAX_RECORD_BYTES = 1024 * 1024;
/** A record nobody has rewritten for this long belongs to an environment long gone. */
const RECORD_RETENTION_MS = 3 * 24 * 3600 * 1000;
// Where a Conch process was started from, which the login shell does not start in; what the calling
// shell sets for each program it starts (its nesting, the program's path); and the padding variable
// hyperfine changes on every run, with which a benchmark of `conch run` timed a new capture each time.
const UNKEYED = new Set(["PWD", "OLDPWD", "SHLVL", "_", "HYPERFINE_RANDOMIZED_ENVIRONMENT_OFFSET"]);

/**
 * The record's name for `shell` captured with `env`: a process started with another environment (a
 * PATH of its own, another ZDOTDIR) captures its own. A value enters the hash only when `keep` passes
 * it (the value a snapshot may carry anyway); of the others only the name, so no credential's hash
 * lies in a directory sandboxed commands can read.
 */
export function recordName(
  shell: Shell,
  env: Readonly<Record<string, string | undefined>>,
  keep: (name: string, value: string) => boolean,
): string {
  const parts = [`${shell.type}\0${shell.path}\0`];
  for (const name of Object.keys(env).sort()) {
    const value = env[name];
    if (value === undefined || UNKEYED.has(name)) continue;
    parts.push(keep(name, value) ? `${name}=${value}\0` : `${name}\0`);
  }
  return `record-${sha256Hex(...parts).slice(0, 16)}.json`;
}

/**
 * The snapshot recorded as `name` in `dir`, or undefined when there is none or it cannot be trusted:
 * the directory and the file must be this user's and writable by no one else, as the capture makes
 * them, the file no link, and the record a snapshot of `shell` whose file lies in `dir`. Whether it
 * is still current (its startup files, its age) is the caller's to check.
 */
export async function readRecord(
  dir: string,
  name: string,
  shell: Shell,
): Promise<ShellSnapshot | undefined> {
  // The synchronous calls: one small file on every start, where each trip through the thread pool
  // costs more than the read.
  try {
    if (!ownPrivate(lstatSync(dir))) return undefined;
    const fd = openSync(join(dir, name), constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
    try {
      const stats = fstatSync(fd);
      if (!stats.isFile() || !ownPrivate(stats) || stats.size > MAX_RECORD_BYTES) return undefined;
      const snapshot: unknown = JSON.parse(readFileSync(fd, "utf8"));
      return isSnapshotOf(snapshot, shell, dir) ? snapshot : undefined;
    } finally {
      closeSync(fd);
    }
  } catch {
    // Missing, unreadable or not JSON: captured afresh.
    return undefined;
  }
}

/** Records `snapshot` as `name` in `dir` in one rename, and removes records left unused for days. */
export async function writeRecord(dir: string, name: string, snapshot: ShellSnapshot): Promise<void> {
  const temp = join(dir, `.record-${randomHex(8)}`);
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);
  const handle = await open(temp, flags, 0o600);
  try {
    await handle.writeFile(JSON.stringify(snapshot));
  } finally {
    await handle.close();
  }
  await rename(temp, join(dir, name));
  const now = Date.now();
  for (const other of await readdir(dir)) {
    if (!RECORD.test(other) || other === name) continue;
    const path = join(dir, other);
    const stats = await lstat(path).catch(() => undefined);
    if (stats !== undefined && now - stats.mtimeMs > RECORD_RETENTION_MS) await rm(path, { force: true });
  }
}

function ownPrivate(stats: { uid: number; mode: number }): boolean {
  const uid = process.getuid?.();
  return (uid === undefined || stats.uid === uid) && (stats.mode & 0o022) === 0;
}

function isSnapshotOf(value: unknown, shell: Shell, dir: string): value is ShellSnapshot {
  if (typeof value !== "object" || value === null) return false;
  const record = value as Record<string, unknown>;
  const recorded = record.shell as Record<string, unknown> | null | undefined;
  const nullableString = (field: unknown) => field === null || typeof field === "string";
  return (
    typeof recorded === "object" &&
    recorded !== null &&
    recorded.type === shell.type &&
    recorded.path === shell.path &&
    typeof record.path === "string" &&
    record.path.startsWith(`${dir}/`) &&
    typeof record.capturedAt === "number" &&
    nullableString(record.pathVariable) &&
    nullableString(record.historyFile) &&
    (record.historyFile === null || isAbsolute(record.historyFile as string)) &&
    typeof record.exportedPaths === "object" &&
    record.exportedPaths !== null &&
    Object.values(record.exportedPaths).every((path) => typeof path === "string") &&
    Array.isArray(record.sources) &&
    record.sources.every(
      (source: unknown) =>
        typeof source === "object" &&
        source !== null &&
        typeof (source as Record<string, unknown>).path === "string" &&
        ((source as Record<string, unknown>).mtimeMs === null ||
          typeof (source as Record<string, unknown>).mtimeMs === "number"),
    )
  );
}
