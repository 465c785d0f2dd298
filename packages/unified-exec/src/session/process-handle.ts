import type { ChildProcess } from "node:child_process";
import {
  closeSync,
  constants as fsConstants,
  mkdtempSync,
  openSync,
  readSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { constants, tmpdir } from "node:os";
import { join } from "node:path";
import { exitCodeOf, type SpawnSpec } from "@conch/exec-core";

/** A started process, PTY or pipes, seen the same way by a session. */
export interface ProcessHandle {
  readonly pid: number;
  /** Writes to the terminal; only PTY handles have one. */
  write(data: string): void;
  resize(cols: number, rows: number): void;
  /** Frees the terminal or pipes once the process is gone. */
  close(): void;
  /**
   * Stops reading its output (the process blocks once the kernel's buffer is full) until `resume`: for
   * a reader that must not lose output and cannot keep up.
   */
  pause(): void;
  resume(): void;
  /** What the prepared spec's `reportFd` said (a sandbox helper's limits), read at the exit; null without one. */
  readonly report: Promise<string> | null;
}

export interface HandleEvents {
  onData(chunk: Buffer): void;
  /** The root process exited; its output may still be draining, and what it started may still run. */
  onRootExit(): void;
  /** The exit status as a shell reports it (128+N after signal N). */
  onExit(exitCode: number, signal: NodeJS.Signals | null): void;
}

type NodePty = typeof import("@lydell/node-pty");
let nodePty: NodePty | null = null;

// node-pty's API from @lydell/node-pty, which ships prebuilt binaries per platform (linux and darwin,
// x64 and arm64) as optional dependencies, so installing needs no compiler and no download of Node's
// headers. A native module: loaded on the first PTY session, never by importing this package.
function loadNodePty(): NodePty {
  nodePty ??= createRequire(import.meta.url)("@lydell/node-pty") as NodePty;
  return nodePty;
}

/**
 * node-pty cannot hand a child extra descriptors, and `bwrap --seccomp 3` reads its filter from one. So
 * each extra descriptor's data goes to a private file, and a shell opens it as fd 3, 4, ... , deletes it,
 * and execs the real command: nothing stays on disk and nothing else can open it meanwhile.
 */
function withExtraFdsFromFiles(spec: SpawnSpec): {
  argv: string[];
  cleanup: () => void;
  readReport: () => string;
} {
  if (spec.extraFds.length === 0 && spec.reportFd === undefined) {
    return { argv: spec.argv, cleanup: () => {}, readReport: () => "" };
  }
  const dir = mkdtempSync(join(tmpdir(), "conch-fds-"));
  // Created exclusively (`wx`): nothing planted in the fresh directory is followed.
  const files = spec.extraFds.map((data, index) => {
    const file = join(dir, `fd${3 + index}`);
    writeFileSync(file, data, { mode: 0o600, flag: "wx" });
    return file;
  });
  const opens = files.map((_, index) => `exec ${3 + index}<"$${index + 1}"`);
  // The report descriptor: a file of its own, which this process holds open to read at the exit; the
  // script removes its name as soon as the descriptor is open, as it does the others, so nothing is
  // left behind and nothing else can open it afterwards.
  let reportFd: number | null = null;
  const report = join(dir, "report");
  if (spec.reportFd !== undefined) {
    writeFileSync(report, "", { mode: 0o600, flag: "wx" });
    reportFd = openSync(report, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW);
    opens.push(`exec ${spec.reportFd}>>"${report}"`, `rm -f "${report}"`);
  }
  // Only the first N positional parameters are files; the rest is the command.
  const script = `${opens.join("; ")}; i=0; for f; do [ "$i" -lt ${files.length} ] && rm -f "$f"; i=$((i+1)); done; rmdir "${dir}" 2>/dev/null; shift ${files.length}; exec "$@"`;
  return {
    argv: ["/bin/sh", "-c", script, "sh", ...files, ...spec.argv],
    cleanup: () => {
      if (reportFd !== null) closeSync(reportFd);
      reportFd = null;
      rmSync(dir, { recursive: true, force: true });
    },
    readReport: () => {
      if (reportFd === null) return "";
      try {
        const buffer = Buffer.alloc(64 * 1024);
        return buffer.toString("utf8", 0, readSync(reportFd, buffer, 0, buffer.length, 0));
      } catch {
        return "";
      }
    },
  };
}

/**
 * Starts `spec` on a new pseudo-terminal of `cols` x `rows`; the child leads its session and group. The
 * launcher for exec-core's `spawnProcess`, which names a failure (this throws node-pty's error as it is).
 */
export function spawnPty(spec: SpawnSpec, cols: number, rows: number, events: HandleEvents): ProcessHandle {
  const pty = loadNodePty();
  const { argv, cleanup, readReport } = withExtraFdsFromFiles(spec);
  let reported: (text: string) => void = () => {};
  const report = spec.reportFd === undefined ? null : new Promise<string>((resolve) => (reported = resolve));
  const [file, ...args] = argv as [string, ...string[]];
  let term: import("@lydell/node-pty").IPty;
  try {
    term = pty.spawn(file, args, {
      name: spec.env.TERM ?? "xterm-256color",
      cols,
      rows,
      cwd: spec.cwd,
      env: spec.env,
      encoding: null,
    } as import("@lydell/node-pty").IPtyForkOptions);
  } catch (cause) {
    cleanup();
    throw cause;
  }
  holdUntilDrained(term);
  term.onData((data: string | Buffer) => events.onData(typeof data === "string" ? Buffer.from(data) : data));
  let exited = false;
  term.onExit(({ exitCode, signal }) => {
    exited = true;
    reported(readReport());
    cleanup();
    events.onRootExit();
    const name = signal ? (signalName(signal) ?? null) : null;
    events.onExit(name === null ? exitCode : exitCodeOf(null, name), name);
  });
  return {
    pid: term.pid,
    report,
    write: (data) => term.write(data),
    resize: (c, r) => term.resize(c, r),
    pause: () => term.pause(),
    resume: () => term.resume(),
    // After the exit the terminal closes by itself, and the reaped pid may already name another
    // process: it is only hung up while the child still holds it.
    close: () => {
      if (exited) return;
      try {
        term.kill("SIGHUP");
      } catch {
        // Already gone.
      }
    },
  };
}

// After the child's exit: how long the terminal must have said nothing before it counts as read out.
const PTY_QUIET_MS = 20;
// And the longest that may take, should output never stop (a writer that escaped into the background).
const PTY_DRAIN_MAX_MS = 5000;

/**
 * Makes node-pty deliver every byte the child wrote before it exited. Two things lose the end of a large
 * output (the last 8-14 KB of 128 KB, measured): when the child's exit closes the terminal's last writer,
 * Linux answers a non-blocking read of the master EIO while part of the output is still on its way to
 * it, and node-pty destroys its read socket 200 ms after the exit anyway. So Conch holds the terminal's
 * other end (the slave) open itself: the master never sees EIO while output remains. Once the child has
 * exited and the terminal has been quiet for PTY_QUIET_MS (checked after the event loop's poll phase, so
 * output already waiting is read first), Conch closes its end; the master then reads EIO, and node-pty
 * reports the exit. node-pty's own destroy waits for that.
 *
 * The child's exit is seen the moment node-pty learns of it (it then waits for its socket's `close`),
 * or at its 200 ms destroy. Relies on node-pty's `_socket` and `ptsName`: without them, nothing changes.
 */
function holdUntilDrained(term: import("@lydell/node-pty").IPty): void {
  const internals = term as unknown as { _socket?: import("node:net").Socket; ptsName?: unknown };
  const socket = internals._socket;
  const pts = internals.ptsName;
  if (socket === undefined || typeof socket.destroy !== "function" || typeof pts !== "string") return;
  let slave: number | null;
  try {
    slave = openSync(pts, fsConstants.O_RDWR | fsConstants.O_NOCTTY);
  } catch {
    return;
  }
  let lastData = performance.now();
  socket.on("data", () => {
    lastData = performance.now();
  });
  const release = (): void => {
    if (slave === null) return;
    const fd = slave;
    slave = null;
    try {
      closeSync(fd);
    } catch {
      // Closed already.
    }
  };
  socket.once("close", release);
  let childExited: number | null = null;
  const onChildExit = (): void => {
    if (childExited !== null) return;
    childExited = performance.now();
    const check = (): void => {
      if (isAlive(term.pid)) {
        // Not the child's exit after all (another `close` listener): wait for the real one.
        childExited = null;
        return;
      }
      // After a poll phase: output the kernel already holds for the socket has been read by now.
      setImmediate(() => {
        const now = performance.now();
        if (now - lastData >= PTY_QUIET_MS || now - (childExited as number) >= PTY_DRAIN_MAX_MS) release();
        else setTimeout(check, PTY_QUIET_MS);
      });
    };
    setTimeout(check, PTY_QUIET_MS);
  };
  // node-pty waits for its socket's `close` once the child has exited: that listener is the first sign.
  socket.on("newListener", (event: string | symbol) => {
    if (event === "close") onChildExit();
  });
  const destroy = socket.destroy.bind(socket);
  socket.destroy = (error?: Error) => {
    onChildExit();
    const attempt = (): void => {
      if (socket.destroyed) return;
      if (slave === null) destroy(error);
      else setTimeout(attempt, PTY_QUIET_MS);
    };
    attempt();
    return socket;
  };
}

/** Whether `pid` is still there (node-pty reaps its child before it reports the exit). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function signalName(signal: number): NodeJS.Signals | undefined {
  const { signals } = constants;
  return (Object.keys(signals) as NodeJS.Signals[]).find((name) => signals[name] === signal);
}

/**
 * Watches a child that exec-core's `spawnProcess` started (stdin at /dev/null, stdout and stderr on
 * pipes, in a new session and process group): its output merged in arrival order, then its exit.
 */
export function pipeHandle(
  child: ChildProcess,
  events: HandleEvents,
  report: Promise<string> | null = null,
): ProcessHandle {
  child.stdout?.on("data", (chunk: Buffer) => events.onData(chunk));
  child.stderr?.on("data", (chunk: Buffer) => events.onData(chunk));
  let exited: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  let open = 2;
  const settle = (): void => {
    if (exited !== null && open === 0) events.onExit(exitCodeOf(exited.code, exited.signal), exited.signal);
  };
  child.stdout?.once("close", () => {
    open--;
    settle();
  });
  child.stderr?.once("close", () => {
    open--;
    settle();
  });
  child.once("exit", (code, signal) => {
    exited = { code, signal };
    events.onRootExit();
    settle();
  });
  return {
    pid: child.pid as number,
    report,
    write: () => {},
    resize: () => {},
    pause: () => {
      child.stdout?.pause();
      child.stderr?.pause();
    },
    resume: () => {
      child.stdout?.resume();
      child.stderr?.resume();
    },
    // Pipes held open by a process that escaped every kill: stop waiting (their 'close' settles).
    close: () => {
      child.stdout?.destroy();
      child.stderr?.destroy();
    },
  };
}
