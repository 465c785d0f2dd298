import type { Readable, Writable } from "node:stream";
import { StdioServerTransport, serveStdio } from "@modelcontextprotocol/server/stdio";
import type { Daemon } from "../daemon.js";
import { guardedStdin, MAX_MESSAGE_BYTES } from "./stdio-guard.js";

/** The streams of one stdio client, and where the transport's errors go. */
export interface StdioStreams {
  /** What the client writes: JSON-RPC, one message per line (the process's stdin). */
  readonly input: Readable;
  /** Where the answers go (the process's stdout). */
  readonly output: Writable;
  readonly onerror: (error: Error) => void;
}

/** One client served on stdio. */
export interface StdioServing {
  /** Resolves once the input has ended: the client went away. */
  readonly ended: Promise<void>;
  /** Closes the MCP connection, aborting the calls in flight. The daemon is left to its owner. */
  close(): Promise<void>;
}

/**
 * Serves the daemon's tools to one client over a pair of streams, until the input ends or `close()`.
 * Lines too long or not JSON are answered with a JSON-RPC error and the server goes on (stdio-guard.ts).
 * Signals, the parent process and the daemon's lifetime are the caller's: this only speaks MCP.
 */
export function serveOnStdio(daemon: Daemon, { input, output, onerror }: StdioStreams): StdioServing {
  // The SDK's transport waits for each write that found the pipe full with its own 'drain' and 'error'
  // listeners, removed once it is written: a burst of answers to a slow reader is no leak, and Node's
  // warning about it (on stderr, which clients log) would say it is.
  output.setMaxListeners(0);
  const transport = new StdioServerTransport(guardedStdin(input, output), output, {
    maxBufferSize: MAX_MESSAGE_BYTES * 2,
  });
  // The factory may be called more than once (serveStdio probes the protocol era with a throwaway
  // instance): every instance shares the one runtime, so sessions never depend on which one answered.
  const connection = serveStdio(() => daemon.newServer(), { transport, onerror });
  // serveStdio owns the transport's onclose (set above); the input's end closes the transport, which is
  // the client going away.
  let ended: () => void = () => {};
  const endedPromise = new Promise<void>((resolve) => {
    ended = resolve;
  });
  const closed = transport.onclose;
  transport.onclose = () => {
    closed?.();
    ended();
  };
  return { ended: endedPromise, close: () => connection.close() };
}
