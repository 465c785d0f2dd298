import {
  buildEnv,
  HeadTailBuffer,
  isExecError,
  type ProcessTree,
  parseReport,
  type SpawnedProcess,
  type SpawnSpec,
  spawnProcess,
} from "@conch/exec-core";
import type { EnvPolicy, ExecResult } from "@conch/protocol";
import { stdinClosed, UnifiedExecError } from "../errors.js";
import { ScreenRenderer } from "../render/screen-renderer.js";
import { foregroundInputWait } from "./input-wait.js";
import { type ProcessHandle, pipeHandle, spawnPty } from "./process-handle.js";
import { LastLine, PROMPT_ENDINGS, ShellPrompt } from "./shell-prompt.js";

/** Bytes of output kept between two reads of a session: half head, half tail (DESIGN.md §3). */
export const DEFAULT_RETAINED_BYTES: number = 1024 * 1024;
const KILL_GRACE_MS = 500;
// After the root exits: how long output may keep arriving before the session counts as drained.
const DRAIN_QUIET_MS = 20;
const DRAIN_MAX_MS = 2000;
const CTRL_C = "\u0003";
// A shell back at its prompt has usually printed the whole prompt by then: trailing bytes get this long.
const SHELL_QUIET_MS = 3;
// How often a shell seen busy is looked at again while its output is quiet.
const SHELL_POLL_MS = 10;
// How long a terminal must print nothing before what sleeps reading it counts as waiting for input.
const INPUT_QUIET_MS = 1000;
// How long a shell must stay at its prompt, with no output, before the answer counts as settled.
const SHELL_CONFIRM_MS = 5;
const DEFAULT_COLS = 80;
const DEFAULT_ROWS = 24;
// Lines a PTY session's renderer keeps above the screen: about 1 MB at 80 columns, like the raw retention.
const RENDER_SCROLLBACK = 1000;

export interface SessionSpec {
  /** What runs, e.g. `["/bin/bash", "-lc", "npm run dev"]`. */
  readonly argv: readonly string[];
  /** What the model asked for (the script), for listings. */
  readonly command: string;
  readonly cwd: string;
  readonly env?: EnvPolicy;
  /** A pseudo-terminal (default 24 x 80, `TERM=xterm-256color`), or pipes with stdin closed. */
  readonly tty: boolean;
  readonly cols?: number;
  readonly rows?: number;
  /** Rewrites what is spawned, e.g. a sandbox backend's `transform(spec, rules, { tty })`. */
  readonly prepare?: (spec: SpawnSpec) => Promise<SpawnSpec>;
  /**
   * `prepare` wraps the command in a process that starts it in a group of its own (bwrap): signals go to
   * that group, not to the wrapper's, which would die of them and take the command along.
   */
  readonly wrapped?: boolean;
  /** For PTY sessions: give the model rendered screen text rather than raw bytes (default true). */
  readonly render?: boolean;
  /** Bytes of output kept between reads (default 1 MiB). */
  readonly retainBytes?: number;
  /**
   * The interactive shell the session's terminal runs (its program, e.g. `bash`): a call that waits
   * returns once the shell is back at its prompt (see ShellPrompt). Only with `tty`.
   */
  readonly shell?: string;
  /**
   * Starts the process elsewhere (a remote backend's host) instead of spawning it here; `prepare` and
   * `wrapped` do not apply. The session drives it the same way, but nothing of this machine's kernel
   * tells about it: no shell-prompt or input-wait detection (answers settle on quiet output).
   */
  readonly remote?: (start: RemoteStart) => Promise<RemoteProcess>;
}

/** What a remote process is started with: the session's command, environment and terminal. */
export interface RemoteStart {
  readonly argv: readonly string[];
  readonly cwd: string;
  /**
   * What the session's `env` policy sets explicitly (and `TERM` for a terminal): the remote side adds
   * its own core variables (PATH, HOME, ...); nothing else of this machine's environment crosses.
   */
  readonly env: Readonly<Record<string, string>>;
  readonly tty: boolean;
  readonly cols: number;
  readonly rows: number;
}

/** A process that runs elsewhere, which a session drives as its own. */
export interface RemoteProcess {
  /** Starts delivering its output, then its exit, to `events` (called once, right after the start). */
  start(events: RemoteEvents): void;
  write(data: string): void;
  resize(cols: number, rows: number): void;
  signal(signal: NodeJS.Signals): void;
  /** Ends it and everything it started (within about `graceMs`, then by force); resolves once it has. */
  terminate(graceMs: number): Promise<void>;
  /** Stops delivering (its output is drained, or nobody waits for it any more). */
  close(): void;
  /**
   * The session's reader has taken the first `count` chunks delivered (a model's read): what the remote
   * side still holds of them may go. Until then it is kept there, so that a conchd that restarts shows
   * the model what it had not yet read.
   */
  consumed(count: number): void;
}

/** What a remote process tells its session. */
export interface RemoteEvents {
  onData(chunk: Buffer): void;
  /** The exit status as a shell reports it (128+N after signal N), once all output before it came. */
  onExit(exitCode: number): void;
}

/** What a session needs of the tree it ends: a local process tree, or a remote process's. */
type Tree = Pick<ProcessTree, "terminate" | "visible" | "innerGroups">;

/**
 * When a waiting call may return before its deadline: once output came after `since` (an output count,
 * `Session.outputCount`) and then settled: the session's shell is back at its prompt, or, for anything
 * else (or a shell that cannot be found), nothing more came for `quietMs`.
 */
export interface Settle {
  readonly since: number;
  readonly quietMs: number;
}

/** What a session tells whoever watches it, besides the model's reads. */
export interface SessionWatcher {
  /** Every chunk of raw output, as it arrives (a PTY's bytes before rendering). */
  output(chunk: Buffer): void;
  /** The process exited and its output is drained. */
  exited(exitCode: number): void;
}

export interface SessionOutput {
  /** The output since the previous read: rendered text for a rendering PTY session, else the raw text. */
  readonly text: string;
  /** Raw bytes that arrived since the previous read (before rendering, including any left out). */
  readonly bytes: number;
}

/** One live process the model talks to. Only the store creates sessions. */
export class Session {
  readonly id: number;
  readonly command: string;
  readonly tty: boolean;
  readonly pid: number;
  /** `Date.now()` at spawn. */
  readonly startedAt: number;
  /** The terminal's size (a pipe session keeps the size it would have had). */
  cols: number;
  rows: number;
  readonly #startedPerf: number;
  readonly #handle: ProcessHandle;
  readonly #tree: Tree;
  readonly #remote: RemoteProcess | null;
  readonly #retain: number;
  readonly #wrapped: boolean;
  #pending: HeadTailBuffer;
  readonly #renderer: ScreenRenderer | null;
  #exit: { code: number; signal: NodeJS.Signals | null; atPerf: number } | null = null;
  #drained = false;
  #lastOutputAt: number | null = null;
  #waiters = new Set<() => void>();
  #killing: Promise<unknown> | null = null;
  #rootExited = false;
  #rootExitedAt: number | null = null;
  #terminated = false;
  #quietSince = 0;
  // Line ends the shell still owes the terminal for the lines last written to it: a shell reading a line
  // can sleep in its terminal's read between two parts of it as it does at its prompt, and is back at
  // its prompt only once it has echoed (or printed) at least one line end per line written.
  #linesOwed = 0;
  // How the output's last line ends (a shell's), and how the shell's prompt ended when a call last
  // settled at it: while they differ, the prompt has not come (or not whole).
  readonly #lastLine: LastLine | null;
  #promptEnding: string | null = null;
  /** When the shell was first seen at its prompt since the last output, and that output's count. */
  #promptSeen: { at: number; outputCount: number } | null = null;
  #outputCount = 0;
  #readOutputCount = 0;
  readonly #watcher: SessionWatcher | null;
  readonly #prompt: ShellPrompt | null;
  /** Calls currently waiting on this session: pruning skips it. */
  inFlight = 0;
  /** `performance.now()` of the last call that used it, for LRU pruning. */
  lastUsed: number;

  private constructor(
    id: number,
    spec: SessionSpec,
    handle: ProcessHandle,
    tree: Tree,
    renderer: ScreenRenderer | null,
    startedPerf: number,
    watcher: SessionWatcher | null,
    remote: RemoteProcess | null = null,
  ) {
    this.id = id;
    this.cols = spec.cols ?? DEFAULT_COLS;
    this.rows = spec.rows ?? DEFAULT_ROWS;
    this.#watcher = watcher;
    this.#remote = remote;
    // A remote shell's prompt is not this kernel's to see.
    this.#prompt =
      spec.tty && spec.shell !== undefined && remote === null
        ? new ShellPrompt(handle.pid, spec.shell)
        : null;
    this.#lastLine = this.#prompt === null ? null : new LastLine();
    this.command = spec.command;
    this.tty = spec.tty;
    this.pid = handle.pid;
    this.startedAt = Date.now();
    this.#startedPerf = startedPerf;
    this.lastUsed = startedPerf;
    this.#handle = handle;
    this.#tree = tree;
    this.#retain = spec.retainBytes ?? DEFAULT_RETAINED_BYTES;
    this.#wrapped = spec.wrapped === true;
    this.#pending = new HeadTailBuffer(this.#retain);
    this.#renderer = renderer;
  }

  /** Spawns the process (after `prepare`) and returns its session; `watcher` sees all it does. */
  static async start(id: number, spec: SessionSpec, watcher: SessionWatcher | null = null): Promise<Session> {
    const env = buildEnv(spec.env);
    if (spec.tty) env.TERM = "xterm-256color";
    const cols = spec.cols ?? DEFAULT_COLS;
    const rows = spec.rows ?? DEFAULT_ROWS;
    const renderer =
      spec.tty && spec.render !== false
        ? new ScreenRenderer({ cols, rows, scrollback: RENDER_SCROLLBACK })
        : null;
    // Events can arrive before the session object exists (a process that prints and exits at once).
    let session: Session | null = null;
    const early: Array<(s: Session) => void> = [];
    const deliver = (fn: (s: Session) => void): void => {
      if (session === null) early.push(fn);
      else fn(session);
    };
    const events = {
      onData: (chunk: Buffer) => deliver((s) => s.#onData(chunk)),
      onRootExit: () => deliver((s) => s.#onRootExit()),
      onExit: (code: number, signal: NodeJS.Signals | null) => deliver((s) => s.#onExit(code, signal)),
    };
    if (spec.remote !== undefined) {
      let remote: RemoteProcess;
      try {
        const set: Record<string, string> = { ...(spec.env?.set ?? {}) };
        if (spec.tty) set.TERM = env.TERM as string;
        remote = await spec.remote({ argv: spec.argv, cwd: spec.cwd, env: set, tty: spec.tty, cols, rows });
      } catch (error) {
        renderer?.dispose();
        throw error;
      }
      const handle: ProcessHandle = {
        pid: 0,
        report: null,
        write: (data) => remote.write(data),
        resize: (c, r) => remote.resize(c, r),
        close: () => remote.close(),
        // The remote side keeps its own output until read.
        pause: () => {},
        resume: () => {},
      };
      const tree: Tree = {
        terminate: (graceMs) => remote.terminate(graceMs).then(() => []),
        visible: false,
        innerGroups: () => [],
      };
      session = new Session(id, spec, handle, tree, renderer, performance.now(), watcher, remote);
      remote.start({
        onData: (chunk) => (session as Session).#onData(chunk),
        onExit: (code) => (session as Session).#onExit(code, null),
      });
      return session;
    }
    const options = {
      argv: spec.argv,
      cwd: spec.cwd,
      env,
      ...(spec.prepare === undefined ? {} : { prepare: spec.prepare }),
    };
    let spawned: SpawnedProcess<ProcessHandle>;
    try {
      if (spec.tty) {
        spawned = await spawnProcess(options, (prepared) => spawnPty(prepared, cols, rows, events));
      } else {
        const child = await spawnProcess(options);
        spawned = { ...child, process: pipeHandle(child.process, events, child.report) };
      }
    } catch (error) {
      renderer?.dispose();
      // The same words as a one-shot command's, from this package's error class.
      if (isExecError(error) && error.code === "SPAWN_FAILED") {
        throw new UnifiedExecError("SPAWN_FAILED", error.message, { cause: error.cause });
      }
      throw error;
    }
    // Spawned just now (after `prepare`): the time an early exit is measured from.
    const started = performance.now();
    session = new Session(id, spec, spawned.process, spawned.tree, renderer, started, watcher);
    for (const fn of early) fn(session);
    return session;
  }

  #onData(chunk: Buffer): void {
    this.#outputCount++;
    for (let at = chunk.indexOf(0x0a); at !== -1 && this.#linesOwed > 0; at = chunk.indexOf(0x0a, at + 1)) {
      this.#linesOwed--;
    }
    this.#lastLine?.push(chunk);
    this.#pending.push(chunk);
    this.#renderer?.write(chunk);
    this.#watcher?.output(chunk);
    this.#lastOutputAt = Date.now();
    this.#quietSince = performance.now();
    this.#wake();
  }

  #onRootExit(): void {
    if (!this.#rootExited) this.#rootExitedAt = performance.now();
    this.#rootExited = true;
    // What it started goes with it: a session's children do not outlive it.
    this.#killing ??= this.#tree.terminate(KILL_GRACE_MS);
  }

  #onExit(code: number, signal: NodeJS.Signals | null): void {
    if (this.#exit !== null) return;
    this.#exit = { code, signal, atPerf: performance.now() };
    this.#onRootExit();
    void this.#drain();
  }

  // A PTY reports the exit while its last output may still be in flight: wait for a quiet moment.
  async #drain(): Promise<void> {
    await this.#killing;
    const deadline = performance.now() + DRAIN_MAX_MS;
    while (performance.now() < deadline && performance.now() - this.#quietSince < DRAIN_QUIET_MS) {
      await new Promise((resolve) => setTimeout(resolve, DRAIN_QUIET_MS));
    }
    await this.#renderer?.flush();
    this.#handle.close();
    this.#drained = true;
    this.#wake();
    this.#watcher?.exited(this.#exit?.code ?? 0);
  }

  #wake(): void {
    for (const waiter of this.#waiters) waiter();
  }

  /**
   * The limits the kernel enforced on the session's command (its sandbox helper's report), once it has
   * exited; empty while it runs, or when no helper reported.
   */
  async limitsReached(): Promise<ExecResult["limitsReached"]> {
    if (this.#exit === null || this.#handle.report === null) return [];
    return parseReport(await this.#handle.report).limits;
  }

  /** The exit code, once the process has exited and its output is drained; null while it runs. */
  get exitCode(): number | null {
    return this.#drained && this.#exit !== null ? this.#exit.code : null;
  }

  get running(): boolean {
    return !this.#drained;
  }

  /** Milliseconds from spawn to the root's exit, once the session has exited. */
  get exitedAfterMs(): number | null {
    return this.#exit === null || this.#rootExitedAt === null ? null : this.#rootExitedAt - this.#startedPerf;
  }

  /** How many chunks of output have come so far: a call's `Settle.since`. */
  get outputCount(): number {
    return this.#outputCount;
  }

  /** How many chunks of output had come when the last read took them (what the reader has seen). */
  get readOutputCount(): number {
    return this.#readOutputCount;
  }

  /** `performance.now()` of the last output (of the spawn before any). */
  get quietSincePerf(): number {
    return Math.max(this.#quietSince, this.#startedPerf);
  }

  /** `Date.now()` of the last output, or null. */
  get lastOutputAt(): number | null {
    return this.#lastOutputAt;
  }

  /**
   * What waits for a person's input on this session's terminal: once it has printed nothing for
   * INPUT_QUIET_MS, a program asleep reading its terminal (a question, a password, an editor, a pager);
   * at once, the session's own shell at its prompt (`shellPrompt`). Null without a terminal, after the exit, while
   * busy, or where the kernel does not tell.
   */
  inputWait(): { readonly program: string; readonly shellPrompt: boolean } | null {
    if (!this.tty || this.#exit !== null || this.#remote !== null) return null;
    // A shell the kernel shows back at its prompt is idle at once; anything else only after a quiet spell.
    const atPrompt = this.#prompt?.atPrompt() === true;
    if (!atPrompt && performance.now() - Math.max(this.#quietSince, this.#startedPerf) < INPUT_QUIET_MS) {
      return null;
    }
    const wait = foregroundInputWait(this.#handle.pid);
    if (wait === null) return null;
    return { program: wait.program, shellPrompt: atPrompt };
  }

  /**
   * For a poll that finds nothing new: how long (ms) the session's shell has sat at its prompt with no
   * output, when it does now (seen there twice, SHELL_CONFIRM_MS apart, and nothing unread); null when it
   * does not, when nothing tells (no shell found, no terminal), or once the process has exited.
   */
  async idleAtPrompt(): Promise<number | null> {
    if (this.#prompt === null || this.#exit !== null || this.#linesOwed > 0) return null;
    const unread = (): boolean => this.#outputCount !== this.#readOutputCount;
    if (unread() || this.#prompt.atPrompt() !== true) return null;
    const count = this.#outputCount;
    await new Promise((resolve) => setTimeout(resolve, SHELL_CONFIRM_MS));
    if (unread() || count !== this.#outputCount || this.#exit !== null) return null;
    if (this.#prompt.atPrompt() !== true) return null;
    return performance.now() - Math.max(this.#quietSince, this.#startedPerf);
  }

  /**
   * Sends `chars` to the terminal. Without a terminal only Ctrl-C (`\u0003`) is accepted: it sends
   * SIGINT to the process group.
   */
  write(chars: string): void {
    if (chars === "") return;
    if (!this.tty) {
      if (chars !== CTRL_C) throw stdinClosed();
      this.signal("SIGINT");
      return;
    }
    if (this.#drained) return;
    let lines = 0;
    for (let at = chars.indexOf("\n"); at !== -1; at = chars.indexOf("\n", at + 1)) lines++;
    this.#linesOwed = lines;
    this.#handle.write(chars);
  }

  /**
   * Sends `signal` to the session's process group (the wrapped command's, under a wrapper), while it runs.
   * Where the tree cannot see under the root (no /proc: macOS, where sandbox-exec execs the command in
   * place), the root's group is the command's.
   */
  signal(signal: NodeJS.Signals): void {
    // Once the root is gone its pid may name another process: nothing is signalled by it any more.
    if (this.#rootExited) return;
    if (this.#remote !== null) {
      this.#remote.signal(signal);
      return;
    }
    const groups = this.#wrapped && this.#tree.visible ? this.#tree.innerGroups() : [this.pid];
    for (const group of groups) {
      try {
        process.kill(-group, signal);
      } catch {
        // The group is gone.
      }
    }
  }

  /** Stops taking the process's output until `resume` (it blocks writing once its buffer is full). */
  pause(): void {
    if (!this.#drained) this.#handle.pause();
  }

  resume(): void {
    if (!this.#drained) this.#handle.resume();
  }

  resize(cols: number, rows: number): void {
    if (this.#drained) return;
    this.#handle.resize(cols, rows);
    this.#renderer?.resize(cols, rows);
    this.cols = cols;
    this.rows = rows;
  }

  /**
   * Waits until the process has exited and its output is drained, `deadline` (a `performance.now()`
   * time) passes, `signal` aborts, or, with `settle`, the answer has settled (see Settle); never kills
   * anything.
   */
  async waitUntil(deadline: number, signal?: AbortSignal, settle: Settle | null = null): Promise<void> {
    while (!this.#drained && performance.now() < deadline && signal?.aborted !== true) {
      const check = settle === null ? null : this.#settledOrNext(settle);
      if (check === true) return;
      const wakeAt = check === null || check === false ? deadline : Math.min(deadline, check);
      await new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          this.#waiters.delete(onExitOrOutput);
          signal?.removeEventListener("abort", done);
          resolve();
        };
        // Output matters too when settling: it moves the settle check.
        const onExitOrOutput = (): void => {
          if (this.#drained || settle !== null) done();
        };
        const timer = setTimeout(done, Math.max(0, wakeAt - performance.now()));
        this.#waiters.add(onExitOrOutput);
        signal?.addEventListener("abort", done, { once: true });
      });
    }
  }

  /**
   * True when the answer has settled; otherwise when to look again (a `performance.now()` time), or
   * false when only new output can change it.
   */
  #settledOrNext(settle: Settle): true | number | false {
    if (this.#outputCount <= settle.since) return false;
    // Exited and draining (at most DRAIN_MAX_MS): the call returns with the exit, not just before it.
    if (this.#exit !== null) return false;
    const now = performance.now();
    const quiet = now - this.#quietSince;
    // Until the lines written are echoed, a shell's answer has not even begun: only more output (or the
    // deadline) can end the wait, however long a loaded machine pauses it.
    if (this.#prompt !== null && this.#linesOwed > 0) return false;
    if (this.#prompt !== null) {
      if (quiet < SHELL_QUIET_MS) return this.#quietSince + SHELL_QUIET_MS;
      const atPrompt = this.#prompt.atPrompt();
      if (atPrompt === true) {
        // Seen twice, SHELL_CONFIRM_MS apart with no output between: a shell passing through a sleep that
        // looks like its prompt (a blocked write to the terminal, a lock) is not taken for it. Unless the
        // output ends as its prompt does, the prompt has not come yet: the terminal hands on what a shell
        // writes a moment later (a kernel worker moves it, late on a loaded machine), so the shell sits
        // at its prompt while the end of its output and the prompt are still on their way. Then it must
        // stay there, with no output, as long as any other session must stay quiet (settle_ms).
        const ending = this.#lastLine?.ending ?? "";
        const promptCame =
          this.#promptEnding === null ? PROMPT_ENDINGS.has(ending) : ending === this.#promptEnding;
        const confirmMs = promptCame ? SHELL_CONFIRM_MS : Math.max(settle.quietMs, SHELL_CONFIRM_MS);
        const seen = this.#promptSeen;
        if (seen !== null && seen.outputCount === this.#outputCount && now - seen.at >= confirmMs) {
          this.#promptSeen = null;
          if (ending.length === 2) this.#promptEnding = ending;
          return true;
        }
        if (seen === null || seen.outputCount !== this.#outputCount) {
          this.#promptSeen = { at: now, outputCount: this.#outputCount };
        }
        return (this.#promptSeen?.at ?? now) + confirmMs;
      }
      this.#promptSeen = null;
      // A shell seen running is looked at again: its prompt may come with no more output at all.
      if (atPrompt === false) return now + SHELL_POLL_MS;
    }
    if (settle.quietMs <= 0) return false;
    return quiet >= settle.quietMs ? true : this.#quietSince + settle.quietMs;
  }

  /** How many bytes of output came since the previous read. */
  unreadBytes(): number {
    return this.#pending.totalBytes;
  }

  /** The output since the previous read, and forgets it. `raw` skips rendering for this read. */
  async read(raw = false): Promise<SessionOutput> {
    this.#readOutputCount = this.#outputCount;
    const pending = this.#pending;
    this.#pending = new HeadTailBuffer(this.#retain);
    // A character split between two reads goes whole into the later one; after the end, as it is.
    const { text, rest } = this.#drained ? { text: pending.text(), rest: null } : pending.textSoFar();
    if (rest !== null && rest.length > 0) this.#pending.push(rest);
    const bytes = pending.totalBytes - (rest?.length ?? 0);
    // A chunk whose last character waits for the next read is not taken whole yet.
    this.#remote?.consumed(
      rest !== null && rest.length > 0 ? this.#readOutputCount - 1 : this.#readOutputCount,
    );
    if (this.#renderer !== null) {
      await this.#renderer.flush();
      // Read even when raw, so the next rendered read starts here too.
      const rendered = this.#renderer.readSince();
      if (!raw) return { text: rendered, bytes };
    }
    return { text, bytes };
  }

  /** A call on this session ended; the last one out frees a terminated session's renderer. */
  endCall(): void {
    this.inFlight--;
    if (this.inFlight === 0 && this.#terminated) this.#renderer?.dispose();
  }

  /** Kills the whole tree (SIGTERM, grace, SIGKILL) and releases the terminal; idempotent. */
  async terminate(): Promise<void> {
    this.#terminated = true;
    this.#killing ??= this.#tree.terminate(KILL_GRACE_MS);
    await this.#killing;
    if (!this.#drained) {
      this.#handle.close();
      await this.waitUntil(performance.now() + DRAIN_MAX_MS);
    }
    // A call still reading keeps the renderer until it is done (`endCall`).
    if (this.inFlight === 0) this.#renderer?.dispose();
  }
}
