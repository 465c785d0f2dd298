// A live session's output as the model reads it, call after call: the session store keeps only 1 MiB
// between two reads (DESIGN.md §3), so a session that prints more than that would give the model counts
// and a spill file of what happened to be kept. Instead every raw chunk of every session (the store's
// observer) is cleaned as it comes, counted, kept in a bounded window per call, and streamed to the
// session's spill file, with the same bound as a one-shot command's. A call then takes its window: its
// exact size, and where its lines are in the file.
import { Buffer, isAscii } from "node:buffer";
import { StringDecoder } from "node:string_decoder";
import type { SessionEvent, SessionResponse, SessionStore } from "@conch/unified-exec";
import { type SpillPointer, spillPointer, UNSAVED } from "../spill/spill-pointer.js";
import type { SpillFile, SpillStore } from "../spill/spill-store.js";
import { CollectedOutput } from "../text/collected-output.js";
import { cleanTerminalText, TerminalTextFilter } from "../text/terminal-text.js";
import { TextWindow } from "../text/text-window.js";

// A call's text can show this much of each end of what the session printed since the previous call:
// budgets of up to 1 MiB (256K tokens) get their exact cut, larger ones a cut within it. The same
// memory per session as the store's own retention.
const WINDOW_SIDE_BYTES = 512 * 1024;
// A session's spill file is created once its output passes this much, or once a call's text is cut,
// whichever comes first: before that its output is held here. Most sessions print less and never
// need a file; one that prints more gets it early, so memory stays bounded however long it runs.
const IN_MEMORY_BYTES = 64 * 1024;
// How long the output of a session that left the store waits for the call that reads its end. The
// store forgets an exited session in that very call, so the call follows at once; a session closed
// or pruned has no such call, and its file is completed (or deleted, when no text named it) then.
const FINAL_READ_WAIT_MS = 60_000;

/** What one call of a session gets of its output. */
export interface SessionWindow {
  /** The text since the previous call: cleaned of terminal control codes, exact counts, head and tail. */
  readonly output: CollectedOutput;
  /** Lines of the session's output before this call's (the spill file's numbering). */
  readonly lineOffset: number;
  /** Removals the cleaning made in this call's output. */
  readonly removed: number;
  /** The session's spill file, brought up to date, when asked for; else `unsaved`. */
  readonly spill: SpillPointer;
}

class SessionLog {
  readonly tty: boolean;
  // Node's decoder: a character split between chunks waits for its end; invalid UTF-8 becomes U+FFFD.
  readonly #decoder = new StringDecoder("utf8");
  readonly #filter = new TerminalTextFilter();
  readonly #store: SpillStore | null;
  readonly #label: string;
  #window = new TextWindow(WINDOW_SIDE_BYTES, WINDOW_SIDE_BYTES);
  // Lines before the current window: all the newlines of the windows taken.
  #lineOffset = 0;
  // The output so far, until the spill file takes it over.
  #early: Buffer[] | null = [];
  #earlyBytes = 0;
  #spill: Promise<SpillFile> | null = null;
  #spillError: string | null = null;
  // A call's text named the file: it is kept once the session ends.
  #named = false;
  #ended = false;
  /** The call that read the output's end has taken its window. */
  finalTaken = false;
  /** The session left the store. */
  removed = false;
  timer: NodeJS.Timeout | null = null;

  constructor(tty: boolean, store: SpillStore | null, label: string) {
    this.tty = tty;
    this.#store = store;
    this.#label = label;
  }

  write(data: Buffer): void {
    if (this.#ended) return;
    this.#take(this.#filter.write(this.#decoder.write(data), isAscii(data)));
  }

  /** The output is complete: the held line and any character cut short go out. */
  end(): void {
    if (this.#ended) return;
    this.#take(this.#filter.write(this.#decoder.end()) + this.#filter.end());
    this.#ended = true;
  }

  #take(text: string): void {
    if (text === "") return;
    const bytes = Buffer.from(text, "utf8");
    this.#window.push(bytes);
    if (this.#early === null) {
      this.#append(bytes);
      return;
    }
    this.#early.push(bytes);
    this.#earlyBytes += bytes.length;
    if (this.#earlyBytes > IN_MEMORY_BYTES) this.#startSpill();
  }

  #startSpill(): void {
    const early = this.#early ?? [];
    this.#early = null;
    if (this.#store === null) return;
    this.#spill = this.#store.open({ label: this.#label }).then((file) => {
      for (const part of early) file.append(part);
      return file;
    });
    this.#track(this.#spill);
  }

  #append(bytes: Buffer): void {
    if (this.#spill === null || this.#spillError !== null) return;
    this.#track(this.#spill.then((file) => file.append(bytes)));
  }

  // A failing spill must not fail the session: a call's text says the output could not be saved.
  #track(pending: Promise<unknown>): void {
    pending.catch((error: unknown) => {
      this.#spillError ??= error instanceof Error ? error.message : String(error);
    });
  }

  /** This call's window; the next starts after it. A running session's held line goes out now. */
  take(): Omit<SessionWindow, "spill"> {
    if (!this.#ended) this.#take(this.#filter.flush());
    const window = {
      output: this.#window.collected(),
      lineOffset: this.#lineOffset,
      removed: this.#filter.takeRemoved(),
    };
    this.#lineOffset += this.#window.newlines;
    this.#window = new TextWindow(WINDOW_SIDE_BYTES, WINDOW_SIDE_BYTES);
    if (this.#ended) this.finalTaken = true;
    return window;
  }

  /** The spill file, started now if need be, with everything so far on disk. */
  async pointer(): Promise<SpillPointer> {
    if (this.#store === null) return UNSAVED;
    if (this.#early !== null) this.#startSpill();
    if (this.#spill === null || this.#spillError !== null) return spillPointer(null, this.#spillError);
    try {
      const saved = await (await this.#spill).sync();
      this.#named = true;
      return spillPointer(saved, null);
    } catch (error) {
      this.#spillError ??= error instanceof Error ? error.message : String(error);
      return spillPointer(null, this.#spillError);
    }
  }

  /** Completes the file a call named, deletes one none did. */
  async finish(): Promise<void> {
    this.end();
    if (this.timer !== null) clearTimeout(this.timer);
    const pending = this.#spill;
    this.#spill = null;
    if (pending === null) return;
    const file = await pending.catch(() => null);
    if (file === null) return;
    await (this.#named && this.#spillError === null ? file.finish() : file.abort()).catch(() => undefined);
  }
}

/** The output of every session of one store, each call's window of it and each session's spill file. */
export class SessionOutputs {
  readonly #store: SpillStore | null;
  readonly #label: (id: number) => string;
  readonly #logs = new Map<number, SessionLog>();
  readonly #finishing = new Set<Promise<void>>();

  /** `label`: a word for a session's spill file name (the tool that started it), asked as it starts. */
  constructor(sessions: SessionStore, store: SpillStore | null, label: (id: number) => string) {
    this.#store = store;
    this.#label = label;
    sessions.observe((event) => this.#on(event));
  }

  #on(event: SessionEvent): void {
    if (event.type === "started") {
      // An id handed out again: the earlier session's end was read, or nobody will read it now.
      const earlier = this.#logs.get(event.id);
      if (earlier !== undefined) void this.#finish(event.id, earlier);
      this.#logs.set(event.id, new SessionLog(event.info.tty, this.#store, this.#label(event.id)));
      return;
    }
    const log = this.#logs.get(event.id);
    if (log === undefined) return;
    switch (event.type) {
      case "output":
        log.write(event.data);
        return;
      case "exited":
        log.end();
        return;
      case "removed":
        log.end();
        log.removed = true;
        if (log.finalTaken) void this.#finish(event.id, log);
        else log.timer = setTimeout(() => void this.#finish(event.id, log), FINAL_READ_WAIT_MS).unref();
        return;
      default:
    }
  }

  /** Whether session `id` runs on a terminal (its model text is then the rendered screen); null if unknown. */
  tty(id: number): boolean | null {
    return this.#logs.get(id)?.tty ?? null;
  }

  /**
   * The output of the session `response` came from, since the previous call, and its spill pointer when
   * `needsSpill` says the call's text will be cut. A session that left the store before anything was
   * seen of it (none does, but the store's events are not this class's to promise) gets the text as read.
   */
  async take(
    response: SessionResponse,
    needsSpill: (output: CollectedOutput) => boolean,
  ): Promise<SessionWindow> {
    const id = response.sessionId;
    const log = this.#logs.get(id);
    if (log === undefined) {
      const { text, removed } = cleanTerminalText(response.output);
      return { output: CollectedOutput.of(text), lineOffset: 0, removed, spill: UNSAVED };
    }
    const window = log.take();
    const spill = needsSpill(window.output) ? await log.pointer() : UNSAVED;
    if (log.removed && log.finalTaken) await this.#finish(id, log);
    return { ...window, spill };
  }

  #finish(id: number, log: SessionLog): Promise<void> {
    if (this.#logs.get(id) === log) this.#logs.delete(id);
    const done = log.finish();
    this.#finishing.add(done);
    return done.finally(() => this.#finishing.delete(done));
  }

  /** Completes or deletes every session's file now (the store was closed) and waits for it. */
  async close(): Promise<void> {
    for (const [id, log] of this.#logs) void this.#finish(id, log);
    await Promise.all(this.#finishing);
  }
}
