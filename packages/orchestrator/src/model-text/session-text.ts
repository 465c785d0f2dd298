import type { SessionResponse, SessionStore } from "@conch/unified-exec";
import { TerminalTextFilter } from "../text/terminal-text.js";

// A terminal's rendered screen text reaches the model one call at a time (the cleaned output of every
// session is SessionOutputs'), and an invisible character may straddle two calls: each terminal keeps
// its filter from call to call, for as long as it runs. Keyed by store (an orchestrator's sessions),
// then by id; the call that starts a session starts its filter afresh, since the id of a session that
// ended may be handed out again.
const filters = new WeakMap<SessionStore, Map<number, TerminalTextFilter>>();

export interface SessionText {
  /** The call's output as the model reads it (see TerminalTextFilter). */
  readonly text: string;
  /** Removals made in this call's output. */
  readonly removed: number;
}

/**
 * The text of one call's rendered output of a terminal. The current line is given out at once (a prompt
 * waits for an answer), and the whole filter ends with the session's last output.
 */
export function sessionText(
  sessions: SessionStore,
  response: SessionResponse,
  started: boolean,
): SessionText {
  let byId = filters.get(sessions);
  if (byId === undefined) {
    byId = new Map();
    filters.set(sessions, byId);
  }
  const id = response.sessionId;
  let filter = started ? undefined : byId.get(id);
  if (filter === undefined) {
    filter = new TerminalTextFilter();
    byId.set(id, filter);
  }
  const text = filter.write(response.output) + (response.running ? filter.flush() : filter.end());
  if (!response.running) byId.delete(id);
  return { text, removed: filter.takeRemoved() };
}

/** Drops the filter of a session closed while it ran. */
export function forgetSessionText(sessions: SessionStore, id: number): void {
  filters.get(sessions)?.delete(id);
}
