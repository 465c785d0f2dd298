import { z } from "zod";
import type {
  ExecCommandParams,
  ShellCommandParams,
  ShellParams,
  WriteStdinParams,
} from "../../tools/codex.js";
import { TOOL_LIMITS } from "../../tools/limits.js";
import {
  escalationNeedsJustification,
  justification,
  login,
  maxOutputTokens,
  prefixRule,
  sandboxPermissions,
  timeoutMs,
  waitForApprovalMs,
  workdir,
} from "./common.js";

// The `codex` profile: Codex's own tool names, field names and defaults (codex-rs/core/src/tools/spec.rs),
// so a model trained on Codex calls them unchanged. Fixed defaults are encoded with `.default()` so the
// JSON Schema shows them and handlers receive complete values; defaults that depend on the machine or the
// config (`workdir`, `shell`, `login`) stay optional.

const yieldClamp = `clamped to ${TOOL_LIMITS.minYieldTimeMs}–${TOOL_LIMITS.maxYieldTimeMs}`;

/** `shell_command`: one shell script in the user's shell, run to completion. */
export const ShellCommandSchema = z
  .strictObject({
    command: z
      .string()
      .min(1)
      .describe("The shell script to run in the user's default shell; pipes, redirects and `&&` work."),
    workdir,
    timeout_ms: timeoutMs(TOOL_LIMITS.shellCommandTimeoutMs),
    login,
    sandbox_permissions: sandboxPermissions,
    justification,
    prefix_rule: prefixRule,
    wait_for_approval_ms: waitForApprovalMs,
  })
  .superRefine(escalationNeedsJustification) satisfies z.ZodType<ShellCommandParams>;

/** `exec_command`: start a command and return its output, or a session id while it keeps running. */
export const ExecCommandSchema = z
  .strictObject({
    cmd: z.string().min(1).describe("The shell command to run."),
    workdir,
    tty: z
      .boolean()
      .default(false)
      .describe(
        "Run in a pseudo-terminal (needed for interactive programs, REPLs and full-screen tools). Default false: plain pipes, stdin accepts only Ctrl-C (`\\u0003`).",
      ),
    yield_time_ms: z
      .number()
      .int()
      .min(0)
      .default(TOOL_LIMITS.execYieldTimeMs)
      .describe(
        `How long to wait, in milliseconds (${yieldClamp}). Omitted: returns as soon as the command exits or its first output settles (a shell back at its prompt, or a pause in the output), waiting at most ${TOOL_LIMITS.execYieldTimeMs}. Given: waits that long unless the command exits first. If it is still running you get a session_id for write_stdin.`,
      ),
    max_output_tokens: maxOutputTokens,
    login,
    shell: z
      .string()
      .min(1)
      .optional()
      .describe("Shell binary to run `cmd` with, e.g. `/bin/bash`. Defaults to the user's shell."),
    sandbox_permissions: sandboxPermissions,
    justification,
    prefix_rule: prefixRule,
    wait_for_approval_ms: waitForApprovalMs,
  })
  .superRefine(escalationNeedsJustification) satisfies z.ZodType<ExecCommandParams>;

/** `write_stdin`: write to a running exec_command session (or just poll it) and return new output. */
export const WriteStdinSchema = z.strictObject({
  // No range check: an id outside 1000–99999 is answered by the store with `Unknown process id N`.
  session_id: z.number().int().describe("The session_id returned by exec_command for a running command."),
  chars: z
    .string()
    .default("")
    .describe(
      'Text to write to the session\'s stdin, e.g. "ls\\n" or "\\u0003" for Ctrl-C. Empty (the default) writes nothing and only polls for new output. Without a tty only "\\u0003" is accepted.',
    ),
  yield_time_ms: z
    .number()
    .int()
    .min(0)
    .default(TOOL_LIMITS.writeYieldTimeMs)
    .describe(
      `The longest wait, in milliseconds (default ${TOOL_LIMITS.writeYieldTimeMs}, ${yieldClamp}; an empty poll ${TOOL_LIMITS.emptyPollMinMs}–${TOOL_LIMITS.emptyPollMaxMs}). Returns at once when the process exits, and sooner once the reply settles (a shell back at its prompt, or a pause in the output after what was written); after Ctrl-C or a quit key it waits a moment for the exit. An empty poll of a shell idle at its prompt returns at once, saying so. Only output produced since the previous call is returned.`,
    ),
  max_output_tokens: maxOutputTokens,
}) satisfies z.ZodType<WriteStdinParams>;

/** Legacy `shell`: an argv array run with execvp, no shell unless the array names one. */
export const ShellSchema = z
  .strictObject({
    command: z
      .array(z.string())
      .min(1)
      .describe(
        'The program and its arguments, run directly without a shell. For shell syntax use ["bash", "-lc", "SCRIPT"].',
      ),
    workdir,
    timeout_ms: timeoutMs(TOOL_LIMITS.shellCommandTimeoutMs),
    sandbox_permissions: sandboxPermissions,
    justification,
    prefix_rule: prefixRule,
    wait_for_approval_ms: waitForApprovalMs,
  })
  .superRefine(escalationNeedsJustification) satisfies z.ZodType<ShellParams>;

/** `list_sessions`: the caller's live exec_command sessions, for a model that lost an id. */
export const ListSessionsSchema = z
  .strictObject({})
  .describe(
    "No arguments; lists your live exec_command sessions: id, state, age, last output line, command.",
  );
