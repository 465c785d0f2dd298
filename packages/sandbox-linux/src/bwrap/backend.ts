import { mkdirSync, mkdtempSync } from "node:fs";
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
import { findBwrap, probeBwrap } from "./availability.js";
import { bwrapArgs } from "./bwrap-args.js";

let emptyDir: string | undefined;

/** An empty directory owned by this process, mounted read-only over protected paths that do not exist. */
function sharedEmptyDir(): string {
  if (emptyDir === undefined) {
    emptyDir = join(mkdtempSync(join(tmpdir(), "conch-empty-")), "empty");
    mkdirSync(emptyDir, { mode: 0o555 });
  }
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
  let probe: Promise<Availability> | undefined;
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
      return probe;
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
