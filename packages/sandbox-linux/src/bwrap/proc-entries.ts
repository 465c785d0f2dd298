import { readdirSync, readFileSync } from "node:fs";

/** A top-level entry of /proc that is the same in every pid namespace: a kernel-wide view or knob. */
interface ProcEntry {
  readonly name: string;
  readonly type: "file" | "dir";
}

/** A mount point inside a /proc entry, and whether a directory or a file is mounted there. */
interface ProcMount {
  readonly path: string;
  readonly type: "file" | "dir";
}

/** What of the host's /proc the sandbox's fresh one must not leave writable or readable as it is. */
export interface ProcSurface {
  /** The entries of /proc that are not per-process (no pid directory, no `self` link). */
  readonly entries: readonly ProcEntry[];
  /**
   * File systems the host mounted inside those entries (binfmt_misc at /proc/sys/fs/binfmt_misc, nfsd at
   * /proc/fs/nfsd), outermost first: the sandbox's read-only view of an entry would carry them along.
   */
  readonly mounts: readonly ProcMount[];
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
export const MASKED_PROC_FILES: ReadonlySet<string> = new Set([
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

const PER_PROCESS = /^\d+$/;

/**
 * The host's /proc as bwrap's fresh one will show it: every top-level entry but the pid directories and
 * the links into them (`self`, `thread-self`, `net`, `mounts`), read afresh for each sandbox so an entry
 * a module added since is covered too; what the host mounted inside those entries; and where it mounted
 * kernel file systems.
 */
export function readProcSurface(): ProcSurface {
  const entries: ProcEntry[] = [];
  for (const entry of readdirSync("/proc", { withFileTypes: true })) {
    if (PER_PROCESS.test(entry.name) || entry.isSymbolicLink()) continue;
    if (entry.isDirectory()) entries.push({ name: entry.name, type: "dir" });
    else if (entry.isFile()) entries.push({ name: entry.name, type: "file" });
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const dirs = new Set(entries.flatMap((entry) => (entry.type === "dir" ? [entry.name] : [])));
  const mounts: ProcMount[] = [];
  const table = mountTable(readFileSync("/proc/self/mountinfo", "utf8"));
  for (const path of new Set(table.map((row) => row.path))) {
    const parts = path.split("/");
    // Inside an entry: a mount at an entry itself (a container's masks) is what the bind shows, read-only.
    if (parts[1] !== "proc" || parts.length < 4 || !dirs.has(parts[2] as string)) continue;
    const type = mountPointType(path);
    if (type !== null) mounts.push({ path, type });
  }
  const kernelMounts = table.flatMap(({ path, type }) => (KERNEL_FILE_SYSTEMS.has(type) ? [path] : []));
  return { entries, mounts, kernelMounts: [...new Set(kernelMounts)] };
}

/**
 * Whether a directory or a file is mounted at `path`, read from its parent's listing: the same as what
 * is mounted there, and unlike a stat of the path, it never triggers an automount (systemd's
 * binfmt_misc one) on the host.
 */
function mountPointType(path: string): "file" | "dir" | null {
  const slash = path.lastIndexOf("/");
  try {
    const name = path.slice(slash + 1);
    const entry = readdirSync(path.slice(0, slash), { withFileTypes: true }).find((e) => e.name === name);
    return entry === undefined ? null : entry.isDirectory() ? "dir" : "file";
  } catch {
    return null;
  }
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
