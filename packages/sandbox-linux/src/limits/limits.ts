// Limits on what one command consumes (config `limits`): memory, processes and CPU through a cgroup of
// its own where Conch may make one (cgroup v2: at the hierarchy's top as root, or in this process's
// delegated group, see cgroup-v2.ts; v1's memory, pids and cpu hierarchies under a `conch` group, as
// root or wherever those directories are writable), and the
// size of any one file it writes through RLIMIT_FSIZE everywhere. The helper joins the groups before
// the command starts, says which limit the kernel enforced, and removes the groups when it ends.
// Where no cgroup can be made, memory, processes and CPU are not limited (RLIMIT_AS breaks Node and
// JITs; RLIMIT_NPROC counts every process of the uid and does not bind root): `describeLimits` says so.

import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmdirSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { SandboxError } from "@conch/sandbox-core";
import { arrangeV2, type NoPlace, type V2Place, v2Place, writable } from "./cgroup-v2.js";

/** What a user may limit; absent means no limit of that kind. */
export interface ResourceLimits {
  /** Memory (RSS and page cache) of all the command's processes together, in MiB. */
  readonly memoryMb?: number;
  /** How many processes (and threads) the command may have at once. */
  readonly processes?: number;
  /** CPU time as a percentage of one core (200: two cores' worth). */
  readonly cpuPercent?: number;
  /** The largest file the command may write, in MiB (RLIMIT_FSIZE: the workspace as well as /tmp). */
  readonly fileMb?: number;
  /**
   * The size of the command's /tmp, in MiB: read-only mode's fresh tmpfs under bwrap, and, where Conch
   * runs as root, the workspace's persistent /tmp (a tmpfs of this size mounted on its directory, see
   * `boundWorkspaceTmp`). For another user that one is a directory on the disk, bounded only per file.
   */
  readonly tmpMb?: number;
}

type Hierarchy =
  | V2Place
  | { readonly kind: "v1"; readonly roots: Readonly<Record<"memory" | "pids" | "cpu", string>> };

const CGROUP = "/sys/fs/cgroup";
const GROUP = "conch";

/** Where this process may make a command's cgroup, or why it may not. */
export function cgroupHierarchy(): Hierarchy | NoPlace {
  if (existsSync(join(CGROUP, "cgroup.controllers"))) return v2Place(CGROUP);
  const roots = { memory: join(CGROUP, "memory"), pids: join(CGROUP, "pids"), cpu: join(CGROUP, "cpu") };
  const missing = Object.entries(roots).filter(([, path]) => !existsSync(join(path, "cgroup.procs")));
  if (missing.length > 0)
    return {
      kind: "none",
      why: `no cgroup ${missing.map(([name]) => name).join(", ")} hierarchy is mounted`,
    };
  const closed = Object.entries(roots).filter(([, path]) => !writable(path) && !writable(join(path, GROUP)));
  if (closed.length > 0) {
    return {
      kind: "none",
      why: `the cgroup v1 ${closed.map(([name]) => name).join(", ")} hierarchies are not writable by this user`,
    };
  }
  return {
    kind: "v1",
    roots: { memory: join(roots.memory, GROUP), pids: join(roots.pids, GROUP), cpu: join(roots.cpu, GROUP) },
  };
}

function write(path: string, value: string): void {
  writeFileSync(path, value);
}

// A group older than this that can be removed (it holds no process) is one its helper never removed: a
// helper killed before it could (a timeout's SIGKILL), in a Conch process that still runs.
const STALE_MS = 60_000;

/**
 * Removes the groups a helper did not: those of Conch processes that are gone, and empty ones older than
 * a minute (rmdir refuses a group that still holds a process, so a live command's is never removed).
 */
function sweep(parent: string): void {
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return;
  }
  for (const name of names) {
    const match = /^(\d+)-([0-9a-z]+)-/.exec(name);
    if (match === null) continue;
    const gone = !existsSync(`/proc/${match[1]}`);
    const stale = Date.now() - Number.parseInt(match[2] as string, 36) > STALE_MS;
    if (!gone && !stale) continue;
    try {
      rmdirSync(join(parent, name));
    } catch {
      // Still holds a process, or not ours to remove.
    }
  }
}

/**
 * Makes one command's cgroups with `limits` written, and returns their directories for the helper's
 * `--cgroup`; an empty list when no cgroup limit is asked for or none can be made here.
 */
export function makeCommandCgroups(limits: ResourceLimits): string[] {
  const wanted =
    limits.memoryMb !== undefined || limits.processes !== undefined || limits.cpuPercent !== undefined;
  if (!wanted) return [];
  const hierarchy = cgroupHierarchy();
  if (hierarchy.kind === "none") return [];
  // Where `conch sandbox --check` says the limits hold, a group that cannot be made refuses the command
  // rather than run it unlimited.
  try {
    return makeGroups(limits, hierarchy);
  } catch (error) {
    throw new SandboxError(
      "SANDBOX_UNAVAILABLE",
      `cannot sandbox: the command's cgroup for its limits could not be made (${(error as Error).message}); fix: see \`conch sandbox --check\`, or remove memory_mb, processes and cpu_percent from the config's limits`,
    );
  }
}

function makeGroups(limits: ResourceLimits, hierarchy: Hierarchy): string[] {
  const name = `${process.pid}-${Date.now().toString(36)}-${randomBytes(4).toString("hex")}`;
  const memory = limits.memoryMb === undefined ? null : String(limits.memoryMb * 1024 * 1024);
  const period = 100_000;
  const quota =
    limits.cpuPercent === undefined
      ? null
      : String(Math.max(1000, Math.round((limits.cpuPercent / 100) * period)));
  if (hierarchy.kind === "v2") {
    arrangeV2(hierarchy);
    sweep(hierarchy.root);
    const dir = join(hierarchy.root, name);
    mkdirSync(dir);
    if (memory !== null) {
      write(join(dir, "memory.max"), memory);
      // No swap either, where the kernel accounts it (no such file without swap accounting).
      if (existsSync(join(dir, "memory.swap.max"))) write(join(dir, "memory.swap.max"), "0");
    }
    if (limits.processes !== undefined) write(join(dir, "pids.max"), String(limits.processes));
    if (quota !== null && existsSync(join(dir, "cpu.max"))) write(join(dir, "cpu.max"), `${quota} ${period}`);
    return [dir];
  }
  const dirs: string[] = [];
  if (memory !== null) {
    mkdirSync(hierarchy.roots.memory, { recursive: true });
    sweep(hierarchy.roots.memory);
    const dir = join(hierarchy.roots.memory, name);
    mkdirSync(dir);
    write(join(dir, "memory.limit_in_bytes"), memory);
    // Swap counted too where the kernel accounts it, so a hog cannot spill past the limit into swap.
    if (existsSync(join(dir, "memory.memsw.limit_in_bytes")))
      write(join(dir, "memory.memsw.limit_in_bytes"), memory);
    dirs.push(dir);
  }
  if (limits.processes !== undefined) {
    mkdirSync(hierarchy.roots.pids, { recursive: true });
    sweep(hierarchy.roots.pids);
    const dir = join(hierarchy.roots.pids, name);
    mkdirSync(dir);
    write(join(dir, "pids.max"), String(limits.processes));
    dirs.push(dir);
  }
  if (quota !== null) {
    mkdirSync(hierarchy.roots.cpu, { recursive: true });
    sweep(hierarchy.roots.cpu);
    const dir = join(hierarchy.roots.cpu, name);
    mkdirSync(dir);
    write(join(dir, "cpu.cfs_period_us"), String(period));
    write(join(dir, "cpu.cfs_quota_us"), quota);
    dirs.push(dir);
  }
  return dirs;
}

/** The helper's options for `limits` and the groups made for them. */
export function limitArgs(limits: ResourceLimits, cgroups: readonly string[]): string[] {
  return [
    ...cgroups.flatMap((dir) => ["--cgroup", dir]),
    ...(limits.fileMb === undefined ? [] : ["--rlimit-fsize", String(limits.fileMb * 1024 * 1024)]),
  ];
}

const SYSTEM_MOUNTS = ["/usr/bin/mount", "/bin/mount", "/usr/sbin/mount", "/sbin/mount"];

// The workspaces whose /tmp this process has bounded, with the size: a mount is looked for once.
const boundTmps = new Map<string, number | string>();
const TMPFS = /^\S+ \S+ \S+ \S+ (\S+) .* - tmpfs /;

/** The mount point `dir` as /proc/self/mountinfo spells it (spaces and the like escaped as \ooo). */
function mountinfoPath(dir: string): string {
  return dir.replace(/[ \t\n\\]/g, (c) => `\\${c.charCodeAt(0).toString(8).padStart(3, "0")}`);
}

/**
 * Makes the workspace's persistent /tmp (`dir`, in Conch's state directory) a tmpfs of `tmpMb` MiB, so
 * that a command filling it stops there: only as root (the mount is the host's, and stays until the
 * machine restarts, like /tmp's files). Already such a tmpfs: its size is set to `tmpMb`. Returns null
 * when it holds, else why not (not root; files already there, which a mount would hide; mount failed).
 * Called before the sandbox's workspace holds `dir` by identity (a mount changes it), once per process.
 */
export function boundWorkspaceTmp(path: string, tmpMb: number): string | null {
  let dir: string;
  try {
    dir = realpathSync(path);
  } catch {
    return `${path} does not exist`;
  }
  const known = boundTmps.get(dir);
  if (known === tmpMb) return null;
  if (typeof known === "string") return known;
  const why = mountTmp(dir, tmpMb);
  boundTmps.set(dir, why ?? tmpMb);
  return why;
}

/** Whether `dir` is bounded at `tmpMb` by this process's `boundWorkspaceTmp`. */
export function tmpBound(dir: string, tmpMb: number): boolean {
  return boundTmps.get(dir) === tmpMb;
}

function mountTmp(dir: string, tmpMb: number): string | null {
  if (process.getuid?.() !== 0)
    return "only root can mount the bound (another user's /tmp is bounded per file)";
  let mounted = false;
  try {
    const wanted = mountinfoPath(dir);
    mounted = readFileSync("/proc/self/mountinfo", "utf8")
      .split("\n")
      .some((line) => TMPFS.exec(line)?.[1] === wanted);
  } catch {
    return "/proc/self/mountinfo cannot be read";
  }
  if (!mounted && readdirSync(dir).length > 0) {
    return `${dir} already holds files (from before tmp_mb was set), which a mount would hide: empty it`;
  }
  const uid = process.getuid?.() ?? 0;
  const gid = process.getgid?.() ?? 0;
  const options = mounted
    ? `remount,size=${tmpMb}m,nosuid,nodev`
    : `size=${tmpMb}m,mode=0700,uid=${uid},gid=${gid},nosuid,nodev`;
  // The system's mount, never one from PATH: a directory on PATH may lie in a writable root, where a
  // command could have put a `mount` of its own for root to run outside the sandbox.
  const mount = SYSTEM_MOUNTS.find((path) => existsSync(path));
  if (mount === undefined) return `no mount program in ${SYSTEM_MOUNTS.join(", ")}`;
  const ran = spawnSync(mount, ["-t", "tmpfs", "-o", options, "tmpfs", dir], {
    encoding: "utf8",
    timeout: 10_000,
  });
  if (ran.status === 0) return null;
  return `mount failed: ${(ran.stderr || ran.error?.message || `exit ${ran.status}`).trim()}`;
}

/** Which limits hold here, a line each (for `conch sandbox --check`). */
export function describeLimits(limits: ResourceLimits): string[] {
  const hierarchy = cgroupHierarchy();
  const lines: string[] = [];
  // Under v2 the cpu controller may not have been given to Conch's group: cpu_percent is said apart.
  const noCpu = hierarchy.kind === "v2" && !hierarchy.cpu && limits.cpuPercent !== undefined;
  const cgroupKinds = [
    limits.memoryMb === undefined ? null : `memory ${limits.memoryMb} MB`,
    limits.processes === undefined ? null : `${limits.processes} processes`,
    limits.cpuPercent === undefined || noCpu ? null : `CPU ${limits.cpuPercent}% of a core`,
  ].filter((kind): kind is string => kind !== null);
  if (cgroupKinds.length > 0) {
    lines.push(
      hierarchy.kind === "none"
        ? `limits: ${cgroupKinds.join(", ")} do NOT hold here: ${hierarchy.why}`
        : `limits: ${cgroupKinds.join(", ")} per command, in a cgroup of its own (${hierarchy.kind === "v2" ? `v2, ${hierarchy.how}` : "v1"})`,
    );
  }
  if (noCpu) {
    lines.push(
      `limits: CPU ${limits.cpuPercent}% of a core does NOT hold here: the cgroup Conch uses (${hierarchy.base}) was given no cpu controller (systemd: Delegate=memory pids cpu)`,
    );
  }
  if (limits.fileMb !== undefined) lines.push(`limits: files of at most ${limits.fileMb} MB (RLIMIT_FSIZE)`);
  if (limits.tmpMb !== undefined) {
    lines.push(
      process.getuid?.() === 0
        ? `limits: /tmp of at most ${limits.tmpMb} MB (read-only mode's fresh one; workspace-write's persistent one is a tmpfs of that size, in memory)`
        : `limits: a fresh /tmp (read-only mode, under bwrap) of at most ${limits.tmpMb} MB; workspace-write's persistent /tmp is NOT bounded as a whole for a user other than root (each file is, by file_mb)`,
    );
  } else {
    lines.push("limits: /tmp is not bounded as a whole (tmp_mb is not set; each file is, by file_mb)");
  }
  lines.push("limits: the workspace is not bounded as a whole (each file is, by file_mb)");
  lines.push(
    "limits: a command run outside the sandbox (danger-full-access, an approved escalation) has none",
  );
  return lines;
}
