import { deriveExecArgs, type Shell } from "@conch/shell-detect";
import type { CommandRequest } from "../orchestrator/types.js";

/**
 * The fields of a request that runs `script` in `shell`: its argv (a login shell unless `login` is
 * false) and, for a login shell, the shell itself, so the orchestrator can run it with its snapshot.
 */
export function shellScriptRequest(
  shell: Shell,
  script: string,
  login: boolean,
): Pick<CommandRequest, "argv" | "script" | "loginShell"> {
  return {
    argv: deriveExecArgs(shell, script, { login }),
    script,
    ...(login ? { loginShell: shell } : {}),
  };
}
