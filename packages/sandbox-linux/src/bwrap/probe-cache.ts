// What a successful probe found (bwrap works here, with this shell, started by this launcher), kept in a
// file so that the next process need not spawn `bwrap --version`, a `bwrap ... true` and `unshare ...
// true` before every command (~20-40 ms of a one-shot `conch run`). Only a success is kept, and only
// while nothing it depends on changed: the programs (path, inode, size, mtime, mode, owner), the kernel,
// the user, and the sysctls that allow user namespaces. Nothing the cache says weakens the sandbox:
// the command's own bwrap still creates every namespace and fails (and runs nothing) where the probe
// would have failed, a launcher is taken from it only when it is one this process would have tried,
// and a file another user could have written is ignored.
import { lstatSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { release } from "node:os";
import { dirname } from "node:path";

/** The sysctls that decide whether an unprivileged user namespace (bwrap's) can be made. */
const USERNS_SYSCTLS = [
  "/proc/sys/kernel/unprivileged_userns_clone",
  "/proc/sys/user/max_user_namespaces",
  "/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
];

/** A cached success is trusted for a day at most: a change the key cannot see ends with it. */
const MAX_AGE_MS = 24 * 60 * 60 * 1000;

export interface CachedProbe {
  readonly bwrap: string;
  readonly shell: string;
  readonly launcher: readonly string[];
}

function fileKey(path: string | null): unknown {
  if (path === null) return null;
  const info = statSync(path, { throwIfNoEntry: false });
  if (info === undefined) return [path, null];
  return [path, info.dev, info.ino, info.size, info.mtimeMs, info.mode, info.uid];
}

function sysctl(path: string): string | null {
  try {
    return readFileSync(path, "utf8").trim();
  } catch {
    return null;
  }
}

/** What the probe's answer depends on, as one string. */
export function probeKey(programs: { bwrap: string; shell: string; unshare: string | null }): string {
  return JSON.stringify({
    version: 1,
    uid: process.getuid?.() ?? null,
    arch: process.arch,
    kernel: release(),
    bwrap: fileKey(programs.bwrap),
    shell: fileKey(programs.shell),
    unshare: fileKey(programs.unshare),
    sysctls: USERNS_SYSCTLS.map(sysctl),
  });
}

/**
 * The cached success for `key`, when the file is this user's own, written by nobody else (not group or
 * world writable, in a directory only its owner writes), younger than a day, for the same programs,
 * and with a launcher among `launchers` (the ones this process would try). Anything else: null.
 */
export function readCachedProbe(
  file: string,
  key: string,
  expected: { bwrap: string; shell: string; launchers: readonly (readonly string[])[] },
): CachedProbe | null {
  try {
    const uid = process.getuid?.();
    const info = lstatSync(file);
    const dir = lstatSync(dirname(file));
    if (!info.isFile() || info.uid !== uid || (info.mode & 0o022) !== 0) return null;
    if (!dir.isDirectory() || dir.uid !== uid || (dir.mode & 0o022) !== 0) return null;
    if (Date.now() - info.mtimeMs > MAX_AGE_MS) return null;
    const parsed = JSON.parse(readFileSync(file, "utf8")) as {
      key?: unknown;
      probe?: { bwrap?: unknown; shell?: unknown; launcher?: unknown };
    };
    const probe = parsed.probe;
    if (parsed.key !== key || probe === undefined) return null;
    if (probe.bwrap !== expected.bwrap || probe.shell !== expected.shell) return null;
    const launcher = probe.launcher;
    if (!Array.isArray(launcher)) return null;
    const known = expected.launchers.find(
      (candidate) =>
        candidate.length === launcher.length && candidate.every((word, index) => word === launcher[index]),
    );
    if (known === undefined) return null;
    return { bwrap: expected.bwrap, shell: expected.shell, launcher: known };
  } catch {
    return null;
  }
}

/** Keeps a success for the next process: 0600 in a 0700 directory, replaced whole. Best effort. */
export function writeCachedProbe(file: string, key: string, probe: CachedProbe): void {
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify({ key, probe })}\n`, { mode: 0o600 });
    renameSync(temporary, file);
  } catch {
    // Only a cache: the next process probes again.
  }
}
