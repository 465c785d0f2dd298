// The session tools: Codex's exec_command and write_stdin, and the terminal profile. Starting a process
// and sending input to it go through the orchestrator (the one door), which audits both; reading from,
// listing and closing a session that already passed it only touch the session store.
import { resolve } from "node:path";
import { isKnownSafeCommand } from "@conch/arity-rules";
import {
  type ExecCommandParams,
  type TerminalOpenParams,
  type TerminalReadParams,
  type TerminalSignalParams,
  type TerminalWriteParams,
  TOOL_LIMITS,
  visibleText,
  type WriteStdinParams,
} from "@conch/protocol";
import {
  ExecCommandSchema,
  ListSessionsSchema,
  TerminalCloseSchema,
  TerminalListSchema,
  TerminalOpenSchema,
  TerminalReadSchema,
  TerminalSignalSchema,
  TerminalWriteSchema,
  WriteStdinSchema,
} from "@conch/protocol/schemas";
import { resolveShell } from "@conch/shell-detect";
import type { SessionResponse } from "@conch/unified-exec";
import { generateChunkId } from "../model-text/chunk-id.js";
import { errorResult, failedResult, NOT_RUN, notRunResult, sessionData } from "../model-text/model-result.js";
import { appendLine, hintNote } from "../model-text/notes.js";
import { removedControlsNote } from "../model-text/removed-controls-note.js";
import { forgetSessionText, sessionText } from "../model-text/session-text.js";
import { omissionMarker } from "../model-text/spill-notice.js";
import {
  formatSessionList,
  formatTerminalList,
  formatTerminalResult,
  terminalClosedText,
  terminalSignalText,
  terminalStdinClosedText,
  terminalWriteText,
  unknownTerminalText,
} from "../model-text/terminal-result.js";
import { formatUnifiedExecResult } from "../model-text/unified-exec-result.js";
import { limitsNotice } from "../orchestrator/limits-notice.js";
import type { RejectedOutcome, SessionReply, SessionRunContext } from "../orchestrator/types.js";
import { approxTokenCount, joinCut } from "../text/truncate.js";
import { defineTool } from "./define-tool.js";
import { escalationFields, noteUnusedJustification } from "./escalation-args.js";
import { shellScriptRequest } from "./shell-request.js";
import type { ToolCallResult, ToolContext, ToolDefinition } from "./types.js";

const SIGNALS: Readonly<Record<TerminalSignalParams["signal"], NodeJS.Signals>> = {
  INT: "SIGINT",
  TERM: "SIGTERM",
  KILL: "SIGKILL",
  HUP: "SIGHUP",
};

interface Shown {
  readonly text: string;
  readonly truncated: boolean;
  readonly spillPath: string | null;
  /** Of the text before the cut: what the model would have read whole. */
  readonly originalTokens: number;
}

// How a terminal's rendered text starts when lines scrolled out of it before the call read them.
const SCROLLED_OUT = /^\[\.\.\. \d+ lines? scrolled out of the terminal \.\.\.\]/;

/**
 * One call's output as the model reads it: what the session printed since the previous call, cleaned
 * of terminal control codes (saying how many, when any), cut to the budget on line boundaries. A cut
 * names the lines it left out, numbered as in the session's spill file, which holds all of its output
 * cleaned the same way. A terminal's text is its rendered screen (a progress bar's last state, a
 * full-screen program's screen), shown as it is when it fits and nothing scrolled out of it unread;
 * otherwise the call shows the cleaned output, whose lines the spill file numbers.
 * `started`: the call that started the session.
 */
async function shown(
  response: SessionResponse,
  started: boolean,
  maxTokens: number,
  context: ToolContext,
): Promise<Shown> {
  const outputs = context.orchestrator.sessionOutputs;
  const id = response.sessionId;
  const rendered =
    outputs.tty(id) === true ? sessionText(context.orchestrator.sessions, response, started) : null;
  const asRendered =
    rendered !== null && !SCROLLED_OUT.test(rendered.text) && approxTokenCount(rendered.text) <= maxTokens;
  const window = await outputs.take(response, (output) => !asRendered && output.needsCut(maxTokens));
  if (rendered !== null && asRendered) {
    return {
      text: withNote(rendered.text, removedControlsNote(rendered.removed)),
      truncated: false,
      spillPath: null,
      originalTokens: approxTokenCount(rendered.text),
    };
  }
  const cut = window.output.cut(maxTokens, window.lineOffset);
  const text = joinCut(cut, (omission) => omissionMarker(omission, window.spill));
  return {
    text: withNote(text, removedControlsNote(window.removed)),
    truncated: cut.omission !== null,
    spillPath: window.spill.kind === "file" ? window.spill.path : null,
    originalTokens: cut.originalTokens,
  };
}

function withNote(text: string, note: string | null): string {
  return note === null ? text : `${text}${text.endsWith("\n") || text === "" ? "" : "\n"}${note}`;
}

/** How long a shell sat idle, as a person says it: `0.4 s`, `40 s`, `3 min`. */
function idleWords(ms: number): string {
  if (ms < 10_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 120_000) return `${Math.round(ms / 1000)} s`;
  return `${Math.round(ms / 60_000)} min`;
}

/** Codex's exec_command/write_stdin text for one response; `started` by this call. */
async function unifiedExecResult(
  tool: string,
  response: SessionResponse | SessionReply,
  started: boolean,
  maxTokens: number,
  context: ToolContext,
  extra: { sandbox?: string; denied?: boolean; escalated?: boolean; hint?: string | null } = {},
): Promise<ToolCallResult> {
  const out = await shown(response, started, maxTokens, context);
  let text = formatUnifiedExecResult({
    chunkId: generateChunkId(),
    durationMs: response.wallTimeMs,
    ...(response.running ? { sessionId: response.sessionId } : { exitCode: response.exitCode ?? -1 }),
    originalTokenCount: out.originalTokens,
    output: out.text,
  });
  // A poll that found nothing new from a shell idle at its prompt came back at once: said, with how long.
  if (response.idleAtPromptMs !== undefined && out.text === "") {
    text = appendLine(
      text,
      `[no new output; the shell is at its prompt (idle ${idleWords(response.idleAtPromptMs)}): write a command to it, or stop polling]`,
    );
  }
  // What Conch moved aside in the repository after this call of a sandboxed session.
  const notices = [
    ...("notices" in response ? response.notices : []),
    ...limitsNotice(response.limitsReached ?? []),
  ];
  const hint = [...notices, ...(extra.hint ? [extra.hint] : [])].join(" ");
  if (hint !== "") text = appendLine(text, hintNote(hint));
  return {
    text,
    result: sessionData(tool, response, {
      truncated: out.truncated,
      spill_path: out.spillPath,
      sandbox: extra.sandbox ?? null,
      denied: extra.denied ?? false,
      escalated: extra.escalated ?? false,
    }),
  };
}

/** Codex's `exec_command`: start a command; its output, or a session id while it keeps running. */
export const execCommandTool: ToolDefinition<typeof ExecCommandSchema> = defineTool({
  name: "exec_command",
  kind: "command",
  description:
    "Runs a command in a new session and returns its output, or a session_id while it keeps running: " +
    "use write_stdin to send input or poll for more output. Set `tty` for interactive programs. It returns " +
    "as soon as the command exits or its first output settles (a shell back at its prompt, or a pause " +
    "in the output); give yield_time_ms to wait that long instead.",
  inputSchema: ExecCommandSchema,
  // A shell the model names may not read the script as bash does (fish, say): never known read-only.
  isMutating: async (input: ExecCommandParams) =>
    input.shell !== undefined || !(await isKnownSafeCommand(["bash", "-lc", input.cmd])),
  handler: async (input: ExecCommandParams, context: ToolContext) => {
    const shell = input.shell === undefined ? context.shell() : resolveShell(input.shell);
    const cwd = resolve(context.orchestrator.cwd, input.workdir ?? ".");
    const { fields, justificationUnused } = escalationFields(input, context.callLimitMs);
    const outcome = await context.orchestrator.startSession(
      {
        tool: "exec_command",
        ...shellScriptRequest(shell, input.cmd, input.login ?? true),
        cwd,
        maxOutputTokens: input.max_output_tokens,
        tty: input.tty,
        yieldTimeMs: input.yield_time_ms,
        // A yield_time_ms the model gave is a wait it asked for; the default returns once output settles.
        settle: !context.given.has("yield_time_ms"),
        ...fields,
      },
      context,
    );
    const result =
      outcome.status !== "session"
        ? notRunResult(outcome, { tool: "exec_command", cwdField: "workdir", cwd })
        : await unifiedExecResult(
            "exec_command",
            outcome.response,
            true,
            input.max_output_tokens,
            context,
            outcome,
          );
    return noteUnusedJustification(result, justificationUnused);
  },
});

/** Codex's `write_stdin`: write to a session (or poll it) and return what it printed since. */
export const writeStdinTool: ToolDefinition<typeof WriteStdinSchema> = defineTool({
  name: "write_stdin",
  kind: "session",
  description:
    "Writes characters to a running exec_command session (empty: just poll) and returns the output " +
    "produced since the last call, as soon as it settles (a shell back at its prompt, or a pause in the " +
    "output); an empty poll waits its yield_time_ms (at least 5 s) only when nothing new arrives. " +
    'Without a tty only "\\u0003" (Ctrl-C) is accepted.',
  inputSchema: WriteStdinSchema,
  isMutating: async () => true,
  handler: async (input: WriteStdinParams, context: ToolContext) => {
    try {
      const response = await context.orchestrator.writeSession(
        "write_stdin",
        input.session_id,
        input.chars,
        input.yield_time_ms,
        callOf(context),
      );
      // Input for a session outside the sandbox that a person did not approve: nothing was written.
      if ("status" in response) return inputRejectedResult("write_stdin", input.session_id, response);
      return await unifiedExecResult("write_stdin", response, false, input.max_output_tokens, context);
    } catch (error) {
      return errorResult("write_stdin", error);
    }
  },
});

/** What the orchestrator needs of a call to ask about, and record, input to a session. */
function callOf(context: ToolContext): SessionRunContext {
  return {
    ...(context.signal === undefined ? {} : { signal: context.signal }),
    ...(context.approver === undefined ? {} : { approver: context.approver }),
    ...(context.client === undefined ? {} : { client: context.client }),
  };
}

/** Input that was not typed: the rejection's words, the session named. */
function inputRejectedResult(tool: string, id: number, outcome: RejectedOutcome): ToolCallResult {
  return {
    text: visibleText(outcome.reason, { keepLineBreaks: true }),
    result: { tool, status: "rejected", ...NOT_RUN, session_id: id, running: true, rejection: outcome.kind },
  };
}

/**
 * A terminal tool's error in the terminal profile's words: its id is a terminal's, and a terminal without
 * a tty is reopened with terminal_open (Codex's messages name exec_command, which this profile lacks).
 */
function terminalError(tool: string, id: number, error: unknown): ToolCallResult {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === "UNKNOWN_SESSION") {
    return failedResult(tool, unknownTerminalText(id, (error as Error).message), code);
  }
  if (code === "STDIN_CLOSED") {
    return failedResult(tool, terminalStdinClosedText(id), code);
  }
  return errorResult(tool, error);
}

async function terminalResult(
  tool: string,
  response: SessionResponse | SessionReply,
  started: boolean,
  context: ToolContext,
): Promise<ToolCallResult> {
  const out = await shown(response, started, context.maxOutputTokens, context);
  const notices = "notices" in response ? response.notices : [];
  const text = formatTerminalResult(response.sessionId, response, out.text);
  return {
    text: notices.length === 0 ? text : appendLine(text, hintNote(notices.join(" "))),
    result: {
      ...sessionData(tool, response, { truncated: out.truncated, spill_path: out.spillPath }),
      // A terminal stays addressable until closed, exited or not.
      session_id: response.sessionId,
    },
  };
}

export const terminalOpenTool: ToolDefinition<typeof TerminalOpenSchema> = defineTool({
  name: "terminal_open",
  kind: "command",
  description:
    "Starts a command in a new terminal that stays open: a shell, a server, a REPL. Returns its id and " +
    "first output. Talk to it with terminal_write and terminal_read; close it with terminal_close.",
  inputSchema: TerminalOpenSchema,
  isMutating: async (input: TerminalOpenParams) =>
    !(await isKnownSafeCommand(["bash", "-lc", input.command])),
  handler: async (input: TerminalOpenParams, context: ToolContext) => {
    const cwd = resolve(context.orchestrator.cwd, input.cwd ?? ".");
    const outcome = await context.orchestrator.startSession(
      {
        tool: "terminal_open",
        ...shellScriptRequest(context.shell(), input.command, true),
        cwd,
        maxOutputTokens: context.maxOutputTokens,
        tty: input.tty,
        yieldTimeMs: TOOL_LIMITS.writeYieldTimeMs,
        keepAfterExit: true,
      },
      context,
    );
    if (outcome.status !== "session")
      return notRunResult(outcome, { tool: "terminal_open", cwdField: "cwd", cwd });
    const result = await terminalResult("terminal_open", outcome.response, true, context);
    const withDenial = { ...result, result: { ...result.result, denied: outcome.denied } };
    return outcome.hint === null
      ? withDenial
      : { ...withDenial, text: `${result.text}\n${hintNote(outcome.hint)}` };
  },
});

export const terminalWriteTool: ToolDefinition<typeof TerminalWriteSchema> = defineTool({
  name: "terminal_write",
  kind: "session",
  description:
    'Sends text to a terminal\'s input (end lines with "\\n"; "\\u0003" is Ctrl-C) without waiting; read the ' +
    "response with terminal_read.",
  inputSchema: TerminalWriteSchema,
  isMutating: async () => true,
  handler: async (input: TerminalWriteParams, context: ToolContext) => {
    try {
      const running = await context.orchestrator.typeIntoSession(
        "terminal_write",
        input.id,
        input.input,
        callOf(context),
      );
      if (typeof running !== "boolean") return inputRejectedResult("terminal_write", input.id, running);
      return {
        text: terminalWriteText(input.id, Buffer.byteLength(input.input), running),
        result: { tool: "terminal_write", status: "ok", ...NOT_RUN, session_id: input.id, running },
      };
    } catch (error) {
      return terminalError("terminal_write", input.id, error);
    }
  },
});

export const terminalReadTool: ToolDefinition<typeof TerminalReadSchema> = defineTool({
  name: "terminal_read",
  kind: "session",
  description:
    "Returns a terminal's output since the last read, waiting up to wait_ms for more (at once when its " +
    "process exits). Full-screen programs show their current screen.",
  inputSchema: TerminalReadSchema,
  isMutating: async () => false,
  handler: async (input: TerminalReadParams, context: ToolContext) => {
    try {
      const response = await context.orchestrator.readSession(
        input.id,
        input.wait_ms,
        context.signal === undefined ? {} : { signal: context.signal },
      );
      return await terminalResult("terminal_read", response, false, context);
    } catch (error) {
      return terminalError("terminal_read", input.id, error);
    }
  },
});

export const terminalSignalTool: ToolDefinition<typeof TerminalSignalSchema> = defineTool({
  name: "terminal_signal",
  kind: "session",
  description: "Sends a signal to a terminal's process group: INT (Ctrl-C), TERM, KILL or HUP.",
  inputSchema: TerminalSignalSchema,
  isMutating: async () => true,
  handler: async (input: TerminalSignalParams, context: ToolContext) => {
    try {
      const running = context.orchestrator.signalSession("terminal_signal", input.id, SIGNALS[input.signal], {
        by: "model",
        client: context.client ?? null,
      });
      return {
        text: terminalSignalText(input.id, input.signal, running),
        result: { tool: "terminal_signal", status: "ok", ...NOT_RUN, session_id: input.id, running },
      };
    } catch (error) {
      return terminalError("terminal_signal", input.id, error);
    }
  },
});

export const terminalCloseTool: ToolDefinition<typeof TerminalCloseSchema> = defineTool({
  name: "terminal_close",
  kind: "session",
  description: "Closes a terminal: its process and everything it started are killed.",
  inputSchema: TerminalCloseSchema,
  isMutating: async () => true,
  handler: async (input: { id: number }, context: ToolContext) => {
    try {
      await context.orchestrator.closeSession("terminal_close", input.id, {
        by: "model",
        client: context.client ?? null,
      });
      forgetSessionText(context.orchestrator.sessions, input.id);
      return {
        text: terminalClosedText(input.id),
        result: { tool: "terminal_close", status: "ok", ...NOT_RUN },
      };
    } catch (error) {
      return terminalError("terminal_close", input.id, error);
    }
  },
});

export const terminalListTool: ToolDefinition<typeof TerminalListSchema> = defineTool({
  name: "terminal_list",
  kind: "session",
  description: "Lists the open terminals: id, pid, state (running or exit code), age, last output, command.",
  inputSchema: TerminalListSchema,
  isMutating: async () => false,
  handler: async (_input: Record<string, never>, context: ToolContext) => {
    return {
      text: formatTerminalList(context.orchestrator.sessions.list(), Date.now()),
      result: { tool: "terminal_list", status: "ok", ...NOT_RUN },
    };
  },
});

/**
 * `list_sessions` (codex profile): the caller's live exec_command sessions, so a model that lost an id
 * finds its shells again. Only the sessions the calling client started, when the client is known.
 */
export const listSessionsTool: ToolDefinition<typeof ListSessionsSchema> = defineTool({
  name: "list_sessions",
  kind: "session",
  description:
    "Lists your live exec_command sessions: id, state (running, or how it exited), age, its last output " +
    "line and command. Use it to find a session_id you no longer have; write_stdin polls or types into one.",
  inputSchema: ListSessionsSchema,
  isMutating: async () => false,
  handler: async (_input: Record<string, never>, context: ToolContext) => {
    const mine = context.orchestrator.monitor
      .list()
      .filter((session) => session.endedAt === null)
      .filter((session) => context.client === undefined || session.client === context.client);
    return {
      text: formatSessionList(mine, Date.now()),
      result: { tool: "list_sessions", status: "ok", ...NOT_RUN },
    };
  },
});
