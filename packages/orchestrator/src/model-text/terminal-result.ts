// The terminal profile's model text (terminal_open, _write, _read, _signal, _close, _list).
import { visibleText } from "@conch/protocol";

/** terminal_open and terminal_read: the terminal, its state, and the output of this call. */
export function formatTerminalResult(
  id: number,
  state: { readonly running: boolean; readonly exitCode: number | null },
  output: string,
): string {
  const status = state.running ? "running" : `exited with code ${state.exitCode}`;
  return `Terminal ID: ${id}\nStatus: ${status}\nOutput:\n${output}`;
}

export function terminalWriteText(id: number, bytes: number, running: boolean): string {
  return running
    ? `Wrote ${bytes} byte${bytes === 1 ? "" : "s"} to terminal ${id}.`
    : `Terminal ${id} has exited; nothing was written.`;
}

export function terminalSignalText(id: number, signal: string, running: boolean): string {
  return running ? `Sent SIG${signal} to terminal ${id}.` : `Terminal ${id} has exited; no signal was sent.`;
}

export function terminalClosedText(id: number): string {
  return `Terminal ${id} closed; its processes were killed.`;
}

/**
 * A terminal id that names no open terminal, in the terminal profile's words: `fate` is what the
 * orchestrator said of the session (`Unknown process id N (it was closed)`, `session N exited with
 * code X; …`), reworded for terminals, with where to find the open ones.
 */
export function unknownTerminalText(id: number, fate: string): string {
  const exited = new RegExp(`^session ${id} exited with code (-?\\d+)`).exec(fate);
  if (exited !== null)
    return `Terminal ${id} exited with code ${exited[1]} and was closed (terminal_list shows the open ones)`;
  const why = new RegExp(`^Unknown process id ${id} \\((.+)\\)$`).exec(fate)?.[1];
  const said = why === undefined ? "" : `${why.replace(/\bsession\b/g, "terminal")}; `;
  return `Unknown terminal id ${id} (${said}terminal_list shows the open ones)`;
}

export function terminalStdinClosedText(id: number): string {
  return `terminal ${id} was opened without a tty, so its stdin is closed; open it again with terminal_open and "tty": true`;
}

export interface TerminalListEntry {
  readonly id: number;
  readonly pid: number;
  readonly running: boolean;
  readonly exitCode: number | null;
  readonly startedAt: number;
  readonly lastOutputAt: number | null;
  readonly command: string;
  /** What waits for input on its terminal (a program reading it, or its shell at the prompt), or null. */
  readonly waitingForInput: { readonly program: string; readonly shellPrompt: boolean } | null;
}

/** A session's state in a list: running (and what waits for input, if anything), or how it exited. */
function listedState(s: TerminalListEntry): string {
  if (!s.running) return `exited ${s.exitCode}`;
  const wait = s.waitingForInput;
  if (wait === null) return "running";
  return wait.shellPrompt ? "idle at its shell prompt" : `running, waiting for input (${wait.program})`;
}

/** terminal_list: one tab-separated line per terminal, ages relative to `now`. */
export function formatTerminalList(sessions: readonly TerminalListEntry[], now: number): string {
  if (sessions.length === 0) return "No open terminals.";
  const lines = sessions.map((s) => {
    const state = listedState(s);
    const last = s.lastOutputAt === null ? "never" : `${age(now - s.lastOutputAt)} ago`;
    return `${s.id}\tpid ${s.pid}\t${state}\tage ${age(now - s.startedAt)}\toutput ${last}\t${visibleText(s.command)}`;
  });
  return `id\tpid\tstate\tage\tlast output\tcommand\n${lines.join("\n")}`;
}

function age(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  return s < 60
    ? `${s}s`
    : s < 3600
      ? `${Math.floor(s / 60)}m${s % 60}s`
      : `${Math.floor(s / 3600)}h${Math.floor((s % 3600) / 60)}m`;
}

/** One of the caller's sessions, as `list_sessions` shows it. */
export interface SessionListEntry extends TerminalListEntry {
  readonly tty: boolean;
  /** The last non-empty line it printed, cleaned. */
  readonly lastLine: string;
}

/** `list_sessions`' text: a line per session, with its last output line, or that there are none. */
export function formatSessionList(sessions: readonly SessionListEntry[], now: number): string {
  if (sessions.length === 0) return "No live sessions: start one with exec_command.";
  const lines = sessions.map((s) => {
    const state = listedState(s);
    const last = s.lastLine === "" ? "(no output)" : visibleText(s.lastLine);
    return `${s.id}\t${state}\t${s.tty ? "tty" : "pipes"}\tage ${age(now - s.startedAt)}\t${visibleText(s.command)}\tlast: ${last}`;
  });
  return `session_id\tstate\tstdin\tage\tcommand\tlast output line\n${lines.join("\n")}`;
}
