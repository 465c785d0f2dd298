import type { SandboxPermissions } from "../policies.js";

// The `codex` profile's arguments as a handler receives them: parsed, Codex's defaults filled in. What
// each field means is in the schemas' descriptions (@conch/protocol/schemas), which the model reads.

/** `shell_command`: one shell script in the user's shell, run to completion. */
export interface ShellCommandParams {
  command: string;
  workdir?: string | undefined;
  timeout_ms: number;
  login?: boolean | undefined;
  sandbox_permissions: SandboxPermissions;
  justification?: string | undefined;
  prefix_rule?: string[] | undefined;
  wait_for_approval_ms?: number | undefined;
}

/** `exec_command`: start a command and return its output, or a session id while it keeps running. */
export interface ExecCommandParams {
  cmd: string;
  workdir?: string | undefined;
  tty: boolean;
  yield_time_ms: number;
  max_output_tokens: number;
  login?: boolean | undefined;
  shell?: string | undefined;
  sandbox_permissions: SandboxPermissions;
  justification?: string | undefined;
  prefix_rule?: string[] | undefined;
  wait_for_approval_ms?: number | undefined;
}

/** `write_stdin`: write to a running exec_command session (or just poll it) and return new output. */
export interface WriteStdinParams {
  session_id: number;
  chars: string;
  yield_time_ms: number;
  max_output_tokens: number;
}

/** Legacy `shell`: an argv array run with execvp, no shell unless the array names one. */
export interface ShellParams {
  command: string[];
  workdir?: string | undefined;
  timeout_ms: number;
  sandbox_permissions: SandboxPermissions;
  justification?: string | undefined;
  prefix_rule?: string[] | undefined;
  wait_for_approval_ms?: number | undefined;
}
