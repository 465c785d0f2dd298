// cgroup v2: where a command's group goes, and the arranging that lets it hold limits.
//
// A v2 group can hand controllers (memory, pids, cpu) to its children only while it holds no process
// itself (the "no internal processes" rule; the hierarchy's true root is exempt). So Conch's command
// groups live under a `conch` group of a *base* it may arrange:
// - root, where the hierarchy is writable: the hierarchy's top (the machine's root cgroup, or a
//   container's own cgroup namespace root, whose processes are first moved into its leaf `conch-host`,
//   as Docker-in-Docker does);
// - another user: the cgroup this process runs in, when this user owns it (a delegated one, as
//   `systemd-run --user --scope -p Delegate=yes` or a container runtime hands over) and every process
//   in it is this user's: they are moved into its leaf `conch-host` first.
// `v2Place` decides without changing anything (for `conch sandbox --check`); `arrangeV2` does it, once
// per process, before the first command group.

import { accessSync, constants, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";

/** Where a process's command groups go under cgroup v2. */
export interface V2Place {
  readonly kind: "v2";
  /** The directory holding the command groups: `conch` under `base`. */
  readonly root: string;
  /** The group Conch arranges: the hierarchy's top, or this process's delegated group. */
  readonly base: string;
  /** How Conch came to `base` (for `conch sandbox --check`). */
  readonly how: string;
  /** Whether `base` was given the cpu controller (cpu_percent holds only then). */
  readonly cpu: boolean;
}

export interface NoPlace {
  readonly kind: "none";
  readonly why: string;
}

/** The leaf a base's own processes are moved into, so that the base may hand down controllers. */
const HOST_LEAF = "conch-host";
const WANTED = ["memory", "pids", "cpu"] as const;

/** Whether this process may write `path` (a cgroup directory or file). */
export function writable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

function read(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
}

function controllersOf(dir: string): Set<string> {
  return new Set((read(join(dir, "cgroup.controllers")) ?? "").split(/\s+/).filter(Boolean));
}

/** This process's v2 group, as a path under the mount (`/` at the namespace's root), or null. */
function ownPath(): string | null {
  const line = (read("/proc/self/cgroup") ?? "").split("\n").find((entry) => entry.startsWith("0::"));
  const path = line?.slice(3);
  if (path === undefined || !path.startsWith("/") || path.includes("/..") || path.endsWith(" (deleted)"))
    return null;
  return path;
}

function pidsIn(dir: string): number[] {
  return (read(join(dir, "cgroup.procs")) ?? "")
    .split("\n")
    .filter(Boolean)
    .map((pid) => Number.parseInt(pid, 10));
}

/**
 * The pids in `dir` that another user runs (another uid's processes are not Conch's to move). One this
 * process cannot see (/proc mounted hidepid) counts as another's while `dir` still lists it.
 */
function othersIn(dir: string, uid: number): number[] {
  const unseen: number[] = [];
  const others = pidsIn(dir).filter((pid) => {
    try {
      return statSync(`/proc/${pid}`).uid !== uid;
    } catch {
      unseen.push(pid);
      return false;
    }
  });
  const listed = new Set(unseen.length === 0 ? [] : pidsIn(dir));
  return [...others, ...unseen.filter((pid) => listed.has(pid))];
}

/** Decides where command groups go (without changing anything), or why nowhere. */
export function v2Place(mount: string): V2Place | NoPlace {
  const uid = process.getuid?.() ?? -1;
  // The hierarchy's true root has no cgroup.type; a container's namespace root (a group seen as the
  // root) does, and is held to the no-internal-processes rule.
  const trueRoot = !existsSync(join(mount, "cgroup.type"));
  if (uid === 0 && writable(mount)) {
    const missing = WANTED.filter((c) => c !== "cpu" && !controllersOf(mount).has(c));
    if (missing.length > 0)
      return { kind: "none", why: `cgroup v2 here offers no ${missing.join(" or ")} controller` };
    return {
      kind: "v2",
      root: join(mount, "conch"),
      base: mount,
      cpu: controllersOf(mount).has("cpu"),
      how: trueRoot
        ? "at the top of the hierarchy"
        : `at the top of this container's cgroup namespace (its processes are moved into ${HOST_LEAF}, a leaf, so that limits can be handed down)`,
    };
  }
  const path = ownPath();
  if (path === null)
    return { kind: "none", why: "this process's cgroup v2 group cannot be read from /proc/self/cgroup" };
  let base = join(mount, path);
  // Arranged already (by this process or an earlier one): this process runs in the base's leaf.
  if (basename(base) === HOST_LEAF && path !== `/${HOST_LEAF}`) base = dirname(base);
  const shown = base.slice(mount.length) || "/";
  const notDelegated = `${mount} (cgroup v2) is not writable by this user, and this process's cgroup (${shown}) is not delegated to it: start Conch in a delegated scope of its own (systemd-run --user --scope -p Delegate=yes conch …), or as root`;
  let owner: number;
  try {
    owner = statSync(join(base, "cgroup.procs")).uid;
  } catch {
    return { kind: "none", why: notDelegated };
  }
  if (owner !== uid || !writable(join(base, "cgroup.subtree_control")) || !writable(base)) {
    return { kind: "none", why: notDelegated };
  }
  const missing = WANTED.filter((c) => c !== "cpu" && !controllersOf(base).has(c));
  if (missing.length > 0) {
    return {
      kind: "none",
      why: `this process's delegated cgroup (${shown}) was given no ${missing.join(" or ")} controller (systemd: Delegate=memory pids cpu)`,
    };
  }
  const others = othersIn(base, uid);
  if (others.length > 0) {
    return {
      kind: "none",
      why: `this process's delegated cgroup (${shown}) also holds another user's processes (pid ${others.slice(0, 3).join(", ")}), which Conch will not move`,
    };
  }
  return {
    kind: "v2",
    root: join(base, "conch"),
    base,
    cpu: controllersOf(base).has("cpu"),
    how: `in this user's delegated cgroup ${shown} (its processes are moved into ${HOST_LEAF}, a leaf, so that limits can be handed down)`,
  };
}

/** Hands the controllers `dir` has down to its children; false when it holds processes (EBUSY). */
function handDown(dir: string): boolean {
  const offered = controllersOf(dir);
  const wanted = WANTED.filter((c) => offered.has(c));
  const enabled = new Set((read(join(dir, "cgroup.subtree_control")) ?? "").split(/\s+/).filter(Boolean));
  if (wanted.every((c) => enabled.has(c))) return true;
  try {
    writeFileSync(join(dir, "cgroup.subtree_control"), wanted.map((c) => `+${c}`).join(" "));
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EBUSY") return false;
    // cpu may be refused (realtime threads): memory and pids alone.
    writeFileSync(
      join(dir, "cgroup.subtree_control"),
      wanted
        .filter((c) => c !== "cpu")
        .map((c) => `+${c}`)
        .join(" "),
    );
    return true;
  }
}

/** Moves every process of `base` into its leaf `conch-host` (a fork meanwhile is moved next round). */
function moveIntoLeaf(base: string, uid: number): void {
  const leaf = join(base, HOST_LEAF);
  mkdirSync(leaf, { recursive: true });
  for (let round = 0; round < 20; round++) {
    const pids = pidsIn(base);
    if (pids.length === 0) return;
    for (const pid of pids) {
      if (uid !== 0 && othersIn(base, uid).includes(pid)) {
        throw new Error(`${base} holds pid ${pid} of another user, which Conch will not move`);
      }
      try {
        writeFileSync(join(leaf, "cgroup.procs"), String(pid));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
      }
    }
  }
  throw new Error(`${base} kept gaining processes while Conch moved them into ${HOST_LEAF}`);
}

const arranged = new Set<string>();

/** Arranges `place` so that its command groups get memory, pids and cpu: once per process. */
export function arrangeV2(place: V2Place): void {
  if (arranged.has(place.root) && existsSync(place.root)) return;
  const uid = process.getuid?.() ?? -1;
  if (!handDown(place.base)) {
    moveIntoLeaf(place.base, uid);
    if (!handDown(place.base)) throw new Error(`${place.base} would not hand its controllers down`);
  }
  mkdirSync(place.root, { recursive: true });
  handDown(place.root);
  arranged.add(place.root);
}
