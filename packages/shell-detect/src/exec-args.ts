import { unsupportedShellError } from "./errors.js";
import type { Shell } from "./shell-type.js";

export interface DeriveExecArgsOptions {
  /** Run as a login shell, so the user's profile (PATH, version managers, aliases) is loaded. */
  readonly login: boolean;
}

/** The argv that runs `script` in `shell`: spawn `file` with the rest as arguments. */
export function deriveExecArgs(
  shell: Shell,
  script: string,
  options: DeriveExecArgsOptions,
): [file: string, ...args: string[]] {
  const { login } = options;
  switch (shell.type) {
    case "bash":
    case "zsh":
    case "sh":
    case "dash":
      return [shell.path, login ? "-lc" : "-c", script];
    case "fish":
      return [shell.path, ...(login ? ["-l"] : []), "-c", script];
    case "pwsh":
    case "powershell":
      // PowerShell has no login mode: loading the profile is its equivalent, and the default.
      return [shell.path, ...(login ? [] : ["-NoProfile"]), "-Command", script];
    case "cmd":
      // cmd re-parses its own command line, so spawners must pass this with windowsVerbatimArguments.
      return [shell.path, "/c", script];
    default:
      // Reachable only from untyped callers; an argv for the wrong shell would run something else.
      throw unsupportedShellError(String((shell as { readonly type: unknown }).type));
  }
}
