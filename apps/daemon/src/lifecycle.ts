// conchd's life as a process: its lines on stderr, and what ends it (a signal, or its parent gone).

const STOP_SIGNALS = ["SIGTERM", "SIGINT"] as const;

// How often conchd checks that the process that started it is still there.
const PARENT_CHECK_MS = 1000;

/** conchd's own line on stderr (stdout may be the MCP stream). */
export function say(line: string): void {
  process.stderr.write(`conchd: ${line}\n`);
}

/**
 * Resolves, with why, at SIGTERM or SIGINT, or once the process that started conchd is gone (conchd is
 * then reparented, and its ppid changes): a client that died without closing stdin, or a supervisor
 * killed with SIGKILL, must not leave conchd and its sessions running. The parent is not watched when
 * conchd was started by init. The signal handlers stay installed: a second signal while sessions are
 * being killed must not cut that short.
 */
export function untilStopped(): Promise<string> {
  return new Promise((resolve) => {
    for (const signal of STOP_SIGNALS) process.on(signal, () => resolve(signal));
    const parent = process.ppid;
    if (parent <= 1) return;
    const timer = setInterval(() => {
      if (process.ppid !== parent) {
        clearInterval(timer);
        resolve("parent gone");
      }
    }, PARENT_CHECK_MS);
    timer.unref();
  });
}
