// The escalation fields of the tools that have them (shell_command, exec_command, the codex `shell`):
// what reaches the orchestrator, and a note for what it ignores. A call that escalates without a
// justification never gets here: the schema refuses it, naming `justification`.
import type { SandboxPermissions } from "@conch/protocol";
import { appendLine, UNUSED_JUSTIFICATION_NOTE } from "../model-text/notes.js";
import type { CommandRequest } from "../orchestrator/types.js";
import type { ToolCallResult } from "./types.js";

export interface EscalationArgs {
  readonly sandbox_permissions: SandboxPermissions;
  readonly justification?: string | undefined;
  readonly prefix_rule?: string[] | undefined;
  readonly wait_for_approval_ms?: number | undefined;
}

/**
 * The request's escalation fields, and whether the justification goes unused: it is shown to the person
 * asked to let the command out of the sandbox, so without `require_escalated` nobody reads it. The wait
 * for an out-of-band approval is bounded by `callLimitMs`, the call's own limit, when it has one.
 */
export function escalationFields(
  input: EscalationArgs,
  callLimitMs: number | null = null,
): {
  readonly fields: Pick<
    CommandRequest,
    "sandboxPermissions" | "justification" | "prefixRule" | "approvalWaitMs"
  >;
  readonly justificationUnused: boolean;
} {
  const escalated = input.sandbox_permissions === "require_escalated";
  const { justification } = input;
  return {
    fields: {
      sandboxPermissions: input.sandbox_permissions,
      ...(justification === undefined || !escalated ? {} : { justification }),
      ...(input.prefix_rule === undefined ? {} : { prefixRule: input.prefix_rule }),
      ...(input.wait_for_approval_ms === undefined || input.wait_for_approval_ms === 0
        ? {}
        : { approvalWaitMs: approvalWait(input.wait_for_approval_ms, callLimitMs) }),
    },
    justificationUnused: justification !== undefined && !escalated,
  };
}

// Of a call's limit, what an approval wait leaves for the command itself to run and answer.
const RUN_MARGIN_MS = 5000;

/** `wait_for_approval_ms`, bounded by the call's limit (less a margin for the command's own run). */
function approvalWait(asked: number, callLimitMs: number | null): number {
  return callLimitMs === null ? asked : Math.max(0, Math.min(asked, callLimitMs - RUN_MARGIN_MS));
}

/** `result`, saying in a note and in `unused_arguments` that the justification was not used. */
export function noteUnusedJustification(result: ToolCallResult, unused: boolean): ToolCallResult {
  if (!unused) return result;
  return {
    text: appendLine(result.text, UNUSED_JUSTIFICATION_NOTE),
    result: { ...result.result, unused_arguments: ["justification"] },
  };
}
