import type { ToolResult } from "@conch/protocol";
import { visibleText } from "@conch/protocol";
import type { SessionResponse } from "@conch/unified-exec";
import { notStartedText } from "../orchestrator/rejection-text.js";
import type { CommandOutcome, FailedOutcome, RejectedOutcome } from "../orchestrator/types.js";
import { spillPointer, UNSAVED } from "../spill/spill-pointer.js";
import { appendLine, binaryOutputSummary, hintNote, spillFailedNote } from "./notes.js";
import { removedControlsNote } from "./removed-controls-note.js";
import { formatShellCommandResult } from "./shell-command-result.js";
import { spillNotice } from "./spill-notice.js";

/** What a tool call gives back: the exact text for the model, and the same facts as data. */
export interface ToolCallResult {
  readonly text: string;
  readonly result: ToolResult;
}

/** The fields of a result whose command did not run (or is not a one-shot run). */
export const NOT_RUN: Omit<ToolResult, "tool" | "status"> = {
  exit_code: null,
  wall_time_ms: null,
  timed_out: false,
  canceled: false,
  sandbox: null,
  denied: false,
  escalated: false,
  truncated: false,
  spill_path: null,
  rejection: null,
  error_code: null,
  session_id: null,
  running: false,
  unused_arguments: [],
};

// The messages below echo what the model sent (a name, a value, a directory) and what errors say about
// it. Escaped rather than cleaned: the model should read what it sent, and a terminal printing the text
// should not act on it.
function message(text: string): string {
  return visibleText(text, { keepLineBreaks: true });
}

/** A call whose arguments were wrong: nothing ran. */
export function invalidResult(tool: string, text: string, code = "INVALID_REQUEST"): ToolCallResult {
  return { text: message(text), result: { tool, status: "invalid", ...NOT_RUN, error_code: code } };
}

/** A call that could not be carried out (a bug, or an error with a Conch code): nothing ran. */
export function failedResult(tool: string, text: string, code: string): ToolCallResult {
  return { text: message(text), result: { tool, status: "failed", ...NOT_RUN, error_code: code } };
}

/** A thrown error (an unknown session, a bad shell name, a bug) as the model's text, with its code. */
export function errorResult(tool: string, error: unknown, prefix = ""): ToolCallResult {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return failedResult(tool, `${prefix}${message}`, typeof code === "string" ? code : "INTERNAL");
}

/** A command the orchestrator did not run: rejected (the reason, as is) or unable to start. */
export function notRunResult(
  outcome: RejectedOutcome | FailedOutcome,
  options: Pick<ShellStyleOptions, "tool" | "cwdField" | "cwd">,
): ToolCallResult {
  const { tool } = options;
  if (outcome.status === "rejected") {
    return {
      text: message(outcome.reason),
      result: { tool, status: "rejected", ...NOT_RUN, rejection: outcome.kind },
    };
  }
  return failedResult(tool, notStartedText(tool, outcome, options.cwdField, options.cwd), outcome.code);
}

export interface ShellStyleOptions {
  readonly tool: string;
  readonly maxTokens: number;
  /** The argument that named the directory (`workdir`, `cwd`), for a missing-directory message. */
  readonly cwdField: string;
  readonly cwd: string;
}

/**
 * The result of a one-shot tool, as Codex's shell_command reports it (`Exit code`, `Wall time`,
 * `Output:`), plus, past Codex: which lines a cut left out and where the whole output is, and what the
 * model can do when the sandbox blocked the command.
 */
export function shellStyleResult(outcome: CommandOutcome, options: ShellStyleOptions): ToolCallResult {
  const { tool } = options;
  if (outcome.status !== "ran") return notRunResult(outcome, options);

  const { output, binary, rawBytes, removedControls, spill, spillError } = outcome.output;
  const formatted = formatShellCommandResult({
    exitCode: outcome.exitCode,
    durationMs: outcome.durationMs,
    output: binary ? binaryOutputSummary(rawBytes) : output,
    maxTokens: options.maxTokens,
    timedOut: outcome.timedOut,
    // The summary of binary output is no part of the spill file, which holds the bytes.
    spill: binary ? UNSAVED : spillPointer(spill, spillError),
  });
  let text = formatted.text;
  const truncated = binary || formatted.truncated;
  const notes: string[] = [];
  // A cut says where the whole is in its marker; binary output, never shown, says it here.
  if (binary && spill !== null) notes.push(spillNotice(spill.path, spill.bytes, spill.omittedBytes));
  else if (binary && spillError !== null) notes.push(spillFailedNote(spillError));
  const removed = binary ? null : removedControlsNote(removedControls);
  if (removed !== null) notes.push(removed);
  if (outcome.hint !== null) notes.push(hintNote(outcome.hint));
  if (notes.length > 0) text = appendLine(text, notes.join("\n"));
  return {
    text,
    result: {
      tool,
      status: "ok",
      exit_code: outcome.exitCode,
      wall_time_ms: Math.round(outcome.durationMs),
      timed_out: outcome.timedOut,
      canceled: outcome.canceled,
      sandbox: outcome.sandbox,
      denied: outcome.denied,
      escalated: outcome.escalated,
      truncated,
      spill_path: spill?.path ?? null,
      rejection: null,
      error_code: null,
      session_id: null,
      running: false,
      unused_arguments: [],
    },
  };
}

/** The result of a session call: its exit code or, while it runs, its session id. */
export function sessionData(tool: string, response: SessionResponse, extra: Partial<ToolResult>): ToolResult {
  return {
    tool,
    status: "ok",
    ...NOT_RUN,
    exit_code: response.exitCode,
    wall_time_ms: Math.round(response.wallTimeMs),
    session_id: response.running ? response.sessionId : null,
    running: response.running,
    ...extra,
  };
}
