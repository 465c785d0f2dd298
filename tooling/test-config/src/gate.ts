import { spawnSync } from "node:child_process";
import { closeSync, existsSync, openSync } from "node:fs";
import { describe, it } from "vitest";

/** What a suite can need from the machine beyond Node. */
export const NEEDS = [
  "linux",
  "bwrap",
  "pty",
  "bash",
  "sh",
  "dash",
  "zsh",
  "python3",
  "git",
  "less",
  "chromium",
  "npm",
  "pip",
  "ssh",
  "java",
  "landlock",
  "seatbelt",
  "podman",
  "kubernetes",
  "qemu",
] as const;
export type Need = (typeof NEEDS)[number];

/** The browser the console's tests drive: Debian's chromium, or the one `CONCH_CHROMIUM` names. */
export const CHROMIUM: string = process.env.CONCH_CHROMIUM ?? "/usr/bin/chromium";

interface Probe {
  /** Where the need makes sense at all; elsewhere a suite that has it is not for this platform. */
  readonly platforms: readonly NodeJS.Platform[] | "any";
  /** Why the need is not met here, or null when it is. */
  readonly missing: () => string | null;
  readonly fix: string;
  /**
   * A program the suite uses but the security promise does not rest on (zsh, less, chromium): missing, the
   * suite is skipped with the reason, on CI too. `.ci/run` installs them, so CI still runs those suites.
   */
  readonly optional?: true;
}

const BWRAP_ARGS = [
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
  // Unknown to bubblewrap before 0.8, the oldest the Linux backend accepts.
  "--disable-userns",
  "--die-with-parent",
  "--new-session",
  "--",
  "true",
];

// The gate probes the machine itself rather than asking the code under test whether to test it.
function bwrapMissing(): string | null {
  const probe = spawnSync("bwrap", BWRAP_ARGS, { encoding: "utf8", timeout: 10_000 });
  if (probe.error !== undefined) {
    return (probe.error as NodeJS.ErrnoException).code === "ENOENT"
      ? "bwrap is not installed"
      : `bwrap did not run: ${probe.error.message}`;
  }
  if (probe.status === 0) return null;
  return `bwrap cannot create the sandbox's namespaces: ${probe.stderr.trim() || `exit code ${probe.status}`}`;
}

// landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION): the ABI, or an errno.
const LANDLOCK_PROBE =
  "import ctypes,os,sys\nlibc=ctypes.CDLL(None,use_errno=True)\nabi=libc.syscall(444,None,0,1)\nprint(abi if abi>0 else 'no Landlock: '+os.strerror(ctypes.get_errno()))\nsys.exit(0 if abi>0 else 1)";

function landlockMissing(): string | null {
  if (process.arch !== "x64" && process.arch !== "arm64") return `no Landlock helper for ${process.arch}`;
  const probe = spawnSync("python3", ["-c", LANDLOCK_PROBE], { encoding: "utf8", timeout: 10_000 });
  if (probe.error !== undefined) return `python3 (the probe's runner) did not run: ${probe.error.message}`;
  return probe.status === 0 ? null : probe.stdout.trim() || `exit code ${probe.status}`;
}

function ptyMissing(): string | null {
  try {
    closeSync(openSync("/dev/ptmx", "r+"));
    return null;
  } catch (error) {
    return `no pseudo-terminal can be opened (/dev/ptmx: ${(error as NodeJS.ErrnoException).code})`;
  }
}

function programMissing(program: string, args: readonly string[]): () => string | null {
  return () => {
    const probe = spawnSync(program, args, { stdio: "ignore", timeout: 10_000 });
    if (probe.error === undefined && probe.status === 0) return null;
    if ((probe.error as NodeJS.ErrnoException | undefined)?.code === "ENOENT") {
      return `${program} is not installed`;
    }
    return `${program} ${args.join(" ")} failed: ${probe.error?.message ?? `exit code ${probe.status}`}`;
  };
}

/** qemu and the kernel tooling/vm/linux-vm.mjs boots (x86_64 machines: it emulates one). */
function qemuMissing(): string | null {
  if (process.arch !== "x64")
    return `tooling/vm boots an x86_64 kernel and runs this machine's files (${process.arch})`;
  const program = programMissing("qemu-system-x86_64", ["--version"])();
  if (program !== null) return program;
  const cache = process.env.CONCH_VM_CACHE ?? "/var/tmp/conch-vm";
  return existsSync(`${cache}/vmlinuz`) && existsSync(`${cache}/initrd.gz`)
    ? null
    : `no kernel prepared in ${cache}`;
}

const PROBES: Readonly<Record<Need, Probe>> = {
  linux: { platforms: ["linux"], missing: () => null, fix: "run it on Linux" },
  bwrap: {
    platforms: ["linux"],
    missing: bwrapMissing,
    fix: "install bubblewrap 0.8+ (`apt-get install bubblewrap`) and allow unprivileged user namespaces (`sysctl -w kernel.unprivileged_userns_clone=1`; on Ubuntu 24.04+ `sysctl -w kernel.apparmor_restrict_unprivileged_userns=0`)",
  },
  landlock: {
    platforms: ["linux"],
    missing: landlockMissing,
    fix: "run on Linux 5.13 or later with Landlock enabled (`landlock` in the kernel's lsm= list), on x86_64 or aarch64",
  },
  seatbelt: {
    platforms: ["darwin"],
    missing: programMissing("/usr/bin/sandbox-exec", [
      "-p",
      "(version 1)(allow default)",
      "--",
      "/usr/bin/true",
    ]),
    fix: "run it on macOS, outside any other Seatbelt sandbox (not from a sandboxed app's terminal)",
  },
  podman: {
    platforms: ["linux"],
    missing: programMissing("podman", ["info", "--format", "{{.Host.OCIRuntime.Name}}"]),
    fix: "apt-get install podman runc (containers run from a root file system built locally; no registry is needed)",
  },
  qemu: {
    platforms: ["linux"],
    missing: qemuMissing,
    fix: "apt-get install qemu-system-x86, then node tooling/vm/linux-vm.mjs --prepare (as root: Debian's kernel and busybox, by apt-get download)",
  },
  kubernetes: {
    platforms: "any",
    missing: () =>
      process.env.CONCH_K8S_CONTEXT === undefined || process.env.CONCH_K8S_CONTEXT === ""
        ? "CONCH_K8S_CONTEXT is not set (a cluster with agent-sandbox and deploy/kubernetes applied)"
        : programMissing("kubectl", ["version", "--client"])(),
    fix: "follow deploy/kubernetes/README.md (a cluster with agent-sandbox, the Conch manifests applied), then set CONCH_K8S_CONTEXT to its kubeconfig context",
    optional: true,
  },
  pty: {
    platforms: ["linux", "darwin"],
    missing: ptyMissing,
    fix: "run where /dev/ptmx and /dev/pts exist (a container needs devpts mounted)",
  },
  bash: { platforms: "any", missing: programMissing("bash", ["-c", "true"]), fix: "apt-get install bash" },
  sh: { platforms: "any", missing: programMissing("sh", ["-c", "true"]), fix: "install a POSIX sh" },
  dash: { platforms: "any", missing: programMissing("dash", ["-c", "true"]), fix: "apt-get install dash" },
  zsh: {
    platforms: "any",
    missing: programMissing("zsh", ["-c", "true"]),
    fix: "apt-get install zsh",
    optional: true,
  },
  python3: {
    platforms: "any",
    missing: programMissing("python3", ["-c", "pass"]),
    fix: "apt-get install python3",
  },
  git: { platforms: "any", missing: programMissing("git", ["--version"]), fix: "apt-get install git" },
  less: {
    platforms: "any",
    missing: programMissing("less", ["--version"]),
    fix: "apt-get install less",
    optional: true,
  },
  npm: { platforms: "any", missing: programMissing("npm", ["--version"]), fix: "install Node.js with npm" },
  pip: {
    platforms: "any",
    missing: programMissing("python3", ["-m", "pip", "--version"]),
    fix: "apt-get install python3-pip",
    optional: true,
  },
  ssh: {
    platforms: "any",
    missing: programMissing("ssh", ["-V"]),
    fix: "apt-get install openssh-client",
    optional: true,
  },
  java: {
    platforms: "any",
    missing: programMissing("java", ["-version"]),
    fix: "apt-get install default-jdk-headless",
    optional: true,
  },
  chromium: {
    platforms: ["linux"],
    missing: programMissing(CHROMIUM, ["--version"]),
    fix: "apt-get install chromium (Debian's; the tests drive it with playwright-core, and download no browser)",
    optional: true,
  },
};

/** What the gate found out about this machine, injectable so the decision is testable. */
export interface Machine {
  readonly platform: NodeJS.Platform;
  readonly ci: boolean;
  readonly missing: (need: Need) => string | null;
  readonly fix: (need: Need) => string;
  readonly platforms: (need: Need) => readonly NodeJS.Platform[] | "any";
  readonly optional: (need: Need) => boolean;
}

export type Gate =
  | { readonly action: "run" }
  | { readonly action: "fail"; readonly message: string }
  | { readonly action: "skip"; readonly message: string };

/**
 * Whether a suite with these needs runs here. A need that makes no sense on this platform skips it
 * everywhere (the suite is not for this platform); one that is missing on its own platform fails it on
 * CI (a suite that silently stops running is worse than a red build) and skips it elsewhere, unless every
 * missing need is an optional program, which skips it everywhere with the reason.
 */
export function gate(needs: Need | readonly Need[], machine: Machine): Gate {
  const list: readonly Need[] = typeof needs === "string" ? [needs] : needs;
  const offPlatform = list.filter((need) => {
    const platforms = machine.platforms(need);
    return platforms !== "any" && !platforms.includes(machine.platform);
  });
  if (offPlatform.length > 0) {
    return { action: "skip", message: `needs ${offPlatform.join(", ")}: not on ${machine.platform}` };
  }
  const missing = list.flatMap((need) => {
    const reason = machine.missing(need);
    return reason === null ? [] : [{ need, text: `${reason} (fix: ${machine.fix(need)})` }];
  });
  if (missing.length === 0) return { action: "run" };
  const message = missing.map(({ text }) => text).join("; ");
  const required = missing.some(({ need }) => !machine.optional(need));
  return machine.ci && required
    ? { action: "fail", message: `CI must run this suite, but ${message}` }
    : { action: "skip", message };
}

const probed = new Map<Need, string | null>();

/** Why `need` is not met on this machine, or null when it is; probed once per test file. */
export function whyMissing(need: Need): string | null {
  if (!probed.has(need)) probed.set(need, PROBES[need].missing());
  return probed.get(need) ?? null;
}

/** `CI` set to anything but empty, `0` or `false`, as CI services do. */
function onCi(): boolean {
  const value = process.env.CI;
  return value !== undefined && value !== "" && value !== "0" && value.toLowerCase() !== "false";
}

const here = (): Machine => ({
  platform: process.platform,
  ci: onCi(),
  missing: whyMissing,
  fix: (need) => PROBES[need].fix,
  platforms: (need) => PROBES[need].platforms,
  optional: (need) => PROBES[need].optional === true,
});

/** {@link gate} on this machine. */
export function gateHere(needs: Need | readonly Need[]): Gate {
  return gate(needs, here());
}

function announce(title: string, message: string): void {
  // At collection, so the skip shows without a verbose reporter.
  process.stderr.write(`skipping "${title}": ${message}\n`);
}

/** `describe` for a suite that needs `needs` of the machine, gated by {@link gate}. */
export function describeWith(needs: Need | readonly Need[], title: string, suite: () => void): void {
  const decision = gateHere(needs);
  if (decision.action === "run") describe(title, suite);
  else if (decision.action === "fail") {
    describe(title, () => {
      it(`has ${typeof needs === "string" ? needs : needs.join(", ")}`, () => {
        throw new Error(decision.message);
      });
    });
  } else {
    announce(title, decision.message);
    describe.skip(`${title} (skipped: ${decision.message})`, suite);
  }
}

/** `it` for a test that needs `needs` of the machine, gated by {@link gate}. */
export function itWith(
  needs: Need | readonly Need[],
  title: string,
  test: () => unknown,
  timeout?: number,
): void {
  const decision = gateHere(needs);
  if (decision.action === "run") it(title, test, timeout);
  else if (decision.action === "fail") {
    it(title, () => {
      throw new Error(decision.message);
    });
  } else {
    announce(title, decision.message);
    it.skip(`${title} (skipped: ${decision.message})`, test);
  }
}
