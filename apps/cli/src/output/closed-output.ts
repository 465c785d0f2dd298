// conch's own stdout or stderr closed by its reader (`conch ... | head -1`, a client gone): noticed once,
// for every command, so a late write never becomes an unhandled EPIPE; the command stops what it runs
// and conch exits 141, as a shell reports a pipeline's writer killed by SIGPIPE.
import { EXIT_BROKEN_PIPE } from "../exit-codes.js";

const closed = new AbortController();

/** Aborts when conch's stdout or stderr can no longer be written. */
export const outputClosed: AbortSignal = closed.signal;

/**
 * Installs the watch; main calls it once, before any command writes. A write that fails after main has
 * returned (the last JSON line) still sets the exit status.
 */
export function watchOutput(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", () => {
      closed.abort();
      process.exitCode = EXIT_BROKEN_PIPE;
    });
  }
}
