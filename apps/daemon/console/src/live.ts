// The tab's one WebSocket to the daemon, down which it follows everything live: the session list, the
// approvals, the audit log, the recordings, and the terminals it watches. (One connection for all of
// it: a browser keeps at most six HTTP/1.1 connections to a host, and a stream per thing watched would
// use them up in three tabs.) When the connection drops it is opened again, a second later, and the
// terminal being watched is asked for again (its scrollback comes first, so nothing is missing). The
// session secret goes as a subprotocol: a page can set no header on a WebSocket.
import { websocketProtocols } from "./api.js";

type Listener = (data: unknown) => void;

const listeners = new Map<string, Listener>();
let terminal: { id: number; listener: (message: TerminalMessage) => void } | null = null;
let socket: WebSocket | null = null;
let onDown: (() => Promise<boolean>) | null = null;

export interface TerminalMessage {
  readonly id: number;
  readonly event: string;
  readonly [field: string]: unknown;
}

/** Calls `listener` with every `event` the daemon sends. */
export function on(event: string, listener: Listener): void {
  listeners.set(event, listener);
}

function send(message: unknown): void {
  if (socket?.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
}

/** Watches session `id`'s terminal (instead of any other): init, output, resized, reset, exited, removed. */
export function watchTerminal(id: number, listener: (message: TerminalMessage) => void): void {
  if (terminal !== null && terminal.id !== id) send({ type: "unwatch", id: terminal.id });
  terminal = { id, listener };
  send({ type: "watch", id });
}

export function unwatchTerminal(): void {
  if (terminal !== null) send({ type: "unwatch", id: terminal.id });
  terminal = null;
}

/**
 * Opens the connection, and again whenever it drops while `down` (told each time) answers true.
 */
export function connect(down: () => Promise<boolean>): void {
  onDown = down;
  const ws = new WebSocket(
    `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/console/api/ws`,
    websocketProtocols(),
  );
  socket = ws;
  ws.onopen = () => {
    if (terminal !== null) send({ type: "watch", id: terminal.id });
  };
  ws.onmessage = (event) => {
    const { event: name, data } = JSON.parse(String(event.data)) as { event: string; data: unknown };
    if (name === "terminal") {
      const message = data as TerminalMessage;
      if (terminal !== null && message.id === terminal.id) terminal.listener(message);
      return;
    }
    listeners.get(name)?.(data);
  };
  ws.onclose = () => {
    if (socket !== ws) return;
    socket = null;
    void (onDown?.() ?? Promise.resolve(true)).then((again) => {
      if (again) setTimeout(() => connect(down), 1000);
    });
  };
}
