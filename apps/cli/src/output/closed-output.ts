// conch's own stdout or stderr closed by its reader (`conch ... | head -1`, a client gone): noticed once,
// for every command, so a late write never becomes an unhandled EPIPE; the command stops what it runs
// and conch exits 141, as a shell reports a pipeline's writer killed by SIGPIPE.
import { EXIT_BROKEN_PIPE } from "../exit-codes.js";

const closed = new AbortController();

/** Aborts when conch's stdout or stderr can no longer be written. */
export const outputClosed: AbortSignal = closed.signal;

/**
 * Installs the watch; main calls it once, before any command writes. A write that fails after main has
 * returned (the last JSON line) still sets the exit status. Each stream is watched from its first use:
 * Node makes `process.stdout` on first read (a pipe's socket, a terminal's tty), which a `conch run`
 * that hands its stdout to the command never needs, and a reader's going away shows only on a write.
 */
export function watchOutput(): void {
  for (const name of ["stdout", "stderr"] as const) {
    const descriptor = Object.getOwnPropertyDescriptor(process, name);
    const get = descriptor?.get;
    if (get === undefined || descriptor?.configurable !== true) {
      watch(process[name]);
      continue;
    }
    Object.defineProperty(process, name, {
      configurable: true,
      enumerable: descriptor.enumerable ?? true,
      get() {
        const stream = get.call(process) as NodeJS.WriteStream;
        Object.defineProperty(process, name, { ...descriptor, get });
        watch(stream);
        return stream;
      },
    });
  }
}

function watch(stream: NodeJS.WriteStream): void {
  stream.on("error", () => {
    closed.abort();
    process.exitCode = EXIT_BROKEN_PIPE;
  });
}
