import { closeSync, constants, mkdirSync, openSync, realpathSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { DEFAULT_ENV_EXCLUDES, type EnvPolicy } from "@conch/exec-core";
import type { SandboxWorkspaceOptions } from "@conch/sandbox-core";
import { boundWorkspaceTmp } from "@conch/sandbox-linux";
import type { ConfigSandboxMode } from "./config/config-values.js";
import { type ConchConfig, conchConfigDir } from "./config/load-config.js";
import { sha256Hex } from "./runtime/sha256.js";
import { conchStateDir } from "./runtime/state-dir.js";

/**
 * The name of a workspace's own directories under Conch's state dir: the cwd's base name (for a person
 * reading the dir) and a hash of its real path (so two projects never share one).
 */
function workspaceId(cwd: string): string {
  let real = cwd;
  try {
    real = realpathSync(cwd);
  } catch {
    // A cwd that does not exist fails later, where it is checked; the name only needs to be stable.
  }
  const name =
    basename(real)
      .replace(/[^A-Za-z0-9._-]+/g, "_")
      .slice(0, 32) || "root";
  return `${name}-${sha256Hex(real).slice(0, 12)}`;
}

/** Makes `path` an existing regular file of ours (0600), never following a symlink planted there. */
function createPrivateFile(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  closeSync(
    openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND | constants.O_NOFOLLOW, 0o600),
  );
}

/**
 * Where the shell snapshots go: under the state dir, readable inside the sandbox; one dir per env policy,
 * so a workspace whose policy drops more variables never sees a snapshot made under a looser one.
 */
export function snapshotDir(stateDir: string, policy: EnvPolicy): string {
  const key = sha256Hex(JSON.stringify(policy)).slice(0, 12);
  return join(stateDir, "snapshots", key);
}

/** How each command's environment is built from the config: the env policy exec-core applies. */
export function conchEnvPolicy(config: ConchConfig): EnvPolicy {
  return {
    inherit: config.envInherit,
    exclude: [...DEFAULT_ENV_EXCLUDES, ...config.envExclude],
    allow: [...config.envAllow],
  };
}

/** How Conch sandboxes the commands of one workspace, and where that workspace's spill files go. */
export interface ConchSandboxWorkspace {
  readonly options: Omit<SandboxWorkspaceOptions, "cwd">;
  readonly spillDir: string;
  /** Why the workspace's /tmp is not bounded by `tmp_mb` although it is set; null when it is, or unset. */
  readonly tmpUnbounded: string | null;
}

/**
 * The sandbox of the workspace at `cwd` under `config`: a private /tmp and a spill dir of its own under
 * the state dir; Conch's config, rules, state and audit log unreadable to sandboxed commands (this
 * workspace's spill files excepted: the model text tells the model to read them) and read-only where a
 * writable root holds them (a workspace at $HOME). Unless `mode` runs no sandbox, those files are made
 * now when missing, so a sandboxed command cannot be the one to create them (a rules file it planted,
 * or a symlink where the audit log will be appended).
 */
export function conchSandboxWorkspace(
  config: ConchConfig,
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
  mode: ConfigSandboxMode,
): ConchSandboxWorkspace {
  const stateDir = conchStateDir({ env });
  const id = workspaceId(cwd);
  const snapshots = snapshotDir(stateDir, conchEnvPolicy(config));
  const ownDirs = [conchConfigDir({ env }), stateDir, snapshots, ...config.rulesDirs];
  const own = [...ownDirs, ...(config.auditLog === null ? [] : [config.auditLog])];
  if (mode !== "danger-full-access") {
    for (const dir of ownDirs) mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (config.auditLog !== null) createPrivateFile(config.auditLog);
  }
  const spillDir = join(stateDir, "spill", id);
  const tmpDir = join(stateDir, "tmp", id);
  // tmp_mb: as root, the workspace's /tmp becomes a tmpfs of that size, mounted before the sandbox holds
  // the directory by identity (a mount after would change it under the session).
  let tmpUnbounded: string | null = null;
  const tmpMb = config.limits.tmpMb;
  if (mode === "workspace-write" && tmpMb !== undefined && process.platform === "linux") {
    mkdirSync(tmpDir, { recursive: true, mode: 0o700 });
    tmpUnbounded = boundWorkspaceTmp(tmpDir, tmpMb);
  }
  return {
    spillDir,
    tmpUnbounded,
    options: {
      env: { ...env },
      tmpDir,
      denyRead: [...own, ...config.denyRead],
      // Readable: this workspace's spill files (the model text tells the model to read them) and the shell
      // snapshots (every login-shell command sources one).
      allowRead: [spillDir, snapshots, ...config.allowRead],
      protect: own,
      allowHomeRoot: config.homeWorkspace,
    },
  };
}
