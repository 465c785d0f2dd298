import { constants } from "node:fs";
import { chmod, lstat, mkdir, mkdtemp, open, readdir, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import type { SnapshotShellType } from "./shell-snapshot.js";

// O_NOFOLLOW: a symlink planted at the path fails the open instead of redirecting the write.
const CREATE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);
const READ_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0);
const MAX_CAPTURE_BYTES = 64 * 1024 * 1024;
/** Snapshots nobody has rewritten for this long belong to sessions long gone. */
const SNAPSHOT_RETENTION_MS = 3 * 24 * 3600 * 1000;
/** A capture's work directory left this long was abandoned by a process that died mid-capture. */
const WORK_DIR_RETENTION_MS = 24 * 3600 * 1000;
const SNAPSHOT_NAME = /^(bash|zsh|sh|dash)-[0-9a-f]{16}(\.sh)?$/;
const WORK_DIR_PREFIX = ".capture-";

/** Creates `dir` (0700) if needed; the reason it cannot hold snapshots, or undefined when it can. */
export async function prepareDir(dir: string): Promise<string | undefined> {
  try {
    if ((await mkdir(dir, { recursive: true, mode: 0o700 })) !== undefined) await chmod(dir, 0o700);
  } catch (error) {
    return `cannot create the snapshot directory ${JSON.stringify(dir)}: ${(error as Error).message}`;
  }
  const stats = await lstat(dir).catch(() => undefined);
  if (stats === undefined) return `cannot read the snapshot directory ${JSON.stringify(dir)}`;
  const where = `the snapshot directory ${JSON.stringify(dir)}`;
  if (stats.isSymbolicLink()) return `${where} is a symbolic link; give the real directory`;
  if (!stats.isDirectory()) return `${where} is not a directory`;
  const uid = process.getuid?.();
  if (uid !== undefined && stats.uid !== uid) {
    return `${where} belongs to uid ${stats.uid}, not to this user (uid ${uid})`;
  }
  if ((stats.mode & 0o022) !== 0) {
    return `${where} is writable by other users (mode ${(stats.mode & 0o777).toString(8).padStart(4, "0")})`;
  }
  return undefined;
}

/** A fresh private directory inside `dir` for one capture's files. */
export function createWorkDir(dir: string): Promise<string> {
  return mkdtemp(join(dir, WORK_DIR_PREFIX));
}

/** Creates `path` (0600) with `content`; fails rather than follow or reuse whatever is there. */
export async function writeNewFile(path: string, content: Buffer | string): Promise<void> {
  const handle = await open(path, CREATE_FLAGS, 0o600);
  try {
    await handle.chmod(0o600);
    await handle.writeFile(content);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** The file's bytes, refusing a symlink and anything over 64 MiB. */
export async function readCaptureFile(path: string): Promise<Buffer | undefined> {
  const handle = await open(path, READ_FLAGS);
  try {
    const { size } = await handle.stat();
    return size > MAX_CAPTURE_BYTES ? undefined : await handle.readFile();
  } finally {
    await handle.close();
  }
}

/** Where a snapshot with content hash `hash` lives: zsh needs the file to be `.zshenv` in a dir. */
export function snapshotPath(dir: string, type: SnapshotShellType, hash: string): string {
  return type === "zsh" ? join(dir, `zsh-${hash}`, ".zshenv") : join(dir, `${type}-${hash}.sh`);
}

/**
 * Moves the finished file `from` to `to` in one rename, so a command never reads half a snapshot, and a
 * symlink planted at `to` is replaced, not followed. zsh's directory is checked the same way.
 */
export async function installSnapshot(
  from: string,
  to: string,
  type: SnapshotShellType,
  dir: string,
): Promise<void> {
  if (type === "zsh") {
    const zdotdir = join(to, "..");
    try {
      await mkdir(zdotdir, { mode: 0o700 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const stats = await lstat(zdotdir);
      if (stats.isSymbolicLink() || !stats.isDirectory()) {
        await rm(zdotdir, { force: true });
        await mkdir(zdotdir, { mode: 0o700 });
      }
    }
  }
  await rename(from, to);
  await pruneStale(dir, to);
}

async function pruneStale(dir: string, current: string): Promise<void> {
  const now = Date.now();
  for (const name of await readdir(dir)) {
    const path = join(dir, name);
    const retention = SNAPSHOT_NAME.test(name)
      ? SNAPSHOT_RETENTION_MS
      : name.startsWith(WORK_DIR_PREFIX)
        ? WORK_DIR_RETENTION_MS
        : undefined;
    if (retention === undefined || current === path || current.startsWith(`${path}/`)) continue;
    try {
      if (now - (await lstat(path)).mtimeMs > retention) await rm(path, { recursive: true, force: true });
    } catch {
      // Removed by a concurrent capture, or not ours to remove: either way nothing to do.
    }
  }
}
