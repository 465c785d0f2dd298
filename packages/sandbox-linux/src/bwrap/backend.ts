import { isAbsolute } from "node:path";
import { expectedReceived } from "@conch/protocol";
import {
  type Availability,
  type LocalSandboxBackend,
  SandboxError,
  type SandboxRules,
  type SpawnSpec,
  sandboxEnv,
} from "@conch/sandbox-core";
import { helperPath } from "../helper/helper.js";
import { runCapture } from "../helper/run-capture.js";
import { limitArgs, makeCommandCgroups, type ResourceLimits, tmpBound } from "../limits/limits.js";
import { buildSeccompFilter, seccompArchOf } from "../seccomp/filter.js";
import { type BwrapProbe, probeBwrap } from "./availability.js";
import { bwrapArgs } from "./bwrap-args.js";
import { DEVICE_DIR, privateDeviceNodes } from "./device-nodes.js";
import { withInheritedFdsClosed } from "./fd-closer.js";
import { findProgram } from "./find-program.js";
import { checkRulesAndPrograms, programFault } from "./paths.js";
import { hiddenFilePlaceholder } from "./placeholder.js";
import { probeKey, readCachedProbe, writeCachedProbe } from "./probe-cache.js";
import { readProcSurface } from "./proc-entries.js";
import { SharedNetwork } from "./shared-network.js";

export interface LinuxBackendOptions {
  /** Where PATH is read from when no system bwrap or bash exists; defaults to `process.env`. */
  env?: Record<string, string | undefined>;
  /**
   * Absolute path of the bubblewrap to run instead of the system one (e.g. a build newer than the
   * distribution's). It is probed like the system one.
   */
  bwrap?: string;
  /**
   * Absolute path of a file (in a directory only this user writes, such as Conch's state directory)
   * where a successful probe is kept for the next process, so that it need not probe again while the
   * programs, the kernel and the user-namespace sysctls stay the same (at most a day). Without it, every
   * backend probes once.
   */
  probeCache?: string;
  /**
   * Whether commands without the host's network share one network namespace, kept by a holder process
   * of this backend (`SharedNetwork`), and `listenInside` opens listeners there; default true. False:
   * each such command gets a namespace of its own (one command per process, nothing to share).
   */
  sharedNetwork?: boolean;
  /**
   * What each command may consume (config `limits`): memory, processes and CPU in a cgroup of its own
   * where one can be made, the largest file through RLIMIT_FSIZE. Absent: nothing is limited.
   */
  limits?: ResourceLimits;
}

function normalizeOptions(options: LinuxBackendOptions): LinuxBackendOptions {
  const { env, bwrap, probeCache, sharedNetwork, limits } = Object.assign(
    Object.create(null) as object,
    options,
  ) as LinuxBackendOptions;
  if (env !== undefined && (typeof env !== "object" || env === null)) {
    throw new SandboxError(
      "INVALID_SANDBOX_BACKEND",
      `invalid options: ${expectedReceived("env", "an object", env)}`,
    );
  }
  if (bwrap !== undefined && (typeof bwrap !== "string" || !isAbsolute(bwrap))) {
    throw new SandboxError(
      "INVALID_SANDBOX_BACKEND",
      `invalid options: ${expectedReceived("bwrap", "an absolute path", bwrap)}`,
    );
  }
  if (probeCache !== undefined && (typeof probeCache !== "string" || !isAbsolute(probeCache))) {
    throw new SandboxError(
      "INVALID_SANDBOX_BACKEND",
      `invalid options: ${expectedReceived("probeCache", "an absolute path", probeCache)}`,
    );
  }
  if (sharedNetwork !== undefined && typeof sharedNetwork !== "boolean") {
    throw new SandboxError(
      "INVALID_SANDBOX_BACKEND",
      `invalid options: ${expectedReceived("sharedNetwork", "a boolean", sharedNetwork)}`,
    );
  }
  return {
    ...(env === undefined ? {} : { env }),
    ...(bwrap === undefined ? {} : { bwrap }),
    ...(probeCache === undefined ? {} : { probeCache }),
    ...(sharedNetwork === undefined ? {} : { sharedNetwork }),
    ...(limits === undefined ? {} : { limits }),
  };
}

/**
 * The helper that names a one-shot's leftovers, when this package has a checked one for this machine
 * that the sandbox can see and the command cannot replace; else null (nothing is named then).
 */
function reaperHelper(rules: SandboxRules): string | null {
  const found = helperPath();
  if (!("path" in found)) return null;
  return programFault(rules, found.path, true) === null ? found.path : null;
}

/**
 * The helper in front of bwrap that applies `limits` (and reports what was reached on `reportFd`), or
 * nothing when no limit is set or none can be applied here (no helper: `describeLimits` says so).
 */
function limiterArgs(
  limits: ResourceLimits | undefined,
  report: { readonly fd: number; readonly own: boolean; readonly tmp: string | null } | null,
  keepFds: number,
): string[] {
  if (limits === undefined) return [];
  const found = helperPath();
  if (!("path" in found)) return [];
  // Throws (SANDBOX_UNAVAILABLE) where the limits should hold but the group cannot be made.
  const args = limitArgs(limits, makeCommandCgroups(limits));
  if (args.length === 0) return [];
  return [
    found.path,
    "--no-landlock",
    // The caller's descriptors and bwrap's seccomp one go on to bwrap; whatever else was inherited stops here.
    "--keep-fds",
    String(keepFds),
    ...args,
    ...(report === null ? [] : ["--report-limits", String(report.fd)]),
    // A session's limiter reports alone (no helper inside bwrap shares the descriptor), and sees the
    // workspace's /tmp where the host has it.
    ...(report?.own === true ? ["--limits-private"] : []),
    ...(report?.own === true && report.tmp !== null && limits.tmpMb !== undefined
      ? ["--tmp-limit", report.tmp]
      : []),
    "--",
  ];
}

/** Whether the command's /tmp is bounded by `tmp_mb` (a fresh tmpfs, or the workspace's mounted one). */
function tmpBounded(rules: SandboxRules, limits: ResourceLimits | undefined): boolean {
  const tmpMb = limits?.tmpMb;
  if (tmpMb === undefined) return false;
  return rules.tmp.kind === "empty" || (rules.tmp.kind === "private" && tmpBound(rules.tmp.source, tmpMb));
}

/** The launchers a root caller's bwrap may start from, in the order they are tried. */
function rootLaunchers(unshare: string): string[][] {
  return [["--mount"], ["--user", "--map-root-user", "--mount"]].map((namespaces) => [
    unshare,
    ...namespaces,
    "--propagation",
    "private",
    "--",
  ]);
}

/** Where and under which key a probe of these programs is cached, and what a cached one must say. */
function cacheFor(
  file: string | undefined,
  bwrap: string | null,
  shell: string | null,
  env: Record<string, string | undefined>,
): { file: string; key: string; expected: Parameters<typeof readCachedProbe>[2] } | null {
  if (file === undefined || bwrap === null || shell === null) return null;
  const root = process.getuid?.() === 0;
  const unshare = root ? findProgram("unshare", env) : null;
  if (root && unshare === null) return null;
  return {
    file,
    key: probeKey({ bwrap, shell, unshare }),
    expected: { bwrap, shell, launchers: unshare === null ? [[]] : rootLaunchers(unshare) },
  };
}

type Probe =
  | Extract<BwrapProbe, { available: false }>
  | (Extract<BwrapProbe, { available: true }> & { readonly launcher: readonly string[] });

/**
 * What starts bwrap. bwrap makes the host's mounts slaves of the host's: a file system the host mounts
 * while a command runs (an automount the command itself triggers, systemd's /boot, /efi or binfmt_misc)
 * arrives in the sandbox as the host mounted it, writable. For a root caller, whose sandbox writes what
 * root may, bwrap starts in a mount namespace of its own whose mounts are private, so nothing arrives;
 * `unshare` execs bwrap, which stays the process Conch started. Without CAP_SYS_ADMIN (root in a
 * container) the namespace needs a user namespace of its own, mapping root to root, as bwrap's do. Another
 * user cannot make one without a user namespace, and a mount that arrives there is written only as that
 * user may.
 */
async function launcher(env: Record<string, string | undefined>): Promise<Probe | readonly string[]> {
  if (process.getuid?.() !== 0) return [];
  const fix =
    "install util-linux (`apt-get install util-linux`, `dnf install util-linux`, `pacman -S util-linux`, `apk add util-linux`), whose unshare must be able to make a mount namespace";
  const unshare = findProgram("unshare", env);
  if (unshare === null) {
    return {
      available: false,
      reason:
        "unshare (util-linux) is not installed; as root the sandbox starts in a mount namespace of its own, so that mounts the host makes later stay out",
      fix,
    };
  }
  const outputs: string[] = [];
  for (const start of rootLaunchers(unshare)) {
    const tried = await runCapture(unshare, [...start.slice(1), "true"]);
    if (tried.code === 0) return start;
    outputs.push(tried.output.trim() || `exit code ${tried.code}`);
  }
  return {
    available: false,
    reason: `${unshare} cannot make the mount namespace a root caller's sandbox starts in: ${outputs.join("; ")}`,
    fix,
    namespaces: true,
  };
}

/**
 * The Linux backend: bubblewrap namespaces and a seccomp filter. `available()` probes once and caches;
 * `transform()` refuses (SANDBOX_UNAVAILABLE, with the reason and the fix) when bwrap cannot sandbox, so
 * a command never silently runs unsandboxed.
 */
export function createLinuxBackend(options: LinuxBackendOptions = {}): LocalSandboxBackend {
  const checked = normalizeOptions(options);
  const env = checked.env ?? process.env;
  let probe: Promise<Probe> | undefined;
  const probeOnce = (): Promise<Probe> => {
    probe ??= (async (): Promise<Probe> => {
      try {
        seccompArchOf(process.arch);
      } catch (error) {
        return {
          available: false,
          reason: (error as Error).message,
          fix: "run Conch on x86_64 or aarch64 Linux; the seccomp filter has no syscall table for this one",
        };
      }
      const bwrap = checked.bwrap ?? findProgram("bwrap", env);
      const shell = findProgram("bash", env);
      const cache = cacheFor(checked.probeCache, bwrap, shell, env);
      if (cache !== null) {
        const cached = readCachedProbe(cache.file, cache.key, cache.expected);
        if (cached !== null) return { available: true, ...cached };
      }
      const probed = await probeBwrap(bwrap, shell);
      if (!probed.available) return probed;
      const start = await launcher(env);
      if ("available" in start) return start;
      if (cache !== null) writeCachedProbe(cache.file, cache.key, { ...probed, launcher: start });
      return { ...probed, launcher: start };
    })();
    return probe;
  };
  // The namespace the commands share when the network is not the host's, made on first use.
  let shared: Promise<SharedNetwork> | undefined;
  const sharedNetwork = (): Promise<SharedNetwork> => {
    shared ??= SharedNetwork.start(env).catch((error: unknown) => {
      shared = undefined;
      throw error;
    });
    return shared;
  };
  const backend: LocalSandboxBackend = {
    name: "bwrap",
    platform: "linux",
    async available(): Promise<Availability & { readonly namespaces?: boolean }> {
      const probed = await probeOnce();
      return probed.available ? { available: true } : probed;
    },
    async transform(spec: SpawnSpec, rules: SandboxRules, transformOptions = {}): Promise<SpawnSpec> {
      const probed = await probeOnce();
      if (!probed.available) {
        throw new SandboxError("SANDBOX_UNAVAILABLE", `cannot sandbox: ${probed.reason}; fix: ${probed.fix}`);
      }
      const network = rules.network || checked.sharedNetwork === false ? null : await sharedNetwork();
      const enter = network === null ? [] : network.enter();
      checkRulesAndPrograms(rules, "bwrap", {
        outside: [probed.bwrap, ...probed.launcher.slice(0, 1), ...enter.slice(0, 1)],
        inside: [probed.shell],
      });
      const root = process.getuid?.() === 0;
      const filter = buildSeccompFilter({
        arch: seccompArchOf(process.arch),
        network: rules.network,
        fileLimit: checked.limits?.fileMb !== undefined,
        // The sandbox's uid is the caller's on the host (root's too): a setuid file it made would raise
        // whoever runs it later to that uid.
        hostFiles: true,
      });
      const reportFd = 3 + spec.extraFds.length + 1;
      const helper = transformOptions.reportLeftovers === true ? reaperHelper(rules) : null;
      const args = bwrapArgs(rules, {
        cwd: spec.cwd,
        tty: transformOptions.tty === true,
        seccompFd: 3 + spec.extraFds.length,
        placeholder: hiddenFilePlaceholder(),
        proc: readProcSurface(),
        devices: privateDeviceNodes(),
        ...(helper === null ? {} : { asPid1: true }),
        ...(checked.limits?.tmpMb === undefined ? {} : { tmpBytes: checked.limits.tmpMb * 1024 * 1024 }),
        deviceDir: DEVICE_DIR,
        ...(network === null ? {} : { sharedNetwork: true }),
        ...(network === null || root
          ? {}
          : { identity: { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 } }),
      });
      // bwrap closes the seccomp descriptor once read; the caller's own extra descriptors stay.
      const command = withInheritedFdsClosed(probed.shell, 2 + spec.extraFds.length, spec.argv, {
        tty: transformOptions.tty === true,
      });
      // A one-shot's leftovers die with bwrap's pid namespace before anyone outside could count them: the
      // helper, inside, stops and names them first (where this package has one for this machine).
      // The helper keeps the caller's own extra descriptors for the command, and its report; it closes
      // the rest (bwrap has read and closed the seccomp one).
      const keep = String(2 + spec.extraFds.length);
      const reaper =
        helper === null
          ? []
          : [
              helper,
              "--no-landlock",
              "--keep-fds",
              keep,
              "--report",
              String(reportFd),
              // Inside, /tmp is bounded: read-only mode's fresh tmpfs, or the workspace's when it was mounted.
              ...(tmpBounded(rules, checked.limits) ? ["--tmp-limit", "/tmp"] : []),
              "--",
            ];
      // Limits: the helper outside bwrap (cgroups cannot be joined from inside, where /sys is read-only)
      // joins the command's groups and sets the rlimits before bwrap starts, and says what was reached.
      // A one-shot's reaper inside shares the report; a session has the limiter's alone.
      const limiter = limiterArgs(
        checked.limits,
        {
          fd: reportFd,
          own: helper === null,
          tmp: rules.tmp.kind === "private" && tmpBounded(rules, checked.limits) ? rules.tmp.source : null,
        },
        3 + spec.extraFds.length,
      );
      const reports = helper !== null || limiter.length > 0;
      return {
        argv: [...limiter, ...enter, ...probed.launcher, probed.bwrap, ...args, ...reaper, ...command],
        cwd: spec.cwd,
        env: { ...spec.env, ...sandboxEnv(backend.name, rules) },
        extraFds: [...spec.extraFds, filter],
        ...(reports ? { reportFd } : {}),
      };
    },
  };
  if (checked.sharedNetwork !== false) {
    backend.listenInside = async () => (await sharedNetwork()).listen();
  }
  return backend;
}
