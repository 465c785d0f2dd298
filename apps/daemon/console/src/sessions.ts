// The live session list: id, command, cwd, sandbox, state, exit code, age, last line and the client
// that started it, updated as the daemon pushes it. Sessions whose program waits for a person's input (a
// question, a password, an editor) come first, marked, and are counted on the Sessions tab.
import type { SessionView } from "@conch/orchestrator";
import { api } from "./api.js";
import { age, byId, el } from "./dom.js";
import { openSession, openSessionId } from "./terminal-view.js";

export type ListedSession = SessionView & { readonly now: number };

let sessions: readonly ListedSession[] = [];

export function showSessions(list: readonly ListedSession[]): void {
  sessions = list;
  render();
}

export function knownSession(id: number): ListedSession | undefined {
  return sessions.find((session) => session.id === id);
}

/** Whether a program (not the session's shell at its prompt) waits for input on the session's terminal. */
function waitsForInput(session: ListedSession): boolean {
  return session.running && session.waitingForInput !== null && !session.waitingForInput.shellPrompt;
}

function state(session: ListedSession): string | HTMLElement {
  if (session.running) {
    const wait = session.waitingForInput;
    if (wait === null) return "running";
    if (wait.shellPrompt) return "idle at its shell prompt";
    return el("strong", {}, `waiting for input (${wait.program})`);
  }
  const code = session.exitCode === null ? "exited" : `exited ${session.exitCode}`;
  return session.endedAt === null ? code : `${code}, ${age(session.now - session.endedAt)} ago`;
}

function render(): void {
  const selected = openSessionId();
  byId("no-sessions").hidden = sessions.length > 0;
  const waiting = sessions.filter(waitsForInput);
  const count = byId("waiting-count");
  count.textContent = String(waiting.length);
  count.hidden = waiting.length === 0;
  const ordered = [...waiting, ...sessions.filter((session) => !waitsForInput(session))];
  byId("session-rows").replaceChildren(
    ...ordered.map((session) => {
      const open =
        session.endedAt === null
          ? el("button", { type: "button", "aria-label": `Open session ${session.id}` }, "Open")
          : el("button", { type: "button", "aria-label": `Dismiss session ${session.id}` }, "Dismiss");
      open.onclick =
        session.endedAt === null
          ? () => openSession(session.id, `Session ${session.id}: ${session.command}`)
          : () => void api("POST", `sessions/${session.id}/dismiss`, {}).catch(() => {});
      const row = el(
        "tr",
        { "data-session": String(session.id) },
        el("td", {}, String(session.id)),
        el("td", { class: "code" }, session.command),
        el("td", { class: "code" }, session.cwd),
        el("td", {}, session.sandbox),
        el("td", {}, state(session)),
        el("td", {}, age(session.now - session.startedAt)),
        el("td", { class: "code" }, session.lastLine),
        el("td", {}, session.client ?? ""),
        el("td", {}, open),
      );
      if (session.id === selected) row.classList.add("selected");
      if (waitsForInput(session)) row.classList.add("waiting");
      return row;
    }),
  );
}
