// What a person supervising the agent sees of its live sessions, besides the model's own reads: each
// session's command, where and how it runs, who started it, its state, the last line it printed, its
// recent raw output (the scrollback a console shows first) and every chunk as it arrives. Watching never
// slows a session: output is kept in a bounded tail and handed to watchers as it comes, and a watcher
// that cannot keep up is the watcher's problem (it is told how much it missed).
import type { SessionEvent, SessionInfo, SessionStore } from "@conch/unified-exec";
import { TailBuffer } from "../text/tail-buffer.js";
import { cleanTerminalText } from "../text/terminal-text.js";

/** Raw output kept per session for a console that opens it later: the end of it. */
const SCROLLBACK_BYTES = 256 * 1024;
// The last line is looked for in the end of the scrollback, and shown cut to this many characters.
const LAST_LINE_WINDOW = 4096;
const LAST_LINE_CHARS = 200;

/** Where a session came from, as the orchestrator started it. */
export interface SessionOrigin {
  /** The tool that started it (`exec_command`, `terminal_open`, ...). */
  readonly tool: string;
  readonly cwd: string;
  /** The sandbox it runs under (`bwrap`), or `none`. */
  readonly sandbox: string;
  /** The client that started it (an MCP client's name, as it gave it: untrusted), or null. */
  readonly client: string | null;
}

/** One session as a person sees it in a list: live, or ended and not dismissed yet. */
export interface SessionView extends SessionInfo, SessionOrigin {
  /** The last non-empty line it printed, cleaned of terminal control codes, at most 200 characters. */
  readonly lastLine: string;
  /** For a session that ended and left the store: when it left (`Date.now()`); null while it is listed there. */
  readonly endedAt: number | null;
}

/** What a watcher of one session is told. */
export type WatchEvent =
  | { readonly type: "output"; readonly data: Buffer }
  | { readonly type: "resized"; readonly cols: number; readonly rows: number }
  | { readonly type: "exited"; readonly exitCode: number }
  | { readonly type: "removed" };

interface Tracked {
  origin: SessionOrigin;
  readonly output: TailBuffer;
  readonly watchers: Set<(event: WatchEvent) => void>;
}

// Ended sessions kept listed until dismissed: the newest ones.
const ENDED_KEPT = 50;

export class SessionMonitor {
  readonly #store: SessionStore;
  readonly #tracked = new Map<number, Tracked>();
  readonly #pendingOrigins = new Map<number, SessionOrigin>();
  readonly #listeners = new Set<() => void>();
  // Sessions that exited and left the store, as they were last seen, until a person dismisses them.
  readonly #ended = new Map<number, SessionView>();

  constructor(store: SessionStore) {
    this.#store = store;
    store.observe((event) => this.#on(event));
  }

  /** Says where session `id` came from: called by the orchestrator as the session is stored. */
  describe(id: number, origin: SessionOrigin): void {
    const tracked = this.#tracked.get(id);
    if (tracked === undefined) this.#pendingOrigins.set(id, origin);
    else tracked.origin = origin;
  }

  /** Calls `listener` whenever a session is listed, exits, is resized or leaves the list. */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  /**
   * The sessions listed now, oldest first: the store's, and those that exited and left it, with their
   * exit code and when, until dismissed (the newest ENDED_KEPT of them).
   */
  list(): SessionView[] {
    const views: SessionView[] = [...this.#ended.values()];
    for (const info of this.#store.list()) {
      const tracked = this.#tracked.get(info.id);
      if (tracked === undefined) continue;
      views.push({ ...info, ...tracked.origin, lastLine: lastLine(tracked), endedAt: null });
    }
    return views.sort((a, b) => a.startedAt - b.startedAt);
  }

  /** Takes an ended session off the list (a person saw it); false when there is no such ended session. */
  dismiss(id: number): boolean {
    if (!this.#ended.delete(id)) return false;
    this.#changed();
    return true;
  }

  /**
   * The session's recent raw output, then every event of it as it happens, until `stop`. Null when no
   * such session is listed.
   */
  watch(id: number, watcher: (event: WatchEvent) => void): { scrollback: Buffer; stop(): void } | null {
    const tracked = this.#tracked.get(id);
    if (tracked === undefined) return null;
    tracked.watchers.add(watcher);
    return {
      scrollback: tracked.output.tail(),
      stop: () => {
        tracked.watchers.delete(watcher);
      },
    };
  }

  /** The session's recent raw output now (what `watch` starts with), or null when it is not listed. */
  scrollback(id: number): Buffer | null {
    return this.#tracked.get(id)?.output.tail() ?? null;
  }

  #changed(): void {
    for (const listener of this.#listeners) listener();
  }

  #on(event: SessionEvent): void {
    if (event.type === "started") {
      const origin = this.#pendingOrigins.get(event.id) ?? {
        tool: "unknown",
        cwd: "",
        sandbox: "none",
        client: null,
      };
      this.#pendingOrigins.delete(event.id);
      this.#tracked.set(event.id, { origin, output: new TailBuffer(SCROLLBACK_BYTES), watchers: new Set() });
      this.#changed();
      return;
    }
    const tracked = this.#tracked.get(event.id);
    if (tracked === undefined) return;
    switch (event.type) {
      case "output":
        tracked.output.push(event.data);
        for (const watcher of tracked.watchers) watcher({ type: "output", data: event.data });
        return;
      case "resized":
        for (const watcher of tracked.watchers) watcher(event);
        this.#changed();
        return;
      case "exited":
        for (const watcher of tracked.watchers) watcher({ type: "exited", exitCode: event.exitCode });
        this.#changed();
        return;
      case "removed": {
        for (const watcher of tracked.watchers) watcher({ type: "removed" });
        // An exited session stays listed, with how it ended, until a person dismisses it; one removed
        // while still running (closed, pruned) is being killed on purpose, and leaves.
        const { info } = event;
        if (!info.running) {
          this.#ended.set(event.id, {
            ...info,
            ...tracked.origin,
            lastLine: lastLine(tracked),
            endedAt: Date.now(),
          });
          while (this.#ended.size > ENDED_KEPT) this.#ended.delete(this.#ended.keys().next().value as number);
        }
        this.#tracked.delete(event.id);
        this.#changed();
        return;
      }
    }
  }
}

function lastLine(tracked: Tracked): string {
  if (tracked.output.length === 0) return "";
  const window = tracked.output.tail(LAST_LINE_WINDOW).toString("utf8");
  const { text } = cleanTerminalText(window);
  const lines = text.split("\n");
  for (let index = lines.length - 1; index >= 0; index--) {
    const line = (lines[index] as string).trim();
    if (line !== "") return line.length > LAST_LINE_CHARS ? `${line.slice(0, LAST_LINE_CHARS)}…` : line;
  }
  return "";
}
