// What bench workers start from: a scratch directory with a workspace, an empty home that holds
// Conch's config and state, and the environment that points there; and a runtime built in it as
// `conch` builds one.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A fresh scratch directory under the system's temporary directory, named `prefix` and a suffix. */
export function scratch(prefix) {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const cwd = join(root, "work");
  const home = join(root, "home");
  mkdirSync(cwd);
  mkdirSync(home);
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_STATE_HOME: join(home, ".state"),
    LANG: "C.UTF-8",
  };
  return { root, cwd, home, env };
}

/**
 * A runtime in `dir` (from `scratch`) with `config` as the user's config.toml, on-request and
 * workspace-write. Commands inherit this process's environment, so its HOME becomes the scratch home.
 */
export async function scratchRuntime(dir, config) {
  const { createRuntime } = await import("@conch/orchestrator");
  mkdirSync(join(dir.env.XDG_CONFIG_HOME, "conch"), { recursive: true });
  writeFileSync(join(dir.env.XDG_CONFIG_HOME, "conch", "config.toml"), config);
  process.env.HOME = dir.home;
  return createRuntime({
    cwd: dir.cwd,
    env: {
      ...process.env,
      HOME: dir.home,
      XDG_CONFIG_HOME: dir.env.XDG_CONFIG_HOME,
      XDG_STATE_HOME: dir.env.XDG_STATE_HOME,
    },
    approvalPolicy: "on-request",
    sandbox: "workspace-write",
  });
}
