import { receivedValue } from "@conch/protocol";
import { SandboxError } from "../errors.js";
import {
  createSandboxWorkspace,
  type SandboxWorkspace,
  type SandboxWorkspaceOptions,
} from "../policy/resolve-policy.js";
import { validatePolicy, validateResolveOptions } from "../policy/validate-policy.js";
import type { ProcessHost, SandboxBackend, SandboxPolicy, SandboxRules, SpawnSpec } from "../types.js";
import type { SandboxRegistry } from "./registry.js";

/** How `prepareSandbox` resolves the policy besides the cwd (see `SandboxWorkspaceOptions`). */
export interface PrepareSandboxOptions extends Omit<SandboxWorkspaceOptions, "cwd"> {
  /** Whose backend is selected; `process.platform` by default. */
  readonly platform?: NodeJS.Platform;
}

/** What `PreparedSandbox.spawnHook` takes for one command. */
export interface SpawnHookOptions {
  /** A PTY session: the backend keeps the controlling terminal (bwrap without `--new-session`). */
  readonly tty?: boolean;
  /** Rules other than the workspace's (a narrower sandbox for one helper); `workspace.rules()` by default. */
  readonly rules?: SandboxRules;
  /** A one-shot command: what it leaves running is named on the spec's `reportFd`, where the backend can. */
  readonly reportLeftovers?: boolean;
  /** The loopback port of the command's own proxy endpoint (`LocalSandboxBackend.transform`). */
  readonly proxyPort?: number;
}

/** A sandbox checked to work here, for one session: what every spawn under its policy needs. */
export interface PreparedSandbox {
  /** The backend's name (`CONCH_SANDBOX` in the child), or `none` when the policy runs no sandbox. */
  readonly name: string;
  /** Null for danger-full-access and external-sandbox, whose commands run as they are. */
  readonly backend: SandboxBackend | null;
  /** Where commands run when the backend is remote (`backend.host`); null for a local one or none. */
  readonly host: ProcessHost | null;
  /** The policy resolved against the session's cwd, its writable roots held by identity. */
  readonly workspace: SandboxWorkspace;
  /**
   * The `prepare` hook of exec-core's `run` and unified-exec's sessions for one command: it rewrites the
   * spec to run under the rules found now (protected and hidden paths afresh; a writable root that moved
   * throws `WRITABLE_ROOT_CHANGED` here, before anything spawns). Null when the policy runs no sandbox.
   * For a remote backend the hook rejects with `SANDBOX_UNAVAILABLE`: its commands start through `host`,
   * never as a spawn here, so a caller that only spawns locally runs nothing.
   */
  spawnHook(options?: SpawnHookOptions): ((spec: SpawnSpec) => Promise<SpawnSpec>) | null;
}

function checkRegistry(registry: unknown): asserts registry is SandboxRegistry {
  const record = registry as Record<string, unknown> | null;
  if (typeof registry !== "object" || record === null || typeof record.candidates !== "function") {
    throw new SandboxError(
      "INVALID_SANDBOX_BACKEND",
      `invalid sandbox registry: expected one from createSandboxRegistry, received ${receivedValue(registry)}`,
    );
  }
}

/**
 * The one way to a sandbox: validates `policy` and the options, selects `registry`'s backend for the
 * platform, checks that it works here, then resolves the policy against the session's `cwd` (once: the
 * writable roots are held by identity from now on). Fails closed: no backend for the platform, or one
 * that cannot run here (bwrap missing, no user namespaces), throws `SANDBOX_UNAVAILABLE` with the
 * backend's reason and fix, before anything is created; it never falls back to running unsandboxed.
 */
export async function prepareSandbox(
  policy: SandboxPolicy,
  cwd: string,
  registry: SandboxRegistry,
  options: PrepareSandboxOptions = {},
): Promise<PreparedSandbox> {
  validatePolicy(policy);
  const { platform, ...workspaceOptions } = options;
  validateResolveOptions({ ...workspaceOptions, cwd });
  checkRegistry(registry);
  const backend = await firstAvailable(registry.candidates(policy, platform));
  const workspace = createSandboxWorkspace(policy, { ...workspaceOptions, cwd });
  return {
    name: backend?.name ?? "none",
    backend,
    host: backend?.host ?? null,
    workspace,
    spawnHook(hookOptions = {}) {
      if (backend === null) return null;
      if (backend.host !== undefined) {
        const name = backend.name;
        return () =>
          Promise.reject(
            new SandboxError(
              "SANDBOX_UNAVAILABLE",
              `the sandbox ${name} starts commands on another machine, and this caller starts them only on this one: nothing ran`,
            ),
          );
      }
      const rules = hookOptions.rules ?? workspace.rules();
      const tty = hookOptions.tty === true;
      const reportLeftovers = hookOptions.reportLeftovers === true && !tty;
      const { proxyPort } = hookOptions;
      return (spec) =>
        backend.transform(spec, rules, {
          tty,
          ...(reportLeftovers ? { reportLeftovers } : {}),
          ...(proxyPort === undefined ? {} : { proxyPort }),
        });
    },
  };
}

/**
 * The first of `candidates` that can run here (null when the policy needs none); when none can, throws
 * `SANDBOX_UNAVAILABLE` with each one's reason and fix, most preferred first.
 */
async function firstAvailable(candidates: readonly SandboxBackend[]): Promise<SandboxBackend | null> {
  if (candidates.length === 0) return null;
  const refusals: string[] = [];
  for (const backend of candidates) {
    const availability = await backend.available();
    if (availability.available) return backend;
    refusals.push(`(${backend.name}) cannot run here: ${availability.reason}; fix: ${availability.fix}`);
  }
  throw new SandboxError(
    "SANDBOX_UNAVAILABLE",
    refusals.length === 1 ? `the sandbox ${refusals[0]}` : `no sandbox can run here: ${refusals.join("; ")}`,
  );
}
