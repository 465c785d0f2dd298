import { spawn } from "node:child_process";
import type { Availability } from "@conch/sandbox-core";
import { findBwrap } from "./find-bwrap.js";

const INSTALL_FIX =
  "install bubblewrap from your distribution: `apt-get install bubblewrap` (Debian, Ubuntu), `dnf install bubblewrap` (Fedora), `pacman -S bubblewrap` (Arch)";
const USERNS_FIX =
  "allow unprivileged user namespaces: `sysctl -w kernel.unprivileged_userns_clone=1` (Debian), `sysctl -w user.max_user_namespaces=15000`, or on Ubuntu 24.04+ `sysctl -w kernel.apparmor_restrict_unprivileged_userns=0` (or an AppArmor profile for bwrap)";
/** --seccomp, --die-with-parent, --unshare-user and --new-session all work from 0.4 on. */
const MINIMUM_VERSION: readonly [number, number] = [0, 4];

function runCapture(file: string, args: readonly string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(file, args, { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (data: Buffer) => {
      output += data.toString();
    });
    child.stderr.on("data", (data: Buffer) => {
      output += data.toString();
    });
    child.on("error", (error) => resolve({ code: null, output: error.message }));
    child.on("close", (code) => resolve({ code, output }));
  });
}

/** What the probe learnt: whether bubblewrap can sandbox here, and what its version supports. */
export interface BwrapProbe {
  availability: Availability;
  /** bubblewrap 0.8+ can forbid user namespaces inside the sandbox (`--disable-userns`). */
  disableUserns: boolean;
}

/**
 * Whether bubblewrap can sandbox here: present, recent enough, and able to create the namespaces the
 * sandbox uses (a real `bwrap ... true`). When not, the reason and the fix.
 */
export async function probeBwrap(bwrap: string | null): Promise<BwrapProbe> {
  let disableUserns = false;
  const availability = await probeAvailability(bwrap, (major, minor) => {
    disableUserns = major > 0 || minor >= 8;
  });
  return { availability, disableUserns: availability.available && disableUserns };
}

async function probeAvailability(
  bwrap: string | null,
  onVersion: (major: number, minor: number) => void,
): Promise<Availability> {
  if (bwrap === null) {
    return { available: false, reason: "bubblewrap (bwrap) is not installed", fix: INSTALL_FIX };
  }
  const version = await runCapture(bwrap, ["--version"]);
  const match = /bubblewrap (\d+)\.(\d+)/.exec(version.output);
  if (match === null) {
    return {
      available: false,
      reason: `${bwrap} --version did not answer as bubblewrap: ${version.output.trim()}`,
      fix: INSTALL_FIX,
    };
  }
  const [major, minor] = [Number(match[1]), Number(match[2])];
  onVersion(major, minor);
  if (major < MINIMUM_VERSION[0] || (major === MINIMUM_VERSION[0] && minor < MINIMUM_VERSION[1])) {
    return {
      available: false,
      reason: `bubblewrap ${major}.${minor} at ${bwrap} is too old (need ${MINIMUM_VERSION.join(".")} or later)`,
      fix: INSTALL_FIX,
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
    "--unshare-net",
    "--die-with-parent",
    "--new-session",
    "--",
    "true",
  ]);
  if (probe.code === 0) return { available: true };
  return {
    available: false,
    reason: `bubblewrap cannot create the sandbox's namespaces here: ${probe.output.trim() || `exit code ${probe.code}`}`,
    fix: USERNS_FIX,
  };
}

export { findBwrap };
