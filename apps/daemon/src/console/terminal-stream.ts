// One session's terminal, streamed to one browser tab: its scrollback first, then its raw output as it
// comes (base64, in `terminal` messages naming the session), its resizes and its end. The tab is throttled, never the
// session: past a rate budget, or while the tab has not taken what was sent, output is dropped and
// counted, and once the tab can take more it gets a `reset`: the session's current scrollback, to redraw
// from (what it shows is then the terminal's latest state, with a note of how much it skipped).
import type { SessionMonitor, SessionView, WatchEvent } from "@conch/orchestrator";
import type { Sink } from "./websocket.js";

/**
 * What one tab is sent of one terminal, per second and at most at once: bytes, and lines (a browser
 * draws a terminal line by line: a flood of short lines costs it far more than its bytes say). More than
 * a person can read, and little enough that a browser drawing eight floods at once leaves the machine's
 * CPU to the sessions.
 */
const RATE_BYTES_PER_S = 128 * 1024;
const BURST_BYTES = 128 * 1024;
const RATE_LINES_PER_S = 2000;
const BURST_LINES = 2000;
/** What a tab that fell behind redraws from: the end of the scrollback, from a line start. */
const RESET_BYTES = 32 * 1024;
const RESET_LINES = 500;

function lineFeeds(data: Buffer): number {
  let count = 0;
  for (let at = data.indexOf(0x0a); at !== -1; at = data.indexOf(0x0a, at + 1)) count++;
  return count;
}

/**
 * The end of `scrollback` a tab redraws from: its last RESET_LINES lines within its last RESET_BYTES,
 * from a line start when there is one in them.
 */
function latest(scrollback: Buffer): Buffer {
  const floor = Math.max(0, scrollback.length - RESET_BYTES);
  let from = floor;
  let at = scrollback.length - 1;
  for (let lines = 0; lines < RESET_LINES && at > 0; lines++) {
    const lineFeed = scrollback.lastIndexOf(0x0a, at - 1);
    if (lineFeed < floor) {
      // Every line since the floor is in: from the start when the floor is the start.
      if (floor === 0) from = 0;
      break;
    }
    from = lineFeed + 1;
    at = lineFeed;
  }
  // Not in the middle of a character.
  while (from < scrollback.length && ((scrollback[from] as number) & 0xc0) === 0x80) from++;
  return scrollback.subarray(from);
}

export class TerminalStream {
  readonly #sink: Sink;
  readonly #monitor: SessionMonitor;
  readonly #id: number;
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  #flushScheduled = false;
  #skipped = 0;
  #budget = BURST_BYTES;
  #lineBudget = BURST_LINES;
  #refilledAt = performance.now();
  #retry: NodeJS.Timeout | null = null;
  #stop: (() => void) | null = null;

  constructor(sink: Sink, monitor: SessionMonitor, id: number) {
    this.#sink = sink;
    this.#monitor = monitor;
    this.#id = id;
  }

  /** Starts streaming `view`'s session; false when it is no longer listed (the tab is told). */
  start(view: SessionView): boolean {
    const watch = this.#monitor.watch(this.#id, (event) => this.#on(event));
    if (watch === null) {
      this.#send("removed", {});
      return false;
    }
    this.#stop = watch.stop;
    this.#sink.onClose(() => this.stop());
    this.#send("init", {
      id: this.#id,
      tty: view.tty,
      cols: view.cols,
      rows: view.rows,
      running: view.running,
      exitCode: view.exitCode,
      data: watch.scrollback.toString("base64"),
    });
    return true;
  }

  /** Stops streaming (the tab looks elsewhere, or is gone). */
  stop(): void {
    this.#stop?.();
    this.#stop = null;
    if (this.#retry !== null) clearTimeout(this.#retry);
    this.#retry = null;
  }

  #send(event: string, data: Record<string, unknown>): void {
    this.#sink.send("terminal", { id: this.#id, event, ...data });
  }

  #on(event: WatchEvent): void {
    switch (event.type) {
      case "output":
        this.#output(event.data);
        return;
      case "resized":
        this.#flush();
        this.#send("resized", { cols: event.cols, rows: event.rows });
        return;
      case "exited":
        // The end of the output is what the person most wants to see: drawn now, whatever was skipped.
        this.#flush();
        this.#resetNow();
        this.#send("exited", { exitCode: event.exitCode });
        return;
      case "removed":
        this.#flush();
        this.#resetNow();
        this.#send("removed", {});
        this.stop();
        return;
    }
  }

  #refill(): void {
    const now = performance.now();
    const seconds = (now - this.#refilledAt) / 1000;
    this.#budget = Math.min(BURST_BYTES, this.#budget + seconds * RATE_BYTES_PER_S);
    this.#lineBudget = Math.min(BURST_LINES, this.#lineBudget + seconds * RATE_LINES_PER_S);
    this.#refilledAt = now;
  }

  #output(data: Buffer): void {
    this.#refill();
    if (this.#stop === null) return;
    const lines = this.#skipped > 0 || this.#budget < data.length ? 0 : lineFeeds(data);
    if (this.#skipped > 0 || this.#sink.behind || this.#budget < data.length || this.#lineBudget < lines) {
      // Dropped: the tab gets the terminal's state again once it can take more.
      this.#skipped += data.length;
      this.#scheduleReset();
      return;
    }
    this.#budget -= data.length;
    this.#lineBudget -= lines;
    // Chunks that arrive together go out as one event.
    this.#pending.push(data);
    this.#pendingBytes += data.length;
    if (!this.#flushScheduled) {
      this.#flushScheduled = true;
      setImmediate(() => this.#flush());
    }
  }

  #flush(): void {
    this.#flushScheduled = false;
    if (this.#pendingBytes === 0) return;
    const data = Buffer.concat(this.#pending, this.#pendingBytes);
    this.#pending = [];
    this.#pendingBytes = 0;
    this.#send("output", { data: data.toString("base64") });
  }

  /** When output was skipped: the session's current scrollback, for the tab to redraw from. */
  #resetNow(): void {
    if (this.#skipped === 0) return;
    this.#pending = [];
    this.#pendingBytes = 0;
    const scrollback = latest(this.#monitor.scrollback(this.#id) ?? Buffer.alloc(0));
    this.#budget -= scrollback.length;
    this.#lineBudget -= lineFeeds(scrollback);
    this.#send("reset", { skipped: this.#skipped, data: scrollback.toString("base64") });
    this.#skipped = 0;
  }

  #scheduleReset(): void {
    if (this.#retry !== null) return;
    // When the tab has taken what it has, and the budget has room for a scrollback, send the state now.
    const attempt = (): void => {
      this.#retry = null;
      if (this.#sink.closed || this.#stop === null) return;
      this.#refill();
      if (this.#sink.behind || this.#budget < BURST_BYTES / 2 || this.#lineBudget < BURST_LINES / 2) {
        this.#retry = setTimeout(attempt, 100);
        return;
      }
      this.#sink.onDrain(() => {
        if (this.#sink.closed || this.#stop === null) return;
        this.#resetNow();
      });
    };
    this.#retry = setTimeout(attempt, 100);
  }
}
