// JSON-RPC 2.0 over a byte stream, one message a line (conch-exec/1's stdio transport): requests in,
// answers and notifications out. A line that is not a request is answered with the error it is.
import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";

export type Handler = (method: string, params: unknown) => Promise<unknown>;

/** A handler's refusal: a JSON-RPC error whose data names the agent's code. */
export interface RpcFailure {
  readonly rpcCode: number;
  readonly message: string;
  readonly code: string;
}

const MAX_LINE = 16 * 1024 * 1024;

/** Serves `handler` on `input`/`output` until `input` ends; resolves then. */
export function serveLines(
  input: Readable,
  output: Writable,
  handler: Handler,
  failure: (error: unknown) => RpcFailure,
): Promise<void> {
  const send = (message: unknown): void => {
    output.write(`${JSON.stringify(message)}\n`);
  };
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  const pending = new Set<Promise<void>>();
  lines.on("line", (line) => {
    if (line.trim() === "") return;
    let request: { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };
    try {
      if (line.length > MAX_LINE) throw new Error("too long");
      request = JSON.parse(line) as typeof request;
    } catch {
      send({
        jsonrpc: "2.0",
        id: null,
        error: { code: -32700, message: "parse error: a line is one JSON message" },
      });
      return;
    }
    const id = typeof request.id === "string" || typeof request.id === "number" ? request.id : null;
    if (request.jsonrpc !== "2.0" || typeof request.method !== "string") {
      send({
        jsonrpc: "2.0",
        id,
        error: { code: -32600, message: 'invalid request: expected {"jsonrpc":"2.0","method":...}' },
      });
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
    lines.once("close", () => {
      void Promise.allSettled([...pending]).then(() => resolve());
    });
  });
}
