import { randomInt } from "node:crypto";
import { type ExecResult, expectedReceived, TOOL_LIMITS } from "@conch/protocol";
import { UnifiedExecError, unknownSession } from "../errors.js";
import { Session, type SessionSpec, type SessionWatcher } from "../session/session.js";

/** DESIGN.md §3: at most 64 live sessions; the 8 most recently used are never pruned. */
export const DEFAULT_MAX_SESSIONS = 64;
export const DEFAULT_PROTECTED_RECENT = 8;
/** How long output must be quiet before a call's answer counts as settled (config `settle_ms`). */
export const DEFAULT_SETTLE_MS = 100;
const MIN_ID = 1000;
const MAX_ID = 99_999;
// The largest terminal a resize accepts, in columns or rows.
const MAX_TERMINAL_SIZE = 1000;

export interface SessionStoreOptions {
  readonly maxSessions?: number;
  readonly protectedRecent?: number;
  /**
   * A waiting call returns once its answer has settled: the session's shell is back at its prompt, or
   * output came and then nothing more for this many ms (default 100). 0 turns settling off: calls wait
   * their whole window, unless the process exits.
   */
  readonly settleMs?: number;
}

export interface CallOptions {
  /** Stops waiting (the session keeps running). */
  readonly signal?: AbortSignal;
  /** Raw output instead of the rendered screen text, for this call (PTY sessions). */
  readonly raw?: boolean;
  /** False: wait the whole window (or until the exit) even when the answer settles sooner. Default true. */
  readonly settle?: boolean;
}

export interface StartOptions extends CallOptions {
  /** Leave the session listed after it exits, until closed (the terminal tools). */
  readonly keepAfterExit?: boolean;
  /** Wait `yieldTimeMs` as given instead of clamping it to 250–30000. */
  readonly unclampedYield?: boolean;
  /** Called with the new session's id as it is stored, before observers hear of it and before the wait. */
  readonly onStored?: (id: number) => void;
  /**
   * The id the session must have (a remote session a restarted conchd finds again keeps the id the
   * model knows); refused when another session has it. A fresh random one by default.
   */
  readonly id?: number;
  /**
   * Return at once, reading nothing: the output stays for the next call (a session found again after a
   * restart, whose output the model has not read yet).
   */
  readonly readNothing?: boolean;
}

// What a write that ends a program looks like: Ctrl-C, Ctrl-D, or a quit key of a pager or an editor
// (`q`, `:q`, `:wq`, `:x`, `ZZ`, each with or without its Enter).
// biome-ignore lint/suspicious/noControlCharactersInRegex: Ctrl-C, Ctrl-D and Escape are the point
const ENDS_PROGRAM = /^(?:[\s\S]*[\u0003\u0004]|q|(?:\u001b)?:(?:w?q|x)!?[\r\n]?|(?:\u001b)?ZZ)$/;
// A window that ends while a terminal program draws waits this long at most for the drawing to stop,
// when what it drew so far is no more than a screen or two (a program printing on and on gets no grace).
const DRAW_GRACE_MS = 1000;
const DRAW_MAX_BYTES = 64 * 1024;
// How long such a write waits for the exit before the answer settles as any other.
const QUIT_WAIT_MS = 1000;
// Control sequences (CSI, OSC, two-byte escapes) and blanks: output that shows the model nothing.
const INVISIBLE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are the point
  /\u001b(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001b]*(?:\u0007|\u001b\\)|[@-Z\\-_])|[\s\u0000-\u001f\u007f]/g;

/**
 * After Ctrl-C, Ctrl-D or a quit key the answer is the exit, which comes a moment after the echo, or a
 * shell back at its prompt (Ctrl-C to what it runs); a pause in the output is not: waited for first, at
 * most QUIT_WAIT_MS, before the answer settles as any other.
 */
async function quitWait(
  session: Session,
  written: string,
  deadline: number,
  options: CallOptions,
): Promise<void> {
  if (written === "" || !ENDS_PROGRAM.test(written) || options.settle === false) return;
  await session.waitUntil(Math.min(deadline, performance.now() + QUIT_WAIT_MS), options.signal, {
    since: session.outputCount,
    quietMs: 0,
  });
}

function isBlank(text: string): boolean {
  return text.replace(INVISIBLE, "") === "";
}

/** What one exec/write/poll call returns. */
export interface SessionResponse {
  readonly sessionId: number;
  /** False once the process has exited and its output is drained: `exitCode` is then set. */
  readonly running: boolean;
  readonly exitCode: number | null;
  /** For an exited process: milliseconds from spawn to exit (the early-exit window check uses it). */
  readonly exitedAfterMs: number | null;
  /** For an exited process: the limits its sandbox enforced on it (config `limits`), when any was reached. */
  readonly limitsReached?: ExecResult["limitsReached"];
  /** Output since the previous call on this session. */
  readonly output: string;
  /** Raw bytes behind `output`. */
  readonly outputBytes: number;
  /** How long the call took, in milliseconds. */
  readonly wallTimeMs: number;
  /** The session pruned to make room for this one, if any (its tree was killed). */
  readonly pruned: number | null;
  /**
   * Set when an empty poll returned at once because nothing was new and the session's shell sat idle at
   * its prompt: for how long, in milliseconds.
   */
  readonly idleAtPromptMs?: number;
}

export interface SessionInfo {
  readonly id: number;
  readonly command: string;
  readonly pid: number;
  readonly tty: boolean;
  /** The terminal's size. */
  readonly cols: number;
  readonly rows: number;
  readonly running: boolean;
  readonly exitCode: number | null;
  /** `Date.now()` at spawn. */
  readonly startedAt: number;
  readonly lastOutputAt: number | null;
  /**
   * What waits for input on its terminal, quiet for a second: a program reading it (`program`), or its
   * shell at the prompt (`shellPrompt`); null when nothing does, without a terminal and after the exit.
   */
  readonly waitingForInput: { readonly program: string; readonly shellPrompt: boolean } | null;
}

/**
 * What happens to the store's sessions, for whoever watches them all (a console, a recorder) besides
 * the model's own reads: a session listed, each chunk of its raw output, a resize, its exit (output
 * drained), and its leaving the list (closed, pruned, forgotten after exit, or killed at the end).
 */
export type SessionEvent =
  | { readonly type: "started"; readonly id: number; readonly info: SessionInfo }
  | { readonly type: "output"; readonly id: number; readonly data: Buffer }
  | { readonly type: "resized"; readonly id: number; readonly cols: number; readonly rows: number }
  | { readonly type: "exited"; readonly id: number; readonly exitCode: number }
  | { readonly type: "removed"; readonly id: number; readonly info: SessionInfo };

/** Codex's clamp for exec_command and write_stdin yields: 250–30000 ms. */
export function clampYield(ms: number): number {
  return Math.min(Math.max(ms, TOOL_LIMITS.minYieldTimeMs), TOOL_LIMITS.maxYieldTimeMs);
}

/** An empty poll waits at least 5 s and at most 300 s (unless the process exits). */
export function clampEmptyPoll(ms: number): number {
  return Math.min(Math.max(ms, TOOL_LIMITS.emptyPollMinMs), TOOL_LIMITS.emptyPollMaxMs);
}

/**
 * The live sessions of one agent (one daemon, one replay): ids, the cap with LRU pruning, and the
 * yield windows of exec_command and write_stdin. A call stores its session before it waits, so an
 * aborted call leaves the session running; only `close`, pruning and `terminateAll` kill.
 */
export class SessionStore {
  readonly #sessions = new Map<number, Session>();
  // Sessions listed until closed even after exiting (the terminal tools).
  readonly #kept = new Set<number>();
  // Ids of sessions being started: they count toward the cap and are never handed out twice.
  readonly #starting = new Set<number>();
  readonly #max: number;
  readonly #protected: number;
  readonly #settleMs: number;
  readonly #observers = new Set<(event: SessionEvent) => void>();
  #closed = false;

  constructor(options: SessionStoreOptions = {}) {
    this.#max = options.maxSessions ?? DEFAULT_MAX_SESSIONS;
    this.#protected = options.protectedRecent ?? DEFAULT_PROTECTED_RECENT;
    this.#settleMs = options.settleMs ?? DEFAULT_SETTLE_MS;
    if (!Number.isSafeInteger(this.#settleMs) || this.#settleMs < 0) {
      throw new UnifiedExecError(
        "INVALID_REQUEST",
        expectedReceived("settleMs", "an integer >= 0", this.#settleMs),
      );
    }
    if (!Number.isSafeInteger(this.#max) || this.#max < 1) {
      throw new UnifiedExecError(
        "INVALID_REQUEST",
        expectedReceived("maxSessions", "a positive integer", this.#max),
      );
    }
    if (!Number.isSafeInteger(this.#protected) || this.#protected < 0) {
      throw new UnifiedExecError(
        "INVALID_REQUEST",
        expectedReceived("protectedRecent", "an integer >= 0", this.#protected),
      );
    }
  }

  get size(): number {
    return this.#sessions.size;
  }

  /**
   * Calls `observer` with every event of every session from now on (see SessionEvent); returns the
   * function that stops it. An observer runs synchronously on the output path: it must not block, and
   * what it throws is ignored.
   */
  observe(observer: (event: SessionEvent) => void): () => void {
    this.#observers.add(observer);
    return () => {
      this.#observers.delete(observer);
    };
  }

  #emit(event: SessionEvent): void {
    for (const observer of this.#observers) {
      try {
        observer(event);
      } catch {
        // An observer's failure is its own: the session and the model's reads go on.
      }
    }
  }

  #watcher(id: number): SessionWatcher {
    return {
      output: (data) => this.#emit({ type: "output", id, data }),
      exited: (exitCode) => this.#emit({ type: "exited", id, exitCode }),
    };
  }

  /**
   * Starts a session and waits up to `yieldTimeMs` (clamped 250–30000) for it to exit, returning its
   * output so far. `keepAfterExit` leaves an exited session listed until closed (the terminal tools);
   * otherwise a session that exited and delivered its last output is forgotten.
   */
  async start(spec: SessionSpec, yieldTimeMs: number, options: StartOptions = {}): Promise<SessionResponse> {
    if (this.#closed) throw new UnifiedExecError("INVALID_REQUEST", "the session store is closed");
    const started = performance.now();
    const id = options.id ?? this.#newId();
    if (options.id !== undefined && (this.#sessions.has(id) || this.#starting.has(id))) {
      throw new UnifiedExecError("INVALID_REQUEST", `id: another session has the id ${id}`);
    }
    this.#starting.add(id);
    let session: Session;
    let pruned: number | null;
    try {
      pruned = await this.#pruneIfFull();
      session = await Session.start(id, spec, this.#watcher(id));
    } finally {
      this.#starting.delete(id);
    }
    if (this.#closed) {
      // terminateAll ran while this one was starting: it must not outlive the store.
      await session.terminate();
      throw new UnifiedExecError("INVALID_REQUEST", "the session store is closed");
    }
    this.#sessions.set(session.id, session);
    if (options.keepAfterExit === true) this.#kept.add(session.id);
    try {
      options.onStored?.(session.id);
    } catch {
      // The caller's bookkeeping: the session is stored and runs either way.
    }
    this.#emit({ type: "started", id: session.id, info: infoOf(session) });
    if (options.readNothing === true) {
      return {
        sessionId: session.id,
        running: session.running,
        exitCode: session.exitCode,
        exitedAfterMs: null,
        output: "",
        outputBytes: 0,
        wallTimeMs: performance.now() - started,
        pruned,
      };
    }
    const wait = options.unclampedYield === true ? Math.max(0, yieldTimeMs) : clampYield(yieldTimeMs);
    // Any output of the new process is the answer.
    return this.#collect(session, started + wait, started, options, pruned, 0);
  }

  /**
   * Writes `chars` (may be empty: a poll) and waits: up to `yieldTimeMs` clamped 250–30000 after a write,
   * 5000–300000 for an empty poll; at once when the process exits.
   */
  async write(
    id: number,
    chars: string,
    yieldTimeMs: number,
    options: CallOptions = {},
  ): Promise<SessionResponse> {
    const session = this.#get(id);
    const started = performance.now();
    // After input, the answer is what comes next; a poll's is also what came since the last read.
    const since = chars === "" ? session.readOutputCount : session.outputCount;
    if (chars === "" && options.settle !== false) {
      // Nothing new from a shell idle at its prompt: nothing will come by waiting; said at once.
      const idle = await session.idleAtPrompt();
      if (idle !== null) {
        session.lastUsed = performance.now();
        return {
          sessionId: session.id,
          running: true,
          exitCode: null,
          exitedAfterMs: null,
          output: "",
          outputBytes: 0,
          wallTimeMs: performance.now() - started,
          pruned: null,
          idleAtPromptMs: idle,
        };
      }
    }
    session.write(chars);
    const wait = chars === "" ? clampEmptyPoll(yieldTimeMs) : clampYield(yieldTimeMs);
    await quitWait(session, chars, started + wait, options);
    return this.#collect(session, started + wait, started, options, null, since);
  }

  /**
   * Output since the last call, waiting up to `waitMs` (0–300000) unless the process exits. `written`:
   * what the caller just sent (`send`), whose answer this is: after Ctrl-C, Ctrl-D or a quit key the
   * exit is waited for a moment first.
   */
  async read(id: number, waitMs: number, options: CallOptions = {}, written = ""): Promise<SessionResponse> {
    const session = this.#get(id);
    const started = performance.now();
    const wait = Math.min(Math.max(waitMs, 0), TOOL_LIMITS.emptyPollMaxMs);
    await quitWait(session, written, started + wait, options);
    return this.#collect(session, started + wait, started, options, null, session.readOutputCount);
  }

  async #collect(
    session: Session,
    deadline: number,
    started: number,
    options: CallOptions,
    pruned: number | null,
    since: number,
  ): Promise<SessionResponse> {
    session.inFlight++;
    session.lastUsed = performance.now();
    const settle =
      options.settle === false || this.#settleMs === 0 ? null : { since, quietMs: this.#settleMs };
    try {
      await session.waitUntil(deadline, options.signal, settle);
      // The window ended while a terminal program was drawing (an editor's first screen, a prompt on
      // its way): not cut mid-draw, but let it finish, while it still draws, for at most DRAW_GRACE_MS.
      // A poll that asked for no wait at all gets none.
      if (
        settle !== null &&
        deadline > started &&
        session.tty &&
        session.running &&
        session.outputCount > since &&
        session.unreadBytes() <= DRAW_MAX_BYTES &&
        performance.now() - session.quietSincePerf < settle.quietMs &&
        options.signal?.aborted !== true
      ) {
        await session.waitUntil(performance.now() + DRAW_GRACE_MS, options.signal, {
          since,
          quietMs: settle.quietMs,
        });
      }
      let { text, bytes } = await session.read(options.raw === true);
      // Settled on output that shows nothing (control sequences, blank lines): no answer yet. Never an
      // empty answer before the window ends: wait on for one that says something, or the exit.
      while (
        settle !== null &&
        session.running &&
        isBlank(text) &&
        performance.now() < deadline &&
        options.signal?.aborted !== true
      ) {
        await session.waitUntil(deadline, options.signal, {
          since: session.outputCount,
          quietMs: settle.quietMs,
        });
        const more = await session.read(options.raw === true);
        text += more.text;
        bytes += more.bytes;
      }
      const running = session.running;
      if (!running && !this.#kept.has(session.id)) this.#forget(session);
      const limits = running ? [] : await session.limitsReached();
      return {
        sessionId: session.id,
        running,
        ...(limits.length === 0 ? {} : { limitsReached: limits }),
        exitCode: session.exitCode,
        exitedAfterMs: session.exitedAfterMs,
        output: text,
        outputBytes: bytes,
        wallTimeMs: performance.now() - started,
        pruned,
      };
    } finally {
      session.endCall();
      session.lastUsed = performance.now();
    }
  }

  /** The session's process group gets `signal` (pipes and PTY alike). */
  signal(id: number, signal: NodeJS.Signals): void {
    this.#get(id).signal(signal);
  }

  /** Writes to a PTY session without waiting (e.g. keystrokes); pipes take only Ctrl-C. */
  send(id: number, chars: string): void {
    const session = this.#get(id);
    session.write(chars);
    session.lastUsed = performance.now();
  }

  /**
   * Stops taking a session's output until `resume` (its process blocks once the kernel's buffer is
   * full): for an owner that forwards the output and must not drop what its reader has not taken yet.
   */
  pause(id: number): void {
    this.#get(id).pause();
  }

  resume(id: number): void {
    this.#get(id).resume();
  }

  list(): SessionInfo[] {
    return [...this.#sessions.values()].map(infoOf);
  }

  /** Resizes a PTY session's terminal (and its rendered screen); a pipe session has none to resize. */
  resize(id: number, cols: number, rows: number): void {
    const session = this.#get(id);
    for (const [name, value] of [
      ["cols", cols],
      ["rows", rows],
    ] as const) {
      if (!Number.isInteger(value) || value < 1 || value > MAX_TERMINAL_SIZE) {
        throw new UnifiedExecError(
          "INVALID_REQUEST",
          expectedReceived(name, `an integer from 1 to ${MAX_TERMINAL_SIZE}`, value),
        );
      }
    }
    if (!session.tty) return;
    session.resize(cols, rows);
    this.#emit({ type: "resized", id, cols: session.cols, rows: session.rows });
  }

  has(id: number): boolean {
    return this.#sessions.has(id);
  }

  /** Kills the session's tree and forgets it. */
  async close(id: number): Promise<void> {
    const session = this.#get(id);
    this.#forget(session);
    await session.terminate();
  }

  /**
   * Kills every session nobody has written to or polled for `idleMs` (none a call is waiting on), and
   * says which: their info as it was.
   */
  async closeIdle(idleMs: number): Promise<SessionInfo[]> {
    const now = performance.now();
    const idle = [...this.#sessions.values()].filter(
      (session) => session.inFlight === 0 && now - session.lastUsed >= idleMs,
    );
    const info = this.list().filter((entry) => idle.some((session) => session.id === entry.id));
    for (const session of idle) this.#forget(session);
    await Promise.all(idle.map((session) => session.terminate()));
    return info;
  }

  /** Kills every session (daemon shutdown, end of a replay); the store takes no new ones after. */
  async terminateAll(): Promise<void> {
    this.#closed = true;
    const all = [...this.#sessions.values()];
    for (const session of all) this.#forget(session);
    await Promise.all(all.map((session) => session.terminate()));
  }

  #get(id: number): Session {
    const session = this.#sessions.get(id);
    if (session === undefined) throw unknownSession(id);
    return session;
  }

  #forget(session: Session): void {
    if (!this.#sessions.delete(session.id)) return;
    this.#kept.delete(session.id);
    this.#emit({ type: "removed", id: session.id, info: infoOf(session) });
    if (!session.running) void session.terminate();
  }

  #newId(): number {
    for (;;) {
      const id = randomInt(MIN_ID, MAX_ID + 1);
      if (!this.#sessions.has(id) && !this.#starting.has(id)) return id;
    }
  }

  /**
   * Codex's pruning: when full, the least recently used exited session, else the least recently used
   * live one, never one of the `protectedRecent` most recently used and never one a call is waiting on.
   * The pruned tree is killed.
   */
  async #pruneIfFull(): Promise<number | null> {
    // The caller's own start is among `#starting`.
    if (this.#sessions.size + this.#starting.size <= this.#max) return null;
    const byRecent = [...this.#sessions.values()].sort((a, b) => b.lastUsed - a.lastUsed);
    const candidates = byRecent
      .slice(this.#protected)
      .filter((s) => s.inFlight === 0)
      .reverse();
    const victim = candidates.find((s) => !s.running) ?? candidates[0];
    if (victim === undefined) {
      throw new UnifiedExecError(
        "INVALID_REQUEST",
        `too many sessions: all ${this.#sessions.size} are recent or busy; close one first`,
      );
    }
    this.#forget(victim);
    await victim.terminate();
    return victim.id;
  }
}

function infoOf(session: Session): SessionInfo {
  return {
    id: session.id,
    command: session.command,
    pid: session.pid,
    tty: session.tty,
    cols: session.cols,
    rows: session.rows,
    running: session.running,
    exitCode: session.exitCode,
    startedAt: session.startedAt,
    lastOutputAt: session.lastOutputAt,
    waitingForInput: session.inputWait(),
  };
}
