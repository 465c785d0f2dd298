// What every git started by a command that an allow rule runs outside the sandbox (`sandbox = "none"`)
// is told: run no hook, no fsmonitor, no `ext::` transport. Nobody looked at that command's repository:
// the agent may have made it (`git init` in the workspace, a nested repository), or made its hooks (a
// husky hook is a tracked file). A person's own yes to a command is not changed.
import type { EnvPolicy } from "@conch/exec-core";

/**
 * Config given through the environment: the command scope, which wins over every config file, and
 * reaches every git the command starts, whatever its directory, `-C` or nesting. Given twice, as
 * `GIT_CONFIG_COUNT`/`KEY_n`/`VALUE_n` (git ≥ 2.31) and as `GIT_CONFIG_PARAMETERS` (what `git -c` passes
 * to the gits it starts, read by every version). `/dev/null` as the hooks dir holds no hook.
 */
const HOST_GIT_GUARD: readonly (readonly [key: string, value: string])[] = [
  ["core.hooksPath", "/dev/null"],
  ["core.fsmonitor", "false"],
  ["protocol.ext.allow", "never"],
];

/**
 * `env` with the guard appended after what the environment already gives (the person's own
 * `GIT_CONFIG_COUNT` pairs and `GIT_CONFIG_PARAMETERS`, inherited or set), so both hold.
 */
export function withHostGitGuard(
  env: EnvPolicy | undefined,
  inherited: Readonly<Record<string, string | undefined>> = process.env,
  repository?: { readonly gitDir: string; readonly top: string | null },
): EnvPolicy {
  const given = env?.set?.GIT_CONFIG_COUNT ?? inherited.GIT_CONFIG_COUNT;
  const parsed = given === undefined ? 0 : Number(given);
  const first = Number.isInteger(parsed) && parsed > 0 ? parsed : 0;
  const set: Record<string, string> = { ...env?.set };
  HOST_GIT_GUARD.forEach(([key, value], index) => {
    set[`GIT_CONFIG_KEY_${first + index}`] = key;
    set[`GIT_CONFIG_VALUE_${first + index}`] = value;
  });
  set.GIT_CONFIG_COUNT = String(first + HOST_GIT_GUARD.length);
  const parameters = env?.set?.GIT_CONFIG_PARAMETERS ?? inherited.GIT_CONFIG_PARAMETERS ?? "";
  set.GIT_CONFIG_PARAMETERS = [
    ...(parameters.trim() === "" ? [] : [parameters.trim()]),
    ...HOST_GIT_GUARD.map(([key, value]) => `'${key}=${value}'`),
  ].join(" ");
  // The repository that was checked, not one a `.git` that appears meanwhile would make git open.
  if (repository !== undefined) {
    set.GIT_DIR = repository.gitDir;
    if (repository.top !== null) set.GIT_WORK_TREE = repository.top;
  }
  return { ...env, set };
}
