import { lstatSync, mkdirSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type Availability,
  type SandboxBackend,
  SandboxError,
  type SandboxRules,
  type SpawnSpec,
  sandboxEnv,
} from "@conch/sandbox-core";
import { buildSeccompFilter, seccompArchOf } from "../seccomp/filter.js";
import { type BwrapProbe, findBwrap, probeBwrap } from "./availability.js";
import { bwrapArgs } from "./bwrap-args.js";

let emptyDir: string | undefined;

/**
 * An empty directory owned by this user, mounted read-only over protected paths that do not exist. One
 * per user and machine, reused across runs; a directory of that name that is not ours or not empty is
 * never used (another one is made instead).
 */
function sharedEmptyDir(): string {
  if (emptyDir !== undefined) return emptyDir;
  const uid = process.getuid?.() ?? 0;
  const stable = join(tmpdir(), `conch-empty-${uid}`);
  try {
    mkdirSync(stable, { mode: 0o555 });
  } catch {
    // Already there: checked below.
  }
  const info = lstatSync(stable, { throwIfNoEntry: false });
  const usable = info?.isDirectory() === true && info.uid === uid && readdirSync(stable).length === 0;
  emptyDir = usable ? stable : join(mkdtempSync(join(tmpdir(), "conch-empty-")), "empty");
  if (!usable) mkdirSync(emptyDir, { mode: 0o555 });
  return emptyDir;
}

/**
 * The Linux backend: bubblewrap namespaces and a seccomp filter. `available()` probes once and caches;
 * `transform()` refuses (SANDBOX_UNAVAILABLE, with the reason and the fix) when bwrap cannot sandbox, so
 * a command never silently runs unsandboxed.
 */
export function createLinuxBackend(
  options: { env?: Record<string, string | undefined> } = {},
): SandboxBackend {
  const env = options.env ?? process.env;
  let probe: Promise<BwrapProbe> | undefined;
  const bwrapFor = (untrusted: readonly string[]): string | null => findBwrap(env, untrusted);
  const backend: SandboxBackend = {
    name: "bwrap",
    platform: "linux",
    available(): Promise<Availability> {
      try {
        seccompArchOf(process.arch);
      } catch (error) {
        return Promise.resolve({
          available: false,
          reason: (error as Error).message,
          fix: "run Conch on x86_64 or aarch64 Linux; the seccomp filter has no syscall table for this one",
        });
      }
      probe ??= probeBwrap(bwrapFor([]));
      return probe.then((result) => result.availability);
    },
    async transform(spec: SpawnSpec, rules: SandboxRules, transformOptions = {}): Promise<SpawnSpec> {
      const availability = await backend.available();
      if (!availability.available) {
        throw new SandboxError(
          "SANDBOX_UNAVAILABLE",
          `cannot sandbox: ${availability.reason}; fix: ${availability.fix}`,
        );
      }
      const bwrap = bwrapFor(rules.writableRoots.map((root) => root.root));
      if (bwrap === null) {
        throw new SandboxError("SANDBOX_UNAVAILABLE", "cannot sandbox: no bwrap outside the writable roots");
      }
      const filter = buildSeccompFilter({ arch: seccompArchOf(process.arch), network: rules.network });
      const args = bwrapArgs(rules, {
        cwd: spec.cwd,
        tty: transformOptions.tty === true,
        seccompFd: 3 + spec.extraFds.length,
        emptyDir: sharedEmptyDir(),
        disableUserns: (await probe)?.disableUserns === true,
      });
      return {
        argv: [bwrap, ...args, ...spec.argv],
        cwd: spec.cwd,
        env: { ...spec.env, ...sandboxEnv(backend.name, rules) },
        extraFds: [...spec.extraFds, filter],
      };
    },
  };
  return backend;
}
