// conch-exec/1 over WebSocket, one JSON-RPC message a frame, on a loopback or any TCP address, or on a
// unix socket only its owner may open (a container's agent, reached through a socket on a shared
// volume). Who may drive the agent is the binding token's business (initialize), not the address's.
import { chmodSync, lstatSync, unlinkSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { type WebSocket, WebSocketServer } from "ws";
import type { ExecAgent } from "./agent.js";
import { MAX_MESSAGE, type MessageChannel, type RpcFailure, serveChannel } from "./rpc.js";

export type ListenAddress = { readonly host: string; readonly port: number } | { readonly path: string };

/** `ws://HOST:PORT` (PORT 0: any free one) or `unix:/ABSOLUTE/PATH`. */
export function parseListen(text: string): ListenAddress {
  if (text.startsWith("unix:")) {
    const path = text.slice("unix:".length);
    if (!path.startsWith("/")) throw new Error(`--listen: expected unix:/ABSOLUTE/PATH, received ${text}`);
    return { path };
  }
  const match = /^ws:\/\/(\[[0-9a-fA-F:.]+\]|[^/:[\]]+):(\d{1,5})\/?$/.exec(text);
  const port = match === null ? Number.NaN : Number(match[2]);
  if (match === null || port > 65535) {
    throw new Error(`--listen: expected ws://HOST:PORT or unix:/ABSOLUTE/PATH, received ${text}`);
  }
  return { host: (match[1] as string).replace(/^\[|\]$/g, ""), port };
}

/** Bytes of answers a connection may leave unread before it is dropped (a client that never reads). */
const MAX_UNREAD_BYTES = 16 * 1024 * 1024;
/** How long a connection may take to initialize, and how many may be waiting to at once. */
const INITIALIZE_WITHIN_MS = 10_000;
const MAX_UNINITIALIZED = 8;

function wsChannel(socket: WebSocket): MessageChannel {
  return {
    send: (text) => {
      if (socket.readyState !== socket.OPEN) return;
      if (socket.bufferedAmount > MAX_UNREAD_BYTES) {
        socket.terminate();
        return;
      }
      socket.send(text);
    },
    onMessage: (listener) => {
      socket.on("message", (data, isBinary) => {
        if (!isBinary) listener(data.toString());
      });
    },
    onClose: (listener) => {
      socket.once("close", () => listener());
    },
  };
}

export interface Listening {
  /** Where a conchd reaches the agent (`ws://127.0.0.1:PORT`, `unix:/path`). */
  readonly url: string;
  close(): Promise<void>;
}

export async function listen(
  address: ListenAddress,
  agent: ExecAgent,
  failure: (error: unknown) => RpcFailure,
): Promise<Listening> {
  const http: Server = createServer((_, response) => {
    response.writeHead(426, { "content-type": "text/plain" }).end("conch-exec/1: a WebSocket endpoint\n");
  });
  const wss = new WebSocketServer({ server: http, maxPayload: MAX_MESSAGE });
  // Connections not yet initialized, oldest first.
  const waiting = new Set<WebSocket>();
  wss.on("connection", (socket) => {
    // Who has not proven to be its conchd gets little: a few seconds, one mistake, and a place among a
    // few, the oldest of which gives way to the newest (so a process holding them all cannot lock its
    // conchd out).
    if (waiting.size >= MAX_UNINITIALIZED) {
      const oldest = waiting.values().next().value as WebSocket;
      waiting.delete(oldest);
      oldest.terminate();
    }
    waiting.add(socket);
    const proven = (): void => {
      waiting.delete(socket);
    };
    const deadline = setTimeout(() => socket.terminate(), INITIALIZE_WITHIN_MS);
    const channel = wsChannel(socket);
    const connection = agent.connect((method, params) =>
      channel.send(JSON.stringify({ jsonrpc: "2.0", method, params })),
    );
    socket.on("error", () => socket.terminate());
    // Detached the moment the socket goes, not once its calls have answered: a long poll still waiting
    // must not keep a dead connection attached (the next conchd would be refused as a second one).
    socket.once("close", () => {
      clearTimeout(deadline);
      proven();
      connection.closed();
    });
    const call = async (method: string, params: unknown): Promise<unknown> => {
      try {
        const result = await connection.call(method, params);
        if (connection.initialized) {
          clearTimeout(deadline);
          proven();
        }
        return result;
      } catch (error) {
        refuse();
        throw error;
      }
    };
    // Anything but a clean initialize first: answered, then the connection is closed.
    const refuse = (): void => {
      if (!connection.initialized) {
        setImmediate(() => socket.close(1008, "initialize first, with a valid binding"));
      }
    };
    void serveChannel(channel, call, failure, refuse);
  });
  if ("path" in address) {
    // Only a socket left by an earlier agent is replaced; any other file there is not touched.
    try {
      if (lstatSync(address.path).isSocket()) unlinkSync(address.path);
    } catch {
      // Nothing there.
    }
  }
  // The socket is created owner-only (no moment at the default mode for another user to connect in).
  const umask = "path" in address ? process.umask(0o177) : null;
  try {
    await new Promise<void>((resolve, reject) => {
      http.once("error", reject);
      if ("path" in address) http.listen(address.path, () => resolve());
      else http.listen(address.port, address.host, () => resolve());
    });
  } finally {
    if (umask !== null) process.umask(umask);
  }
  let url: string;
  if ("path" in address) {
    chmodSync(address.path, 0o600);
    url = `unix:${address.path}`;
  } else {
    const bound = http.address();
    const port = typeof bound === "object" && bound !== null ? bound.port : address.port;
    url = `ws://${address.host.includes(":") ? `[${address.host}]` : address.host}:${port}`;
  }
  return {
    url,
    close: async () => {
      for (const client of wss.clients) client.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
