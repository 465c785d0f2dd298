import { spawnSync } from "node:child_process";
import { closeSync, constants, lstatSync, mkdirSync, openSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";

/**
 * The devices bwrap's `--dev` binds in from the host, with their numbers. The sandbox of a root caller is
 * uid 0 and owns them: without copies of its own, `chmod 000 /dev/null` inside would change the host's
 * node, and every other user's shell and daemon would break. A read-only bind does not help: bwrap
 * remounts it `nodev`, and the device stops opening.
 */
const DEVICES: readonly { readonly name: string; readonly major: number; readonly minor: number }[] = [
  { name: "null", major: 1, minor: 3 },
  { name: "zero", major: 1, minor: 5 },
  { name: "full", major: 1, minor: 7 },
  { name: "random", major: 1, minor: 8 },
  { name: "urandom", major: 1, minor: 9 },
  { name: "tty", major: 5, minor: 0 },
];

const rdev = (major: number, minor: number): number => (major << 8) | minor;

function isOurNode(path: string, major: number, minor: number): boolean {
  const info = lstatSync(path, { throwIfNoEntry: false });
  return (
    info?.isCharacterDevice() === true &&
    info.uid === 0 &&
    info.nlink === 1 &&
    (info.mode & 0o7777) === 0o666 &&
    info.rdev === rdev(major, minor)
  );
}

function isOurDir(path: string): boolean {
  const info = lstatSync(path, { throwIfNoEntry: false });
  return info?.isDirectory() === true && info.uid === 0 && (info.mode & 0o7777) === 0o755;
}

/** Whether a node there opens: a `nodev` mount (a systemd /tmp) refuses it with EACCES. */
function opens(path: string): boolean {
  try {
    closeSync(openSync(path, constants.O_WRONLY));
    return true;
  } catch {
    return false;
  }
}

let cached: ReadonlyMap<string, string> | null | undefined;

/** Where {@link privateDeviceNodes} keeps them. */
export const DEVICE_DIR = "/tmp/conch-dev-0";

/**
 * For a root caller, device nodes of Conch's own, bound over bwrap's binds of the host's (null, zero,
 * full, random, urandom, tty): a chmod or touch inside the sandbox then changes only these. One directory
 * per machine (`DEVICE_DIR`, out of sight under a private /tmp, read-only wherever a sandbox could see it,
 * since bwrap follows a link at a bind's source), checked before
 * every command, and each node made anew with `mknod` when it is missing or was changed (a command may
 * have chmod-ed it). Null for another caller, who cannot change a root-owned node anyway, and where the
 * nodes cannot be made or do not open (no mknod, a nodev /tmp): the sandbox then keeps the host's, a limit
 * docs/security.md names.
 */
export function privateDeviceNodes(): ReadonlyMap<string, string> | null {
  if (process.getuid?.() !== 0) return null;
  if (cached === null) return null;
  const dir = DEVICE_DIR;
  try {
    if (!isOurDir(dir)) {
      // Not ours as it should be (a file, a link, another owner's or mode): set it aside, never follow it.
      if (lstatSync(dir, { throwIfNoEntry: false }) !== undefined) {
        renameSync(dir, `${dir}.moved-${process.pid}-${Date.now()}`);
      }
      mkdirSync(dir, { mode: 0o755 });
      if (!isOurDir(dir)) throw new Error(`${dir} is not a root-owned 0755 directory`);
    }
    const nodes = new Map<string, string>();
    for (const { name, major, minor } of DEVICES) {
      const path = join(dir, name);
      if (!isOurNode(path, major, minor)) {
        rmSync(path, { force: true, recursive: true });
        const made = spawnSync("mknod", ["-m", "0666", path, "c", String(major), String(minor)], {
          stdio: "ignore",
          timeout: 5_000,
        });
        if (made.status !== 0 || !isOurNode(path, major, minor)) {
          throw new Error(`mknod ${path} failed`);
        }
      }
      nodes.set(`/dev/${name}`, path);
    }
    if (cached === undefined && !opens(join(dir, "null"))) throw new Error(`${dir} is on a nodev mount`);
    cached = nodes;
    return nodes;
  } catch {
    cached = null;
    return null;
  }
}
