import { existsSync, mkdirSync, mkdtempSync, realpathSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SandboxError } from "../errors.js";
import type { Availability, SandboxBackend, SandboxRules, SpawnSpec } from "../types.js";
import { prepareSandbox } from "./prepare-sandbox.js";
import { createSandboxRegistry } from "./registry.js";

interface Transform {
  readonly spec: SpawnSpec;
  readonly rules: SandboxRules;
  readonly options: { tty?: boolean } | undefined;
}

/** A backend that records what it is asked: the registry and prepareSandbox are what is tested here. */
function recording(availability: Availability): {
  backend: SandboxBackend;
  probes: number[];
  seen: Transform[];
} {
  const probes: number[] = [];
  const seen: Transform[] = [];
  const backend: SandboxBackend = {
    name: "rec",
    platform: process.platform,
    available: async () => {
      probes.push(1);
      return availability;
    },
    transform: async (spec, rules, options) => {
      seen.push({ spec, rules, options });
      return { ...spec, argv: ["wrapped", ...spec.argv] };
    },
  };
  return { backend, probes, seen };
}

async function errorOf(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(SandboxError);
    const { code, message } = error as SandboxError;
    return { code, message };
  }
  throw new Error("expected a SandboxError");
}

const spec: SpawnSpec = { argv: ["true"], cwd: "/", env: {}, extraFds: [] };
let dir: string;
let cwd: string;

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "conch-prepare-")));
  cwd = join(dir, "work");
  mkdirSync(cwd);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("prepareSandbox", () => {
  it("selects and checks the backend, resolves the policy against the cwd, and wraps each spawn", async () => {
    const { backend, probes, seen } = recording({ available: true });
    const sandbox = await prepareSandbox(
      { mode: "workspace-write", networkAccess: true },
      cwd,
      createSandboxRegistry([backend]),
      { tmpDir: join(dir, "tmp"), env: { HOME: join(dir, "home") } },
    );
    expect([sandbox.name, sandbox.backend, sandbox.workspace.mode, sandbox.workspace.cwd]).toEqual([
      "rec",
      backend,
      "workspace-write",
      cwd,
    ]);
    expect(probes).toEqual([1]);
    const hook = sandbox.spawnHook({ tty: true });
    expect(await hook?.(spec)).toEqual({ ...spec, argv: ["wrapped", "true"] });
    expect(seen).toHaveLength(1);
    expect(seen[0]?.options).toEqual({ tty: true });
    expect(seen[0]?.rules).toMatchObject({
      mode: "workspace-write",
      writableRoots: [{ root: cwd, readOnlySubpaths: [] }],
      tmp: { kind: "private", source: join(dir, "tmp") },
      network: true,
    });

    const narrow: SandboxRules = { ...sandbox.workspace.rules(), writableRoots: [], network: false };
    await sandbox.spawnHook({ rules: narrow })?.(spec);
    expect(seen[1]).toEqual({ spec, rules: narrow, options: { tty: false } });
  });

  it("runs no sandbox where the policy runs none, whatever the registry holds", async () => {
    for (const mode of ["danger-full-access", "external-sandbox"] as const) {
      const sandbox = await prepareSandbox({ mode }, cwd, createSandboxRegistry());
      expect([sandbox.name, sandbox.backend, sandbox.spawnHook()]).toEqual(["none", null, null]);
      expect(sandbox.workspace.rules().tmp).toEqual({ kind: "host" });
    }
  });

  it("fails closed when the backend cannot run here, before anything is made", async () => {
    const { backend } = recording({ available: false, reason: "no user namespaces", fix: "enable them" });
    const tmpDir = join(dir, "tmp");
    expect(
      await errorOf(prepareSandbox({ mode: "read-only" }, cwd, createSandboxRegistry([backend]), { tmpDir })),
    ).toEqual({
      code: "SANDBOX_UNAVAILABLE",
      message: "the sandbox (rec) cannot run here: no user namespaces; fix: enable them",
    });
    expect(existsSync(tmpDir)).toBe(false);
    expect(
      await errorOf(
        prepareSandbox({ mode: "workspace-write" }, cwd, createSandboxRegistry(), { platform: "aix" }),
      ),
    ).toEqual({
      code: "SANDBOX_UNAVAILABLE",
      message:
        "no sandbox backend for platform aix: policy workspace-write cannot be enforced here; use danger-full-access or external-sandbox to run without Conch's sandbox",
    });
  });

  it("takes the first backend that can run here, and says each one's reason when none can", async () => {
    const refused = { ...recording({ available: false, reason: "no user namespaces", fix: "enable them" }) };
    const first: SandboxBackend = { ...refused.backend, name: "first" };
    const second = recording({ available: true });
    const sandbox = await prepareSandbox(
      { mode: "read-only" },
      cwd,
      createSandboxRegistry([first, second.backend]),
    );
    expect([sandbox.name, sandbox.backend]).toEqual(["rec", second.backend]);
    expect([refused.probes.length, second.probes.length]).toEqual([1, 1]);

    const alsoRefused: SandboxBackend = {
      ...recording({ available: false, reason: "no Landlock", fix: "Linux 5.13 or later" }).backend,
      name: "landlock",
    };
    expect(
      await errorOf(prepareSandbox({ mode: "read-only" }, cwd, createSandboxRegistry([first, alsoRefused]))),
    ).toEqual({
      code: "SANDBOX_UNAVAILABLE",
      message:
        "no sandbox can run here: (first) cannot run here: no user namespaces; fix: enable them; (landlock) cannot run here: no Landlock; fix: Linux 5.13 or later",
    });
  });

  it("chooses a remote backend it prefers, says so, and starts nothing here through the spawn hook", async () => {
    const started: unknown[] = [];
    const host = {
      where: "agent t at unix:/nowhere",
      start: async (request: unknown) => {
        started.push(request);
        throw new Error("never called by prepareSandbox");
      },
      attach: async () => null,
      list: async () => [],
    };
    const remote: SandboxBackend = {
      name: "agent",
      platform: process.platform,
      available: async () => ({ available: true }),
      host,
    };
    const local = recording({ available: true });
    const sandbox = await prepareSandbox(
      { mode: "workspace-write" },
      cwd,
      createSandboxRegistry([remote, local.backend]),
    );
    expect([sandbox.name, sandbox.backend, sandbox.host]).toEqual(["agent", remote, host]);
    const hook = sandbox.spawnHook();
    expect(hook).not.toBe(null);
    expect(await errorOf((hook as (spec: SpawnSpec) => Promise<SpawnSpec>)(spec))).toEqual({
      code: "SANDBOX_UNAVAILABLE",
      message:
        "the sandbox agent starts commands on another machine, and this caller starts them only on this one: nothing ran",
    });
    expect([started, local.seen, local.probes]).toEqual([[], [], []]);
  });

  it("validates the policy, the options and the registry before probing the backend", async () => {
    const { backend, probes } = recording({ available: true });
    const registry = createSandboxRegistry([backend]);
    expect(await errorOf(prepareSandbox({ mode: "nope" } as never, cwd, registry))).toEqual({
      code: "INVALID_SANDBOX_POLICY",
      message:
        'invalid sandbox policy: mode: expected one of read-only, workspace-write, danger-full-access, external-sandbox, received "nope"',
    });
    expect(await errorOf(prepareSandbox({ mode: "read-only" }, "work", registry))).toEqual({
      code: "INVALID_SANDBOX_POLICY",
      message: 'invalid sandbox options: cwd: expected an absolute path, received "work"',
    });
    expect(await errorOf(prepareSandbox({ mode: "read-only" }, cwd, {} as never))).toEqual({
      code: "INVALID_SANDBOX_BACKEND",
      message: "invalid sandbox registry: expected one from createSandboxRegistry, received an object",
    });
    expect(probes).toEqual([]);
    expect(await errorOf(prepareSandbox({ mode: "read-only" }, join(dir, "missing"), registry))).toEqual({
      code: "CWD_NOT_FOUND",
      message: `cwd is not an existing directory: ${join(dir, "missing")}`,
    });
  });

  it("holds the session's roots: a cwd moved aside fails the next spawn, not a later one", async () => {
    const { backend, seen } = recording({ available: true });
    const sandbox = await prepareSandbox({ mode: "workspace-write" }, cwd, createSandboxRegistry([backend]));
    renameSync(cwd, join(dir, "moved"));
    mkdirSync(cwd);
    expect(() => sandbox.spawnHook()).toThrow(
      `the sandbox's writable root ${cwd} is not the directory the session started with (it is now another directory)`,
    );
    expect(seen).toEqual([]);
  });
});
