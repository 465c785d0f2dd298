// A WebSocket (RFC 6455) for one console tab: everything the tab follows goes down one connection. Not
// server-sent events, one stream per thing watched: a browser keeps at most six HTTP/1.1 connections to
// a host, so three tabs, each following the daemon and a terminal, would leave none for a click. A
// WebSocket is outside that pool. The server sends text frames; the tab sends small masked text frames
// (what to watch). A tab that reads slower than it is sent to is `behind` past a bound: writers of bulk
// data then drop instead of queueing, so a slow tab costs bounded memory and never slows a session.
import { createHash } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";

const GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
/** Bytes queued for a tab, past which it counts as behind. */
const MAX_QUEUED_BYTES = 1024 * 1024;
/** The largest message a tab may send (they are a few dozen bytes). */
const MAX_MESSAGE_BYTES = 64 * 1024;
const OPCODE = { continuation: 0, text: 1, binary: 2, close: 8, ping: 9, pong: 10 } as const;

/** What one side of the console sends the tab: an event name and its data (JSON). */
export interface Sink {
  readonly closed: boolean;
  /** True while the tab has not taken MAX_QUEUED_BYTES sent to it. */
  readonly behind: boolean;
  send(event: string, data: unknown): void;
  /** Calls `listener` once what is queued has gone out (at once when nothing is). */
  onDrain(listener: () => void): void;
  onClose(listener: () => void): void;
}

/** Whether `req` asks to open a WebSocket. */
export function isWebSocketRequest(req: IncomingMessage): boolean {
  return (
    (req.headers.upgrade ?? "").toLowerCase() === "websocket" &&
    typeof req.headers["sec-websocket-key"] === "string" &&
    req.headers["sec-websocket-version"] === "13"
  );
}

const STATUS_TEXT: Readonly<Record<number, string>> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  503: "Service Unavailable",
};

/** Refuses an upgrade with an HTTP status and a JSON body, then closes the socket. */
export function refuseUpgrade(socket: Duplex, status: number, message: string): void {
  const body = JSON.stringify({ error: message });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? "Bad Request"}\r\n` +
      `content-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

function frame(opcode: number, payload: Buffer): Buffer {
  const length = payload.length;
  const head = length < 126 ? Buffer.alloc(2) : length < 65_536 ? Buffer.alloc(4) : Buffer.alloc(10);
  head[0] = 0x80 | opcode;
  if (length < 126) head[1] = length;
  else if (length < 65_536) {
    head[1] = 126;
    head.writeUInt16BE(length, 2);
  } else {
    head[1] = 127;
    head.writeBigUInt64BE(BigInt(length), 2);
  }
  return Buffer.concat([head, payload]);
}

export class WebSocketConnection implements Sink {
  readonly #socket: Duplex;
  #buffer: Buffer = Buffer.alloc(0);
  #closed = false;
  readonly #onClose = new Set<() => void>();
  readonly #onMessage: (message: unknown) => void;

  /**
   * Completes the handshake of `req` on `socket`, answering with subprotocol `protocol` when given (one
   * the tab offered: a browser drops a connection whose answer names none of its offers); `onMessage`
   * gets each JSON message the tab sends.
   */
  constructor(
    req: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    onMessage: (message: unknown) => void,
    protocol: string | null = null,
  ) {
    this.#socket = socket;
    this.#onMessage = onMessage;
    const accept = createHash("sha1")
      .update(`${req.headers["sec-websocket-key"] as string}${GUID}`)
      .digest("base64");
    socket.write(
      "HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: Upgrade\r\n" +
        `sec-websocket-accept: ${accept}\r\n` +
        (protocol === null ? "" : `sec-websocket-protocol: ${protocol}\r\n`) +
        "\r\n",
    );
    socket.on("data", (chunk: Buffer) => this.#receive(chunk));
    socket.on("close", () => this.#gone());
    socket.on("error", () => this.#gone());
    // A peer that hangs up its side gets ours hung up too: a half-open socket would hold the server open.
    socket.on("end", () => {
      socket.end();
      this.#gone();
    });
    if (head.length > 0) this.#receive(head);
  }

  get closed(): boolean {
    return this.#closed;
  }

  get behind(): boolean {
    return this.#socket.writableLength > MAX_QUEUED_BYTES;
  }

  send(event: string, data: unknown): void {
    if (this.#closed) return;
    this.#socket.write(frame(OPCODE.text, Buffer.from(JSON.stringify({ event, data }))));
  }

  onDrain(listener: () => void): void {
    if (this.#closed) return;
    // 'drain' comes only after a write the socket refused; what it queued below its mark is taken.
    if (this.#socket.writableLength === 0 || !this.#socket.writableNeedDrain) listener();
    else this.#socket.once("drain", listener);
  }

  onClose(listener: () => void): void {
    if (this.#closed) listener();
    else this.#onClose.add(listener);
  }

  /** Says goodbye (close frame 1001, going away) and ends the connection. */
  close(): void {
    if (this.#closed) return;
    const code = Buffer.alloc(2);
    code.writeUInt16BE(1001);
    this.#socket.end(frame(OPCODE.close, code));
    // The tab answers with its own close frame and hangs up; one that does not is hung up on.
    setTimeout(() => this.#socket.destroy(), 1000).unref();
    this.#gone();
  }

  #gone(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const listener of this.#onClose) listener();
    this.#onClose.clear();
  }

  /** A protocol error: close 1002 (or 1009 when too big) and stop listening. */
  #fail(code: number): void {
    const payload = Buffer.alloc(2);
    payload.writeUInt16BE(code);
    this.#socket.end(frame(OPCODE.close, payload));
    this.#gone();
  }

  #receive(chunk: Buffer): void {
    if (this.#closed) return;
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    for (;;) {
      const buffer = this.#buffer;
      if (buffer.length < 2) return;
      const first = buffer[0] as number;
      const second = buffer[1] as number;
      const fin = (first & 0x80) !== 0;
      const opcode = first & 0x0f;
      const masked = (second & 0x80) !== 0;
      let length = second & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (buffer.length < 4) return;
        length = buffer.readUInt16BE(2);
        offset = 4;
      } else if (length === 127) {
        if (buffer.length < 10) return;
        const long = buffer.readBigUInt64BE(2);
        if (long > BigInt(MAX_MESSAGE_BYTES)) {
          this.#fail(1009);
          return;
        }
        length = Number(long);
        offset = 10;
      }
      if (length > MAX_MESSAGE_BYTES) {
        this.#fail(1009);
        return;
      }
      // A browser masks every frame it sends (RFC 6455 5.1); fragments are no tab's to send here.
      if (!masked || !fin) {
        this.#fail(1002);
        return;
      }
      if (buffer.length < offset + 4 + length) return;
      const mask = buffer.subarray(offset, offset + 4);
      const payload = Buffer.from(buffer.subarray(offset + 4, offset + 4 + length));
      for (let i = 0; i < payload.length; i++) payload[i] = (payload[i] as number) ^ (mask[i & 3] as number);
      this.#buffer = buffer.subarray(offset + 4 + length);
      switch (opcode) {
        case OPCODE.text: {
          let message: unknown;
          try {
            message = JSON.parse(payload.toString("utf8"));
          } catch {
            this.#fail(1007);
            return;
          }
          this.#onMessage(message);
          break;
        }
        case OPCODE.ping:
          this.#socket.write(frame(OPCODE.pong, payload));
          break;
        case OPCODE.pong:
          break;
        case OPCODE.close:
          this.#socket.end(frame(OPCODE.close, payload.subarray(0, 2)));
          this.#gone();
          return;
        default: {
          this.#fail(1003);
          return;
        }
      }
    }
  }
}
