import type { SandboxRules } from "@conch/sandbox-core";

export interface BwrapArgsOptions {
  /** The directory the command runs in. */
  cwd: string;
  /** PTY sessions keep their controlling terminal: no `--new-session` (TIOCSTI is blocked by seccomp). */
  tty: boolean;
  /** The descriptor bwrap reads the seccomp program from. */
  seccompFd: number;
  /** An empty directory to mount read-only over protected paths that do not exist yet. */
  emptyDir: string;
  /** Forbid new user namespaces inside (bubblewrap 0.8+): no nested namespace to attack the kernel from. */
  disableUserns?: boolean;
}

/**
 * bubblewrap's arguments for `rules`, in the order they must apply: the whole file system read-only,
 * writable roots bound writable over it, protected subpaths bound read-only again inside them, fresh
 * /dev and /proc, and the namespaces.
 */
export function bwrapArgs(rules: SandboxRules, options: BwrapArgsOptions): string[] {
  const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"];
  for (const root of rules.writableRoots) args.push("--bind", root.root, root.root);
  // Every directory between a writable root and a protected path becomes a mount point of its own:
  // the kernel refuses to rename a mount point (EBUSY), so the command cannot move the directory that
  // holds `.git` aside and build a new `.git` at the old path.
  const pinned = new Set<string>();
  for (const root of rules.writableRoots) {
    for (const path of [...root.readOnlySubpaths, ...root.blockedMissing]) {
      for (const dir of between(root.root, path)) {
        if (pinned.has(dir)) continue;
        pinned.add(dir);
        args.push("--bind", dir, dir);
      }
    }
  }
  for (const root of rules.writableRoots) {
    for (const path of root.readOnlySubpaths) args.push("--ro-bind", path, path);
    // A read-only empty directory where the path would be: the command cannot create it. bwrap makes the
    // mount point, so an empty directory stays behind on the host.
    for (const path of root.blockedMissing) args.push("--ro-bind", options.emptyDir, path);
  }
  args.push("--unshare-user", "--unshare-pid");
  if (options.disableUserns) args.push("--disable-userns");
  if (!rules.network) args.push("--unshare-net");
  args.push("--die-with-parent");
  if (!options.tty) args.push("--new-session");
  args.push("--chdir", options.cwd, "--seccomp", String(options.seccompFd), "--");
  return args;
}

/** The directories strictly between `root` and `path` (which lies inside it), outermost first. */
function between(root: string, path: string): string[] {
  const prefix = root.endsWith("/") ? root : `${root}/`;
  if (!path.startsWith(prefix)) return [];
  const parts = path.slice(prefix.length).split("/").slice(0, -1);
  return parts.map((_, i) => prefix + parts.slice(0, i + 1).join("/"));
}
