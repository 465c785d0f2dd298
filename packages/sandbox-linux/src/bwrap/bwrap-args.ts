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
}

/**
 * bubblewrap's arguments for `rules`, in the order they must apply: the whole file system read-only,
 * writable roots bound writable over it, protected subpaths bound read-only again inside them, fresh
 * /dev and /proc, and the namespaces.
 */
export function bwrapArgs(rules: SandboxRules, options: BwrapArgsOptions): string[] {
  const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"];
  for (const root of rules.writableRoots) args.push("--bind", root.root, root.root);
  for (const root of rules.writableRoots) {
    for (const path of root.readOnlySubpaths) args.push("--ro-bind", path, path);
    // A read-only empty directory where the path would be: the command cannot create it. bwrap makes the
    // mount point, so an empty directory stays behind on the host.
    for (const path of root.blockedMissing) args.push("--ro-bind", options.emptyDir, path);
  }
  args.push("--unshare-user", "--unshare-pid");
  if (!rules.network) args.push("--unshare-net");
  args.push("--die-with-parent");
  if (!options.tty) args.push("--new-session");
  args.push("--chdir", options.cwd, "--seccomp", String(options.seccompFd), "--");
  return args;
}
