import { readFileSync } from "node:fs";
import type { Availability } from "@conch/sandbox-core";
import { runCapture } from "../helper/run-capture.js";
import { withInheritedFdsClosed } from "./fd-closer.js";

const INSTALL_FIX =
  "install bubblewrap from your distribution: `apt-get install bubblewrap` (Debian, Ubuntu), `dnf install bubblewrap` (Fedora), `pacman -S bubblewrap` (Arch)";
const UPGRADE_FIX =
  "upgrade bubblewrap to 0.8 or later: Debian 12, Ubuntu 24.04, Fedora 39, Arch and their successors ship it (`apt-get install bubblewrap`, `dnf install bubblewrap`, `pacman -S bubblewrap`); on an older release (Debian 11 and RHEL 9 ship 0.4, Ubuntu 22.04 ships 0.6) install a backported package where your distribution offers one, or remove the distribution's package and install bubblewrap 0.8+ built from https://github.com/containers/bubblewrap into /usr/local/bin";
const USERNS_FIX =
  "allow unprivileged user namespaces: `sysctl -w kernel.unprivileged_userns_clone=1` (Debian), `sysctl -w user.max_user_namespaces=15000`, or on Ubuntu 24.04+ `sysctl -w kernel.apparmor_restrict_unprivileged_userns=0` (or an AppArmor profile for bwrap)";
const SHELL_FIX =
  "install bash: `apt-get install bash`, `dnf install bash`, `pacman -S bash`, `apk add bash`";
/**
 * 0.8 added --disable-userns: without it a sandboxed command can make a user namespace of its own and,
 * holding every capability there, unmount or remount what the sandbox made read-only.
 */
const MINIMUM_VERSION: readonly [number, number] = [0, 8];

/**
 * What the probe found: the programs to run, or why the sandbox cannot run and how to fix it;
 * `namespaces` when the cause is that no user namespace can be made here (the Landlock backend's cue).
 */
export type BwrapProbe =
  | { readonly available: true; readonly bwrap: string; readonly shell: string }
  | (Extract<Availability, { available: false }> & { readonly namespaces?: boolean });

function readSysctl(path: string): string | null {
  try {
    return readFileSync(path, "utf8").trim();
  } catch {
    return null;
  }
}

/**
 * Why this host refuses user namespaces, as far as it says, and the fix for that cause: AppArmor's
 * restriction (Ubuntu 23.10+), a sysctl set to 0, or a container whose runtime filters unshare/clone.
 */
export function userNamespaceCause(
  output = "",
  read: (path: string) => string | null = readSysctl,
  uid: number | undefined = process.getuid?.(),
): { cause: string; fix: string } {
  if (/ENOSPC|max_\*?_?namespaces|nesting depth/.test(output)) {
    return {
      cause:
        "no more user namespaces may be made here: user.max_user_namespaces is 0 or used up, or Conch itself runs in a sandbox that forbids nesting one",
      fix: '`sysctl -w user.max_user_namespaces=15000` where you may; inside a sandbox or container that forbids it, Conch uses Landlock (sandbox_backend = "auto")',
    };
  }
  if (read("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") === "1" && uid !== 0) {
    return {
      cause:
        "AppArmor restricts unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns=1, Ubuntu 23.10 and later)",
      fix: 'give bwrap an AppArmor profile that allows userns (`/etc/apparmor.d/bwrap`, as Ubuntu documents), or `sysctl -w kernel.apparmor_restrict_unprivileged_userns=0`; or let Conch use Landlock (sandbox_backend = "auto", the default)',
    };
  }
  if (read("/proc/sys/user/max_user_namespaces") === "0") {
    return {
      cause: "user namespaces are switched off (user.max_user_namespaces=0)",
      fix: '`sysctl -w user.max_user_namespaces=15000` where you may; inside a sandbox or container that set it, Conch uses Landlock (sandbox_backend = "auto")',
    };
  }
  if (read("/proc/sys/kernel/unprivileged_userns_clone") === "0" && uid !== 0) {
    return {
      cause: "unprivileged user namespaces are switched off (kernel.unprivileged_userns_clone=0)",
      fix: '`sysctl -w kernel.unprivileged_userns_clone=1`; or let Conch use Landlock (sandbox_backend = "auto")',
    };
  }
  const container =
    read("/run/.containerenv") !== null ||
    read("/.dockerenv") !== null ||
    /\b(docker|kubepods|containerd|libpod|lxc)\b/.test(read("/proc/1/cgroup") ?? "");
  if (container) {
    return {
      cause:
        "this looks like a container, whose runtime forbids making namespaces (its seccomp profile or missing capabilities)",
      fix: 'run the container with a seccomp profile that allows unshare/clone of user namespaces (e.g. podman/docker `--security-opt seccomp=unconfined`, or `--security-opt systempaths=unconfined` for /proc), or let Conch use Landlock (sandbox_backend = "auto")',
    };
  }
  return { cause: "the kernel refused to make a user namespace", fix: USERNS_FIX };
}

/**
 * Whether bubblewrap can sandbox here: present, 0.8 or later, and able to create the namespaces the
 * sandbox uses, with `shell` closing inherited descriptors inside (a real `bwrap ... true`). When not,
 * the reason and the fix.
 */
export async function probeBwrap(bwrap: string | null, shell: string | null): Promise<BwrapProbe> {
  if (bwrap === null) {
    return { available: false, reason: "bubblewrap (bwrap) is not installed", fix: INSTALL_FIX };
  }
  const version = await runCapture(bwrap, ["--version"]);
  const match = /bubblewrap (\d+)\.(\d+)(?:\.(\d+))?/.exec(version.output);
  if (match === null) {
    return {
      available: false,
      reason: `${bwrap} --version did not answer as bubblewrap: ${version.output.trim()}`,
      fix: INSTALL_FIX,
    };
  }
  const [major, minor] = [Number(match[1]), Number(match[2])];
  if (major < MINIMUM_VERSION[0] || (major === MINIMUM_VERSION[0] && minor < MINIMUM_VERSION[1])) {
    return {
      available: false,
      reason: `bubblewrap ${match[0].slice("bubblewrap ".length)} at ${bwrap} is too old: the sandbox needs ${MINIMUM_VERSION.join(".")} or later, whose --disable-userns keeps a sandboxed command from undoing its read-only mounts`,
      fix: UPGRADE_FIX,
    };
  }
  if (shell === null) {
    return {
      available: false,
      reason: "bash is not installed; the sandbox runs it to close inherited descriptors before the command",
      fix: SHELL_FIX,
    };
  }
  const probe = await runCapture(bwrap, [
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--unshare-user",
    "--unshare-pid",
    "--unshare-uts",
    "--disable-userns",
    "--unshare-net",
    "--die-with-parent",
    "--new-session",
    "--cap-drop",
    "ALL",
    "--",
    ...withInheritedFdsClosed(shell, 2, ["true"]),
  ]);
  if (probe.code === 0) return { available: true, bwrap, shell };
  const { cause, fix } = userNamespaceCause(probe.output);
  return {
    available: false,
    reason: `bubblewrap cannot create the sandbox's namespaces here (${cause}): ${probe.output.trim() || `exit code ${probe.code}`}`,
    fix,
    namespaces: true,
  };
}
