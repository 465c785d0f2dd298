// Server-sent events to one browser tab. The tab reads at its own pace: what it has not taken yet is
// kept only up to a bound, so a slow or stalled tab costs conchd bounded memory and never slows a
// session (whoever writes here drops, it never waits).
import type { ServerResponse } from "node:http";

/** Bytes queued for a tab that reads slower than events come, before it counts as behind. */
const MAX_QUEUED_BYTES = 1024 * 1024;
/** A comment every so often keeps proxies and the browser from thinking the stream died. */
const HEARTBEAT_MS = 15_000;

export class EventStream {
  readonly #res: ServerResponse;
  readonly #heartbeat: NodeJS.Timeout;
  #closed = false;
  readonly #onClose = new Set<() => void>();

  constructor(res: ServerResponse, headers: Readonly<Record<string, string>>) {
    this.#res = res;
    res.writeHead(200, {
      ...headers,
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store",
      connection: "keep-alive",
      "x-accel-buffering": "no",
    });
    res.flushHeaders();
    this.#heartbeat = setInterval(() => this.#write(": keep-alive\n\n"), HEARTBEAT_MS);
    this.#heartbeat.unref();
    const closed = (): void => this.close();
    res.on("close", closed);
    res.on("error", closed);
  }

  get closed(): boolean {
    return this.#closed;
  }

  /**
   * True while the tab has not taken what was sent: more than MAX_QUEUED_BYTES wait in the socket's
   * buffer. A writer of bulk data (a terminal's output) then drops instead of sending.
   */
  get behind(): boolean {
    return this.#res.writableLength > MAX_QUEUED_BYTES;
  }

  /** Calls `listener` once the tab is gone. */
  onClose(listener: () => void): void {
    if (this.#closed) listener();
    else this.#onClose.add(listener);
  }

  /** Calls `listener` once what is queued has gone out (at once when nothing is). */
  onDrain(listener: () => void): void {
    if (this.#closed) return;
    if (this.#res.writableLength === 0) listener();
    else this.#res.once("drain", listener);
  }

  /** Sends one event; its data is JSON. Never throws; after the tab is gone, nothing happens. */
  send(event: string, data: unknown): void {
    this.#write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#heartbeat);
    for (const listener of this.#onClose) listener();
    this.#onClose.clear();
    this.#res.end();
  }

  #write(text: string): void {
    if (this.#closed) return;
    this.#res.write(text);
  }
}
