// JSON-RPC 2.0 over a channel of messages (conch-exec/1's transports: one message a line over stdio, one
// a frame over WebSocket): requests in, answers and notifications out. A message that is not a request
// is answered with the error it is.
import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";

/** One connection's messages, whatever carries them. */
export interface MessageChannel {
  send(text: string): void;
  onMessage(listener: (text: string) => void): void;
  /** Called once, when the other side is gone. */
  onClose(listener: () => void): void;
}

export type Handler = (method: string, params: unknown) => Promise<unknown>;

/** A handler's refusal: a JSON-RPC error whose data names the agent's code. */
export interface RpcFailure {
  readonly rpcCode: number;
  readonly message: string;
  readonly code: string;
}

/** Bytes of one message at most. */
export const MAX_MESSAGE: number = 16 * 1024 * 1024;

/** Lines on `input` and `output` (stdio): one JSON message a line. */
export function lineChannel(input: Readable, output: Writable): MessageChannel {
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  return {
    send: (text) => {
      output.write(`${text}\n`);
    },
    onMessage: (listener) => {
      lines.on("line", listener);
    },
    onClose: (listener) => {
      lines.once("close", listener);
    },
  };
}

/** Serves `handler` on `channel` until it closes; resolves then, once every call has answered. */
export function serveChannel(
  channel: MessageChannel,
  handler: Handler,
  failure: (error: unknown) => RpcFailure,
  onInvalid: () => void = () => {},
): Promise<void> {
  const send = (message: unknown): void => channel.send(JSON.stringify(message));
  const pending = new Set<Promise<void>>();
  channel.onMessage((text) => {
    if (text.trim() === "") return;
    let request: { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };
    try {
      if (text.length > MAX_MESSAGE) throw new Error("too long");
      request = JSON.parse(text) as typeof request;
    } catch {
      send({
        jsonrpc: "2.0",
        id: null,
        error: { code: -32700, message: "parse error: a message is one JSON object" },
      });
      onInvalid();
      return;
    }
    const id = typeof request.id === "string" || typeof request.id === "number" ? request.id : null;
    if (
      typeof request !== "object" ||
      request === null ||
      request.jsonrpc !== "2.0" ||
      typeof request.method !== "string"
    ) {
      send({
        jsonrpc: "2.0",
        id,
        error: { code: -32600, message: 'invalid request: expected {"jsonrpc":"2.0","method":...}' },
      });
      onInvalid();
      return;
    }
    const done = handler(request.method, request.params ?? {}).then(
      (result) => {
        if (id !== null) send({ jsonrpc: "2.0", id, result: result ?? null });
      },
      (error: unknown) => {
        const { rpcCode, message, code } = failure(error);
        if (id !== null) send({ jsonrpc: "2.0", id, error: { code: rpcCode, message, data: { code } } });
      },
    );
    pending.add(done);
    void done.finally(() => pending.delete(done));
  });
  return new Promise((resolve) => {
    channel.onClose(() => {
      void Promise.allSettled([...pending]).then(() => resolve());
    });
  });
}
