import { visibleText } from "@conch/protocol";
import { StdioServerTransport, serveStdio } from "@modelcontextprotocol/server/stdio";
import { createDaemon, say, watchParent } from "./daemon.js";
import type { ServeOptions } from "./options.js";
import { guardedStdin, MAX_MESSAGE_BYTES } from "./stdio-guard.js";

const STOP_SIGNALS = ["SIGTERM", "SIGINT"] as const;

/**
 * Serves the profile's tools to one client over stdin/stdout until stdin ends or SIGTERM/SIGINT
 * arrives; then kills every session's process tree, flushes the audit log and resolves with exit
 * code 0. Sessions belong to this one client (this process): they live as long as it does.
 */
export async function serveOnStdio(options: ServeOptions): Promise<number> {
  const daemon = await createDaemon(options);

  let stop: (why: string) => void = () => {};
  const stopped = new Promise<string>((resolve) => {
    stop = resolve;
  });
  // Installed for good: a second signal while sessions are being killed must not cut that short.
  for (const signal of STOP_SIGNALS) process.on(signal, () => stop(signal));
  watchParent(stop);

  // The SDK's transport waits for each write that found the pipe full with its own 'drain' and 'error'
  // listeners, removed once it is written: a burst of answers to a slow reader is no leak, and Node's
  // warning about it (on stderr, which clients log) would say it is.
  process.stdout.setMaxListeners(0);
  // Lines too long or not JSON are answered here; only whole JSON lines reach the SDK's transport.
  const transport = new StdioServerTransport(guardedStdin(process.stdin, process.stdout), process.stdout, {
    maxBufferSize: MAX_MESSAGE_BYTES * 2,
  });
  // The factory may be called more than once (serveStdio probes the protocol era with a throwaway
  // instance): every instance shares the one runtime, so sessions never depend on which one answered.
  const connection = serveStdio(() => daemon.newServer(), {
    transport,
    onerror: (error) => say(`error: ${visibleText(error.message)}`),
  });
  // serveStdio owns the transport's onclose (set above); stdin's end closes the transport, which is the
  // client going away.
  const closed = transport.onclose;
  transport.onclose = () => {
    closed?.();
    stop("stdin closed");
  };
  say("ready on stdio");

  await stopped;
  await connection.close();
  await daemon.close();
  return 0;
}
