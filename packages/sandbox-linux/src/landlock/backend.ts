// The Landlock backend, for Linux hosts where bubblewrap cannot make its namespaces (Ubuntu 24.04's
// AppArmor restriction, most containers, hardened sysctls). The static helper applies Landlock grants
// (grants.ts), sets no_new_privs, installs the same seccomp program as under bwrap (with IP sockets
// refused too: there is no network namespace to keep them on a private loopback) and execs the command.
// What it does not do that bwrap does: no private /tmp (TMPDIR is the workspace's own directory; the
// host's /tmp is neither readable nor writable), no pid namespace (other processes are visible in /proc;
// signals to processes outside the sandbox are refused only from Landlock ABI 6 on), no network
// namespace (no network at all unless the policy gives the host's: an allowlist cannot reach a proxy
// here, so it means none). docs/security.md says the same.
import {
  type Availability,
  type LocalSandboxBackend,
  SandboxError,
  type SandboxRules,
  type SpawnSpec,
  sandboxEnv,
} from "@conch/sandbox-core";
import { withInheritedFdsClosed } from "../bwrap/fd-closer.js";
import { findProgram } from "../bwrap/find-program.js";
import { checkRulesAndPrograms } from "../bwrap/paths.js";
import { helperPath, probeLandlockAbi } from "../helper/helper.js";
import { limitArgs, makeCommandCgroups, type ResourceLimits, tmpBound } from "../limits/limits.js";
import { buildSeccompFilter, seccompArchOf } from "../seccomp/filter.js";
import { landlockGrants } from "./grants.js";

/** From this ABI on, Landlock scopes signals and abstract unix sockets to the sandbox. */
const SIGNAL_SCOPE_ABI = 6;

export interface LandlockBackendOptions {
  /** Where PATH is read from to find bash; defaults to `process.env`. */
  readonly env?: Record<string, string | undefined>;
  /**
   * Only where this backend cannot run: "auto" mode's fallback. Called by `available()`; Landlock is
   * offered only when it returns a refusal whose cause is the namespaces (`namespaces: true`), and
   * refused, naming that refusal, otherwise.
   */
  readonly onlyWhen?: () => Promise<Availability & { readonly namespaces?: boolean }>;
  /** What each command may consume (LinuxBackendOptions.limits). */
  readonly limits?: ResourceLimits;
}

type Probe =
  | { readonly available: true; readonly helper: string; readonly shell: string; readonly abi: number }
  | Extract<Availability, { available: false }>;

const KERNEL_FIX =
  "run a kernel with Landlock (Linux 5.13 or later, with `landlock` in the lsm= boot parameter or CONFIG_LSM), or make bubblewrap work here";

/** What Landlock enforces on this kernel, and what it leaves, in one sentence each (for `conch sandbox --check`). */
export async function describeLandlock(): Promise<string[]> {
  const found = helperPath();
  if (!("path" in found)) return [`Landlock cannot be used: ${found.reason}`];
  const { abi, why } = await probeLandlockAbi(found.path);
  if (abi < 1) return [`the kernel offers no Landlock${why === "" ? "" : ` (${why})`}`];
  return landlockLimits(abi);
}

/** What Landlock enforces on a kernel of `abi`, and what it leaves, in one sentence each. */
function landlockLimits(abi: number): string[] {
  return [
    `Landlock ABI ${abi}: writes only in the writable roots (protected paths read-only), hidden paths unreadable, no network (seccomp refuses IP and unix sockets)`,
    "no private /tmp: TMPDIR is the workspace's own directory and the host's /tmp is neither readable nor writable",
    abi >= SIGNAL_SCOPE_ABI
      ? "no pid namespace: other processes are visible in /proc, but signals to them are refused"
      : `no pid namespace: other processes are visible in /proc, and signals to this user's other processes are not refused (that needs Landlock ABI ${SIGNAL_SCOPE_ABI}, Linux 6.12)`,
    "a writable root that holds a protected path (.git) cannot get new top-level entries, and directories on the way to a hidden path cannot be listed",
  ];
}

export function createLandlockBackend(options: LandlockBackendOptions = {}): LocalSandboxBackend {
  const env = options.env ?? process.env;
  let probe: Promise<Probe> | undefined;
  const probeOnce = (): Promise<Probe> => {
    probe ??= (async (): Promise<Probe> => {
      if (process.platform !== "linux") {
        return {
          available: false,
          reason: "Landlock is a Linux facility",
          fix: "use the platform's own backend",
        };
      }
      if (options.onlyWhen !== undefined) {
        const first = await options.onlyWhen();
        if (first.available) {
          return {
            available: false,
            reason:
              "bubblewrap works here, so it is used (Landlock is the fallback where it cannot make its namespaces)",
            fix: 'set sandbox_backend = "landlock" to use Landlock anyway',
          };
        }
        if (first.namespaces !== true) {
          return {
            available: false,
            reason: `bubblewrap cannot run (${first.reason}), for a reason other than its namespaces, so Landlock is not used in its place`,
            fix: `${first.fix}; or set sandbox_backend = "landlock"`,
          };
        }
      }
      try {
        seccompArchOf(process.arch);
      } catch (error) {
        return {
          available: false,
          reason: (error as Error).message,
          fix: "run Conch on x86_64 or aarch64 Linux",
        };
      }
      const found = helperPath();
      if (!("path" in found)) return found;
      const shell = findProgram("bash", env);
      if (shell === null) {
        return {
          available: false,
          reason:
            "bash is not installed; the sandbox runs it to close inherited descriptors before the command",
          fix: "install bash: `apt-get install bash`, `dnf install bash`, `pacman -S bash`, `apk add bash`",
        };
      }
      const { abi, why } = await probeLandlockAbi(found.path);
      if (abi < 1) {
        return {
          available: false,
          reason: `the kernel offers no Landlock${why === "" ? "" : ` (${why})`}`,
          fix: KERNEL_FIX,
        };
      }
      return { available: true, helper: found.path, shell, abi };
    })();
    return probe;
  };

  const backend: LocalSandboxBackend = {
    name: "landlock",
    platform: "linux",
    async available(): Promise<Availability> {
      const probed = await probeOnce();
      return probed.available ? { available: true } : probed;
    },
    async transform(spec: SpawnSpec, rules: SandboxRules, transformOptions = {}): Promise<SpawnSpec> {
      const probed = await probeOnce();
      if (!probed.available) {
        throw new SandboxError("SANDBOX_UNAVAILABLE", `cannot sandbox: ${probed.reason}; fix: ${probed.fix}`);
      }
      checkRulesAndPrograms(rules, "Landlock", { outside: [probed.helper], inside: [probed.shell] });
      let grants: ReturnType<typeof landlockGrants>;
      try {
        grants = landlockGrants(rules);
      } catch (error) {
        throw new SandboxError(
          "SANDBOX_UNAVAILABLE",
          `cannot sandbox with Landlock: ${(error as Error).message}`,
        );
      }
      const filter = buildSeccompFilter({
        arch: seccompArchOf(process.arch),
        network: rules.network,
        ipSockets: false,
        hostProcesses: { root: process.getuid?.() === 0 },
        fileLimit: options.limits?.fileMb !== undefined,
      });
      const seccompFd = 3 + spec.extraFds.length;
      // A one-shot: the helper stays as the command's subreaper, and stops and names what it leaves. A
      // session under limits: the helper reports only what was reached, on a descriptor of its own.
      const oneShot = transformOptions.reportLeftovers === true;
      const reportFd = oneShot || options.limits !== undefined ? seccompFd + 1 : null;
      // Throws (SANDBOX_UNAVAILABLE) where the limits should hold but the group cannot be made.
      const cgroups = options.limits === undefined ? [] : makeCommandCgroups(options.limits);
      const tmpMb = options.limits?.tmpMb;
      // Only the workspace's /tmp as mounted at tmp_mb (workspace setup): any other full tmpfs is not ours.
      const tmpLimit =
        tmpMb !== undefined && rules.tmp.kind === "private" && tmpBound(rules.tmp.source, tmpMb)
          ? rules.tmp.source
          : null;
      const helperArgs = [
        ...(options.limits === undefined ? [] : limitArgs(options.limits, cgroups)),
        ...(tmpLimit === null ? [] : ["--tmp-limit", tmpLimit]),
        ...(reportFd === null
          ? []
          : oneShot
            ? ["--report", String(reportFd)]
            : ["--report-limits", String(reportFd), "--limits-private"]),
        ...grants.read.flatMap((path) => ["--read", path]),
        ...grants.write.flatMap((path) => ["--write", path]),
        ...(probed.abi >= SIGNAL_SCOPE_ABI ? ["--landlock-scope"] : []),
        // The caller's own extra descriptors and the seccomp one stay; inherited others are closed.
        "--keep-fds",
        String(seccompFd),
        "--seccomp",
        String(seccompFd),
        "--",
      ];
      // The helper closes the seccomp descriptor once read; the caller's own extra descriptors stay.
      const command = withInheritedFdsClosed(probed.shell, 2 + spec.extraFds.length, spec.argv);
      const childEnv: Record<string, string> = { ...spec.env, ...sandboxEnv(backend.name, rules) };
      if (rules.tmp.kind === "private") {
        childEnv.TMPDIR = rules.tmp.source;
      } else if (rules.tmp.kind === "empty") {
        delete childEnv.TMPDIR;
      }
      return {
        argv: [probed.helper, ...helperArgs, ...command],
        cwd: spec.cwd,
        env: childEnv,
        extraFds: [...spec.extraFds, filter],
        ...(reportFd === null ? {} : { reportFd }),
      };
    },
  };
  return backend;
}
