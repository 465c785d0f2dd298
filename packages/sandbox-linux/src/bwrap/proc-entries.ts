import { lstatSync, readFileSync } from "node:fs";

/** What of /proc and the host's mounts the sandbox must not show as they are. */
export interface ProcSurface {
  /** The files of `MASKED_PROC_FILES` this kernel has, by name in /proc. */
  readonly masked: readonly string[];
  /**
   * Where the host mounted a file system that is an interface to the kernel (`KERNEL_FILE_SYSTEMS`),
   * outermost first: one inside a writable root (a chroot's /proc or /sys in the workspace) would be
   * writable there, its sysctls and cgroup release agents with it.
   */
  readonly kernelMounts: readonly string[];
}

/** File systems whose files are the kernel's settings or state rather than stored data. */
const KERNEL_FILE_SYSTEMS: ReadonlySet<string> = new Set([
  "binfmt_misc",
  "bpf",
  "cgroup",
  "cgroup2",
  "configfs",
  "debugfs",
  "efivarfs",
  "fusectl",
  "mqueue",
  "nfsd",
  "proc",
  "pstore",
  "rpc_pipefs",
  "securityfs",
  "selinuxfs",
  "smackfs",
  "sysfs",
  "tracefs",
]);

/**
 * Files that show the whole machine's kernel internals or other processes' state, readable only because
 * the sandbox's uid 0 is the host's (mode 0400, or filtered by uid alone): the kernel's memory, the
 * physical page map (aims Rowhammer-style attacks), slab and vmalloc state (aims heap exploits), every
 * process's timers, scheduler and latency records, the host root's keys. Docker, runc and podman mask
 * them too; a masked file reads as the hidden-file placeholder (EACCES).
 */
const MASKED_PROC_FILES: ReadonlySet<string> = new Set([
  "kcore",
  "keys",
  "kpagecgroup",
  "kpagecount",
  "kpageflags",
  "latency_stats",
  "pagetypeinfo",
  "sched_debug",
  "slabinfo",
  "timer_list",
  "timer_stats",
  "vmallocinfo",
]);

/**
 * The masked files this kernel's /proc has, read afresh for each sandbox (a module may add one), and
 * where the host mounted kernel file systems.
 */
export function readProcSurface(): ProcSurface {
  // Each masked name is looked up alone: a listing of /proc with file types has Node lstat entries whose
  // type the kernel did not give, and a process that exits meanwhile failed the whole sandbox (ENOENT on
  // /proc/PID, seen under load in CI).
  const masked = [...MASKED_PROC_FILES]
    .filter((name) => lstatSync(`/proc/${name}`, { throwIfNoEntry: false })?.isFile() === true)
    .sort();
  const table = mountTable(readFileSync("/proc/self/mountinfo", "utf8"));
  const kernelMounts = table.flatMap(({ path, type }) => (KERNEL_FILE_SYSTEMS.has(type) ? [path] : []));
  return { masked, kernelMounts: [...new Set(kernelMounts)] };
}

/** A mount of a mountinfo text: where, and the file system's type. */
export interface MountRow {
  readonly path: string;
  readonly type: string;
}

/** The mounts of a mountinfo text, outermost first (a point mounted over keeps every row). */
export function mountTable(mountinfo: string): MountRow[] {
  const rows: MountRow[] = [];
  for (const line of mountinfo.split("\n")) {
    const fields = line.split(" ");
    const point = fields[4];
    // The optional fields end with "-"; the file system's type follows it.
    const separator = fields.indexOf("-", 6);
    if (point === undefined || separator === -1) continue;
    const type = fields[separator + 1] ?? "";
    // mountinfo writes space, tab, newline and backslash as octal escapes.
    const path = point.replace(/\\([0-7]{3})/g, (_, octal: string) =>
      String.fromCharCode(Number.parseInt(octal, 8)),
    );
    rows.push({ path, type });
  }
  const depth = (path: string): number => path.split("/").length;
  return rows.sort(
    (a, b) => depth(a.path) - depth(b.path) || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0),
  );
}
