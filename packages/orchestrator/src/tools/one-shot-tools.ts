// The one-shot tools of each profile (DESIGN.md §3). Each only turns its arguments into a
// CommandRequest and the outcome into text: every decision is the orchestrator's.
import { resolve } from "node:path";
import { isKnownSafeCommand } from "@conch/arity-rules";
import { EXIT_CODE_CANCELED } from "@conch/exec-core";
import type { ArgvShellParams, BashParams, ShellCommandParams, ShellParams } from "@conch/protocol";
import { ArgvShellSchema, BashSchema, ShellCommandSchema, ShellSchema } from "@conch/protocol/schemas";
import { resolveShell, type Shell } from "@conch/shell-detect";
import { formatDurableRunning } from "../model-text/durable-result.js";
import { notRunResult, sessionData, shellStyleResult } from "../model-text/model-result.js";
import { hintNote } from "../model-text/notes.js";
import { removedControlsNote } from "../model-text/removed-controls-note.js";
import { formatShellCommandResult } from "../model-text/shell-command-result.js";
import { omissionMarker } from "../model-text/spill-notice.js";
import type { SessionActor } from "../orchestrator/audit-events.js";
import type { CommandRequest } from "../orchestrator/types.js";
import { joinCut } from "../text/truncate.js";
import { defineTool } from "./define-tool.js";
import { escalationFields, noteUnusedJustification } from "./escalation-args.js";
import { shellScriptRequest } from "./shell-request.js";
import type { ToolCallResult, ToolContext, ToolDefinition } from "./types.js";

async function runShellStyle(
  request: CommandRequest,
  context: ToolContext,
  cwdField: string,
): Promise<ToolCallResult> {
  const outcome = await context.orchestrator.run(request, context);
  return shellStyleResult(outcome, {
    tool: request.tool,
    maxTokens: request.maxOutputTokens,
    cwdField,
    cwd: request.cwd,
  });
}

// What a script would run, for `isMutating`: classified as bash reads it, whatever the user's shell.
const scriptArgv = (script: string): string[] => ["bash", "-lc", script];

/** Codex's `shell_command`: a script in the user's shell. */
export const shellCommandTool: ToolDefinition<typeof ShellCommandSchema> = defineTool({
  name: "shell_command",
  kind: "command",
  description:
    "Runs a shell command (a script in the user's shell) and returns its output. Always set `workdir` " +
    "instead of using `cd`. The command runs in a sandbox; see `sandbox_permissions` to ask to run " +
    "outside it.",
  inputSchema: ShellCommandSchema,
  isMutating: async (input: ShellCommandParams) => !(await isKnownSafeCommand(scriptArgv(input.command))),
  handler: async (input: ShellCommandParams, context: ToolContext) => {
    const { fields, justificationUnused } = escalationFields(input, context.callLimitMs);
    const request: CommandRequest = {
      tool: "shell_command",
      ...shellScriptRequest(context.shell(), input.command, input.login ?? true),
      cwd: resolve(context.orchestrator.cwd, input.workdir ?? "."),
      timeoutMs: input.timeout_ms,
      maxOutputTokens: context.oneShotOutputTokens,
      ...fields,
    };
    // A call must end before the client gives up on it: a longer command returns as a session at the
    // limit, and is still killed at its own timeout.
    const limit = context.callLimitMs;
    const result = context.durableOneShot
      ? runDurable(request, context)
      : limit !== null && input.timeout_ms > limit
        ? runDurable(request, context, limit)
        : runShellStyle(request, context, "workdir");
    return noteUnusedJustification(await result, justificationUnused);
  },
});

/**
 * A durable shell_command (config `durable_one_shot`): it runs as a session and waits its timeout; if it
 * exits by then, the text is shell_command's; if not, it keeps running and the text gives the session id
 * to poll with write_stdin, instead of killing it.
 */
async function runDurable(
  request: CommandRequest,
  context: ToolContext,
  returnAtMs?: number,
): Promise<ToolCallResult> {
  const started = performance.now();
  const outcome = await context.orchestrator.startSession(
    // A one-shot waits for its exit or its time, never for a pause in its output: the text says "still
    // running after N ms" only once N ms have passed.
    {
      ...request,
      tty: false,
      yieldTimeMs: returnAtMs ?? request.timeoutMs ?? 0,
      unclampedYield: true,
      settle: false,
    },
    context,
  );
  if (outcome.status !== "session") {
    return notRunResult(outcome, { tool: request.tool, cwdField: "workdir", cwd: request.cwd });
  }
  const { response } = outcome;
  const maxTokens = request.maxOutputTokens;
  const { output, lineOffset, removed, spill } = await context.orchestrator.sessionOutputs.take(
    response,
    (collected) => collected.needsCut(maxTokens),
  );
  const data = sessionData(request.tool, response, {
    sandbox: outcome.sandbox,
    denied: outcome.denied,
    escalated: outcome.escalated,
    truncated: output.needsCut(maxTokens),
    spill_path: spill.kind === "file" ? spill.path : null,
  });
  const removedNote = removedControlsNote(removed);
  if (!response.running) {
    const { text } = formatShellCommandResult({
      exitCode: response.exitCode ?? -1,
      durationMs: response.wallTimeMs,
      output,
      maxTokens,
      spill,
    });
    const notes = [removedNote, outcome.hint === null ? null : hintNote(outcome.hint)];
    return { text: [text, ...notes.filter((note) => note !== null)].join("\n"), result: data };
  }
  // What the door does to the session on the call's behalf is the model's doing, in the audit log too.
  const actor: SessionActor =
    context.client === undefined ? { by: "model" } : { by: "model", client: context.client };
  if (returnAtMs !== undefined && context.signal?.aborted === true) {
    // Cancelled before it returned: it is still the one-shot the model asked for, and dies like one.
    await context.orchestrator.closeSession(request.tool, response.sessionId, actor).catch(() => {});
    const { text } = formatShellCommandResult({
      exitCode: EXIT_CODE_CANCELED,
      durationMs: response.wallTimeMs,
      output,
      maxTokens,
      spill,
    });
    return {
      text,
      result: { ...data, exit_code: EXIT_CODE_CANCELED, canceled: true, session_id: null, running: false },
    };
  }
  const killAtMs = returnAtMs === undefined ? undefined : request.timeoutMs;
  if (killAtMs !== undefined) {
    // Returned early so the call stays bounded; the command's own timeout still holds: its process
    // group is killed then, as a one-shot's would be, and the model's next poll reads how it ended.
    const { orchestrator } = context;
    const id = response.sessionId;
    setTimeout(
      () => {
        if (!orchestrator.sessions.list().some((session) => session.id === id && session.running)) return;
        try {
          orchestrator.signalSession(request.tool, id, "SIGKILL", actor);
        } catch {
          // Gone in between: nothing left to kill.
        }
      },
      Math.max(0, killAtMs - (performance.now() - started)),
    ).unref();
  }
  const text = formatDurableRunning({
    sessionId: response.sessionId,
    durationMs: response.wallTimeMs,
    timeoutMs: returnAtMs ?? request.timeoutMs,
    output: joinCut(output.cut(maxTokens, lineOffset), (omission) => omissionMarker(omission, spill)),
    note: removedNote,
    ...(killAtMs === undefined ? {} : { killAtMs }),
  });
  return { text, result: data };
}

/** Codex's legacy `shell`: an argv array, run directly. */
export const shellTool: ToolDefinition<typeof ShellSchema> = defineTool({
  name: "shell",
  kind: "command",
  description:
    'Runs a program with its arguments, without a shell (for shell syntax use ["bash", "-lc", "SCRIPT"]), ' +
    "and returns its output. Always set `workdir` instead of using `cd`.",
  inputSchema: ShellSchema,
  isMutating: async (input: ShellParams) => !(await isKnownSafeCommand(input.command)),
  handler: async (input: ShellParams, context: ToolContext) => {
    const { fields, justificationUnused } = escalationFields(input, context.callLimitMs);
    const result = await runShellStyle(
      {
        tool: "shell",
        argv: input.command,
        cwd: resolve(context.orchestrator.cwd, input.workdir ?? "."),
        timeoutMs: input.timeout_ms,
        maxOutputTokens: context.oneShotOutputTokens,
        ...fields,
      },
      context,
      "workdir",
    );
    return noteUnusedJustification(result, justificationUnused);
  },
});

// The system's bash first: a `bash` found through PATH could be one a sandboxed command wrote (an
// activated .venv/bin in the workspace).
const SYSTEM_BASH: readonly string[] = [
  "/bin/bash",
  "/usr/bin/bash",
  "/usr/local/bin/bash",
  "/opt/homebrew/bin/bash",
];

function bashShell(context: ToolContext): Shell {
  for (const path of SYSTEM_BASH) {
    try {
      return resolveShell(path);
    } catch {
      // Not here: the next one.
    }
  }
  try {
    return resolveShell("bash");
  } catch {
    return context.shell();
  }
}

/** The `bash` profile's one tool (OpenCode's shape). */
export const bashTool: ToolDefinition<typeof BashSchema> = defineTool({
  name: "bash",
  kind: "command",
  description:
    "Runs a bash script and returns its output (default timeout 120000 ms). Give a 5–10 word " +
    "`description` of what it does: the user sees it when asked to approve. Set `workdir` instead of " +
    "using `cd`.",
  inputSchema: BashSchema,
  isMutating: async (input: BashParams) => !(await isKnownSafeCommand(scriptArgv(input.command))),
  handler: (input: BashParams, context: ToolContext) =>
    runShellStyle(
      {
        tool: "bash",
        ...shellScriptRequest(bashShell(context), input.command, input.login ?? true),
        cwd: resolve(context.orchestrator.cwd, input.workdir ?? "."),
        timeoutMs: input.timeout_ms,
        maxOutputTokens: context.oneShotOutputTokens,
        description: input.description,
      },
      context,
      "workdir",
    ),
});

/** The `argv` profile's `shell` (Mini Codex): an argv array and no shell at all. */
export const argvShellTool: ToolDefinition<typeof ArgvShellSchema> = defineTool({
  name: "shell",
  kind: "command",
  description:
    "Runs a program with its arguments, exactly as given: no shell, so pipes, globs, `$VAR` and quotes " +
    "are passed literally. Returns its exit code and output.",
  inputSchema: ArgvShellSchema,
  isMutating: async (input: ArgvShellParams) => !(await isKnownSafeCommand(input.argv)),
  handler: (input: ArgvShellParams, context: ToolContext) =>
    runShellStyle(
      {
        tool: "shell",
        argv: input.argv,
        cwd: resolve(context.orchestrator.cwd, input.cwd ?? "."),
        // Whole milliseconds, at least one: a timer cannot fire sooner.
        timeoutMs: Math.max(1, Math.round(input.timeout_seconds * 1000)),
        maxOutputTokens: context.oneShotOutputTokens,
      },
      context,
      "cwd",
    ),
});
