import { createDaemon, type ServeOptions, serveOnStdio } from "@conch/mcp";
import { visibleText } from "@conch/protocol";
import { say, untilStopped } from "./lifecycle.js";

/**
 * Serves the profile's tools to one client over stdin/stdout until stdin ends, SIGTERM/SIGINT arrives
 * or the parent is gone; then kills every session's process tree, flushes the audit log and resolves
 * with exit code 0. Sessions belong to this one client (this process): they live as long as it does.
 */
export async function serveStdio(options: ServeOptions): Promise<number> {
  const daemon = await createDaemon(options, { log: say });
  const stopped = untilStopped();
  const serving = serveOnStdio(daemon, {
    input: process.stdin,
    output: process.stdout,
    onerror: (error) => say(`error: ${visibleText(error.message)}`),
  });
  say("ready on stdio");
  await Promise.race([stopped, serving.ended]);
  await serving.close();
  await daemon.close();
  return 0;
}
