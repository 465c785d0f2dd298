// The bracketed lines appended to a tool's model text, past what Codex prints.
import { visibleText } from "@conch/protocol";

/** A hint from the orchestrator (what to do after a sandbox denial), as its own line. */
export function hintNote(hint: string): string {
  return `[${hint}]`;
}

/** A `justification` given without `require_escalated`: nobody reads it, and the model should know. */
export const UNUSED_JUSTIFICATION_NOTE =
  '[Note: justification is only read with sandbox_permissions: "require_escalated"; it was not used.]';

/** Output was truncated, but the spill file that should hold it in full could not be written. */
export function spillFailedNote(message: string): string {
  return `[The full output could not be saved: ${visibleText(message)}]`;
}

/** What stands for binary output (NUL bytes early on) instead of the bytes themselves. */
export function binaryOutputSummary(bytes: number): string {
  return `[binary output: ${bytes} bytes]`;
}

/** `text` with `line` appended on a line of its own. */
export function appendLine(text: string, line: string): string {
  return `${text}${text.endsWith("\n") ? "" : "\n"}${line}`;
}
