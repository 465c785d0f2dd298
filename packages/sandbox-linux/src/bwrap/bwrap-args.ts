import type { SandboxRules } from "@conch/sandbox-core";
import { dirsBetween, isAtOrInside } from "./paths.js";
import type { ProcSurface } from "./proc-entries.js";

type HiddenPath = SandboxRules["hidden"][number];

export interface BwrapArgsOptions {
  /** The directory the command runs in. */
  cwd: string;
  /** PTY sessions keep their controlling terminal: no `--new-session` (TIOCSTI is blocked by seccomp). */
  tty: boolean;
  /** The descriptor bwrap reads the seccomp program from. */
  seccompFd: number;
  /**
   * The command is Conch's helper, to run as the pid namespace's pid 1 (`--as-pid-1`): the kernel then
   * delivers it no signal from inside the namespace that it does not handle, SIGKILL and SIGSTOP
   * included, so the command cannot stop or kill what names its leftovers.
   */
  asPid1?: boolean;
  /** An empty mode-000 file of ours, bound read-only over hidden files (`hiddenFilePlaceholder`). */
  placeholder: string;
  /** The files of /proc to mask, and where the host mounted kernel file systems (`readProcSurface`). */
  proc: ProcSurface;
  /**
   * For a root caller, device nodes of Conch's own by their /dev path (`privateDeviceNodes`), bound over
   * the host's that `--dev` brings; null keeps the host's.
   */
  devices: ReadonlyMap<string, string> | null;
  /** The directory holding `devices`, kept read-only wherever a writable mount shows it. */
  deviceDir: string;
  /** The command starts in the workspace's shared network namespace (`SharedNetwork`): no new one. */
  sharedNetwork?: boolean;
  /** The uid and gid the command runs as (set when bwrap starts as root of another user namespace). */
  identity?: { readonly uid: number; readonly gid: number };
  /** The size of a fresh /tmp (read-only mode's tmpfs), in bytes; unbounded (tmpfs's half of RAM) without. */
  tmpBytes?: number;
}

/** A host directory bound writable at `target` in the sandbox. */
interface WritableMount {
  readonly source: string;
  readonly target: string;
}

/** A path that must stay read-only (or hidden): `source` on the host, `target` in the sandbox. */
interface Protected {
  readonly source: string;
  readonly target: string;
}

/**
 * bubblewrap's arguments for `rules`, in the order the mounts must stack: the whole file system
 * read-only; a fresh /dev and a read-only fresh /proc (see `kernelSurface`); the private or empty /tmp;
 * writable roots over it (a root under /tmp lands on top); the directories leading to protected paths
 * pinned; protected paths read-only again; the kernel's
 * surface once more if a writable root covered it; hidden paths last, so a hidden path inside a
 * writable or read-only bind stays hidden. Then the namespaces (user, pid, UTS, and network when it is
 * off), no capabilities (bwrap keeps them for root otherwise), and the seccomp filter.
 *
 * Nothing is left behind in the user's files: every mount point there exists already. bwrap makes the
 * mount points of a hidden directory's readable exceptions inside the tmpfs that hides it, and those of
 * writable roots under a private /tmp in that directory (Conch's own state).
 */
export function bwrapArgs(rules: SandboxRules, options: BwrapArgsOptions): string[] {
  const args = ["--ro-bind", "/", "/", ...kernelSurface(options)];
  const writable: WritableMount[] = [];
  const { tmp } = rules;
  if (tmp.kind === "private") {
    for (const target of tmp.targets) {
      args.push("--bind", tmp.source, target);
      writable.push({ source: tmp.source, target });
    }
  } else if (tmp.kind === "empty") {
    const size = options.tmpBytes === undefined ? [] : ["--size", String(options.tmpBytes)];
    for (const target of tmp.targets) args.push("--perms", "1777", ...size, "--tmpfs", target);
  }
  const roots = rules.writableRoots.map(({ root }): WritableMount => ({ source: root, target: root }));
  for (const root of roots) args.push("--bind", root.source, root.target);
  writable.push(...roots);

  const readOnly: Protected[] = rules.writableRoots.flatMap(({ readOnlySubpaths }) =>
    readOnlySubpaths.map((path) => ({ source: path, target: path })),
  );
  // Whichever writable mount shows the placeholder or the device nodes would let the sandbox swap them
  // for a symlink, which the next sandbox's bwrap would follow.
  const ours = options.devices === null ? [options.placeholder] : [options.placeholder, options.deviceDir];
  for (const mount of writable) {
    for (const path of ours) {
      if (!isAtOrInside(path, mount.source)) continue;
      readOnly.push({ source: path, target: mount.target + path.slice(mount.source.length) });
    }
  }
  const hidden = visibleHidden(rules);

  // Every directory between a writable mount and a protected or hidden path becomes a mount point of
  // its own: the kernel refuses to rename a mount point (EBUSY), so the command can neither move the
  // directory holding `.git` aside and build a new `.git` where it was, nor move a hidden path out from
  // under the name the next command's rules will look for. The innermost mount showing a path is the
  // one it can be renamed in (writable roots come after, and on top of, the private /tmp).
  const pinned = new Set<string>();
  for (const target of [...readOnly.map((entry) => entry.target), ...hidden.map((entry) => entry.path)]) {
    const mount = writable.findLast((candidate) => isAtOrInside(target, candidate.target));
    if (mount === undefined) continue;
    for (const dir of dirsBetween(mount.target, target)) {
      if (pinned.has(dir)) continue;
      pinned.add(dir);
      args.push("--bind", mount.source + dir.slice(mount.target.length), dir);
    }
  }
  for (const { source, target } of readOnly) args.push("--ro-bind", source, target);
  // A kernel file system the host mounted inside a writable root (a chroot's /proc or /sys in the
  // workspace) is read-only again: the writable bind carries it along writable, sysctls and all.
  for (const path of options.proc.kernelMounts) {
    if (KERNEL_MOUNTS.some((kernel) => isAtOrInside(path, kernel))) continue;
    const mount = writable.findLast((candidate) => isAtOrInside(path, candidate.source));
    if (mount !== undefined) args.push("--ro-bind-try", path, mount.target + path.slice(mount.source.length));
  }
  // A writable root at or above them (`/`, with home_workspace) brings the host's /dev, /proc (its
  // /proc/sys writable) and sysfs writable: the sandbox's own go over it again.
  if (writable.some(({ target }) => KERNEL_MOUNTS.some((path) => isAtOrInside(path, target)))) {
    args.push(...kernelSurface(options), "--ro-bind", "/sys", "/sys");
  }
  for (const entry of hidden) {
    if (entry.type === "file") {
      args.push("--ro-bind", options.placeholder, entry.path);
      continue;
    }
    // Mode 000: listing or entering it fails with EACCES, which says "the sandbox" to the command and to
    // the denial check. With readable exceptions, 0111: they can be reached by name, nothing listed.
    const readable = exceptionsOf(entry);
    args.push("--perms", readable.length === 0 ? "0000" : "0111", "--tmpfs", entry.path);
    // -try: an exception that vanished since the rules were resolved is simply not there.
    for (const path of readable) args.push("--ro-bind-try", path, path);
    // Read-only, so the command cannot chmod its way in or leave files there.
    args.push("--remount-ro", entry.path);
  }

  args.push("--unshare-user", "--unshare-pid", "--unshare-uts", "--disable-userns");
  // Without the host's network: the workspace's shared namespace when the command starts in one (it was
  // entered before bwrap), else one of its own.
  if (!rules.network && options.sharedNetwork !== true) args.push("--unshare-net");
  // Entered as the root of the shared namespace's user namespace, bwrap would make the command uid 0 there.
  if (options.identity !== undefined) {
    args.push("--uid", String(options.identity.uid), "--gid", String(options.identity.gid));
  }
  args.push("--die-with-parent");
  if (options.asPid1 === true) args.push("--as-pid-1");
  if (!options.tty) args.push("--new-session");
  args.push("--cap-drop", "ALL", "--chdir", options.cwd, "--seccomp", String(options.seccompFd), "--");
  return args;
}

const KERNEL_MOUNTS: readonly string[] = ["/dev", "/proc", "/sys"];

/**
 * A fresh /dev (for a root caller with device nodes of Conch's own: `privateDeviceNodes`) and a fresh
 * /proc, all of it read-only, with the files in `MASKED_PROC_FILES` reading as the placeholder. As root the sandbox's uid 0 is the host's, and /proc's kernel-wide files check only
 * the uid: sysctls (`/proc/sys/kernel/core_pattern`, `kernel/hostname`), `/proc/sysrq-trigger`,
 * `/proc/irq/N/smp_affinity`, and the mode of every entry that is not a process's own, which its owner
 * may chmod for every mount of /proc at once (`chmod 666 /proc/sysrq-trigger` would let any host user
 * write it). A process's `net` directory holds its network namespace's entries, the host's when the
 * network is on, so the per-process part is not the command's alone either; its own files
 * (`oom_score_adj`, `comm`) are read-only with the rest. A descriptor reopened through /proc/self/fd is
 * written on its own file's mount, so `> /dev/stdout` still works. bwrap 0.8 makes /proc/sys,
 * sysrq-trigger, irq and bus read-only only when access(W_OK) says it may write them, and the directory
 * /proc/sys says no while the files in it say yes. A fresh /proc holds none of the file systems the host
 * mounted inside its own (binfmt_misc, nfsd).
 */
function kernelSurface(options: BwrapArgsOptions): string[] {
  const args = ["--dev", "/dev"];
  for (const [target, source] of options.devices ?? []) args.push("--dev-bind", source, target);
  args.push("--proc", "/proc");
  for (const name of options.proc.masked) args.push("--ro-bind", options.placeholder, `/proc/${name}`);
  args.push("--remount-ro", "/proc");
  return args;
}

/**
 * The hidden paths the sandbox can see, outermost first. One under the private or empty /tmp (and
 * not in a writable root bound there) is out of sight already; one inside another hidden directory
 * is hidden by it, unless it lies in one of that directory's readable exceptions.
 */
function visibleHidden(rules: SandboxRules): HiddenPath[] {
  const tmpTargets = rules.tmp.kind === "host" ? [] : rules.tmp.targets;
  const inRoot = (path: string): boolean => rules.writableRoots.some(({ root }) => isAtOrInside(path, root));
  const depth = (path: string): number => path.split("/").length;
  const sorted = rules.hidden
    .filter(({ path }) => inRoot(path) || !tmpTargets.some((target) => isAtOrInside(path, target)))
    .sort((a, b) => depth(a.path) - depth(b.path));
  const kept: HiddenPath[] = [];
  for (const entry of sorted) {
    const cover = kept.find((outer) => outer.type === "dir" && isAtOrInside(entry.path, outer.path));
    if (cover !== undefined && !exceptionsOf(cover).some((path) => isAtOrInside(entry.path, path))) continue;
    kept.push(entry);
  }
  return kept;
}

/** A hidden directory's readable exceptions: only those strictly inside it mean anything. */
function exceptionsOf(entry: HiddenPath): string[] {
  return entry.readable.filter((path) => path !== entry.path && isAtOrInside(path, entry.path));
}
