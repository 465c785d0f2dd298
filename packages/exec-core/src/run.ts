import type { ChildProcess } from "node:child_process";
import { constants } from "node:os";
import type { ExecRequest, ExecResult } from "@conch/protocol";
import { expectedReceived } from "@conch/protocol";
import { ExecError } from "./errors.js";
import { type CapturedOutput, OutputCapture } from "./output/capture.js";
import { createReadPair, type ReadPair } from "./process/read-pair.js";
import { type SpawnedProcess, type SpawnSpec, spawnProcess } from "./process/spawn-process.js";
import { normalizeRequest } from "./request/normalize.js";

export const EXIT_CODE_TIMEOUT = 124;
export const EXIT_CODE_CANCELED = 130;

export interface OutputDelta {
  stream: "stdout" | "stderr";
  data: Uint8Array;
}

export interface RunOptions {
  /**
   * Rewrites what is spawned just before the spawn: how a sandbox wraps the command (e.g. in `bwrap`).
   * The result (`command` in it) still names the request's argv. A rejection rejects `run` untouched.
   */
  prepare?: (spec: SpawnSpec) => Promise<SpawnSpec>;
  /** Aborting kills the whole tree and resolves with `canceled: true`. */
  signal?: AbortSignal;
  /**
   * Called with each chunk as it arrives, for streaming. Returning a promise pauses that stream until it
   * settles, so a slow consumer slows the command instead of filling memory; any other return value is
   * ignored (so `({ stream, data }) => process[stream].write(data)` fits).
   */
  onOutput?: (delta: OutputDelta) => unknown;
  /**
   * `false`: stream only (execa's `buffer: false`). Chunks go to `onOutput` and nowhere else: no copy of
   * the output is kept, so the result's `stdout`, `stderr` and `output` are empty, and it has `buffered:
   * false` (a `StreamedExecResult`). For a caller that keeps its own copy. Default `true`.
   */
  buffer?: boolean;
  /**
   * A descriptor of this process that the command's stdout is, instead of a pipe read here: for a
   * caller that would only copy the output to it (a CLI whose stdout is a pipe). The stdout then passes
   * nothing here: no `onOutput` chunks, no capture, no byte count. stderr is read as always.
   */
  stdout?: number;
  /**
   * With `buffer: false`: each stdout chunk `onOutput` gets is a view of one buffer that the next read
   * overwrites, valid during the call and until a promise it returned settles: copy what you keep.
   * Reading then allocates nothing per chunk, so a long output leaves no garbage behind it (see
   * read-pair.ts). Where that reading cannot be set up, chunks are fresh buffers, as without it.
   */
  transientChunks?: boolean;
}

/**
 * What `run` resolves with under `buffer: false`: the output went only to `onOutput`, so there is no text
 * here, nothing was truncated and nothing was sniffed for binary. The byte counts are still the output's.
 */
export interface StreamedExecResult extends ExecResult {
  readonly buffered: false;
  stdout: "";
  stderr: "";
  output: "";
  truncated: false;
  binary: false;
}

/** Counts the bytes of each stream and keeps none of them. */
class OutputCount {
  stdoutBytes = 0;
  stderrBytes = 0;

  push(stream: "stdout" | "stderr", chunk: Uint8Array): void {
    if (stream === "stdout") this.stdoutBytes += chunk.length;
    else this.stderrBytes += chunk.length;
  }

  result(): CapturedOutput & Pick<StreamedExecResult, "buffered"> {
    return {
      buffered: false,
      stdout: "",
      stderr: "",
      output: "",
      stdoutBytes: this.stdoutBytes,
      stderrBytes: this.stderrBytes,
      truncated: false,
      binary: false,
    };
  }
}

/**
 * A helper's report: `PID NAME` for each process the command left (in its order), and `limit KIND N`
 * for each limit the kernel enforced.
 */
export function parseReport(text: string): { left: string[]; limits: ExecResult["limitsReached"] } {
  const left: string[] = [];
  const limits: ExecResult["limitsReached"] = [];
  for (const line of text.split("\n")) {
    const limit = /^limit (memory|processes|file|tmp) (\d+)$/.exec(line);
    if (limit !== null) {
      limits.push({ kind: limit[1] as ExecResult["limitsReached"][number]["kind"], limit: Number(limit[2]) });
      continue;
    }
    const match = /^\d+ (.+)$/.exec(line);
    if (match !== null) left.push(match[1] as string);
  }
  return { left, limits };
}

/** The exit status a shell would report: the code, or 128+N after signal N. */
export function exitCodeOf(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code;
  return 128 + (signal === null ? 0 : (constants.signals[signal] ?? 0));
}

/**
 * Runs one command to completion. The result arrives when the command has exited and its pipes are
 * drained (or `drainTimeoutMs` after exit, whichever is first); by then nothing it started is running.
 * Rejects with ExecError only when the request is invalid or the program cannot be started.
 */
export function run(
  request: ExecRequest,
  options: RunOptions & { readonly buffer: false },
): Promise<StreamedExecResult>;
export function run(request: ExecRequest, options?: RunOptions): Promise<ExecResult>;
export async function run(request: ExecRequest, options: RunOptions = {}): Promise<ExecResult> {
  const started = performance.now();
  const req = normalizeRequest(request);
  const { signal, onOutput, buffer } = options;
  if (buffer !== undefined && typeof buffer !== "boolean") {
    throw new ExecError(
      "INVALID_REQUEST",
      `invalid options: ${expectedReceived("buffer", "true or false", buffer)}`,
    );
  }
  const base = { command: [...req.argv], cwd: req.cwd };
  const capture = buffer === false ? new OutputCount() : new OutputCapture(req.maxOutputBytes);
  if (signal?.aborted) {
    return {
      ...base,
      ...capture.result(),
      exitCode: EXIT_CODE_CANCELED,
      signal: null,
      durationMs: 0,
      timedOut: false,
      canceled: true,
      leftProcesses: [],
      limitsReached: [],
    };
  }
  // Set once the run's handlers exist; until then (the child may write before) chunks are kept, copied.
  const early: Buffer[] = [];
  let onPairRead = (chunk: Buffer): boolean => {
    early.push(Buffer.from(chunk));
    return true;
  };
  const pair: ReadPair | null =
    options.transientChunks === true && buffer === false && options.stdout === undefined
      ? await createReadPair((chunk) => onPairRead(chunk)).catch(() => null)
      : null;
  let spawned: SpawnedProcess<ChildProcess>;
  try {
    spawned = await spawnProcess({
      argv: req.argv,
      cwd: req.cwd,
      env: req.env,
      ...(options.prepare === undefined ? {} : { prepare: options.prepare }),
      ...(pair !== null
        ? { stdout: pair.theirs }
        : options.stdout === undefined
          ? {}
          : { stdout: options.stdout }),
    });
  } catch (error) {
    pair?.ours.destroy();
    throw error;
  } finally {
    // The child holds its end now (or never will).
    pair?.theirs.destroy();
  }
  const { process: child, tree, report } = spawned;

  return new Promise<ExecResult>((resolve, reject) => {
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let timedOut = false;
    let canceled = false;
    /** Canceled before the command exited: the exit status is ours, not the command's. */
    let killedByCancel = false;
    let callbackError: { error: unknown } | undefined;
    let killing: Promise<unknown> | undefined;
    const stdout = pair?.ours ?? child.stdout;
    let openStreams = stdout === null ? 1 : 2;
    let drainTimer: NodeJS.Timeout | undefined;
    let finishing = false;
    const streams = [stdout, child.stderr] as const;

    const kill = (): void => {
      killing ??= tree.terminate(req.killGraceMs);
    };
    const timeoutTimer =
      req.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            kill();
          }, req.timeoutMs);
    const onAbort = (): void => {
      canceled = true;
      if (exit === undefined) {
        killedByCancel = true;
        kill();
      } else {
        // Exited, only draining: stop waiting; finish() kills what is left.
        settle();
      }
    };

    const finish = async (): Promise<void> => {
      if (finishing) return;
      finishing = true;
      clearTimeout(timeoutTimer);
      clearTimeout(drainTimer);
      signal?.removeEventListener("abort", onAbort);
      for (const stream of streams) stream?.destroy();
      // Whatever the command left behind dies with the call: long-lived processes belong in a session.
      // Those it left running when it exited are named: by the sandbox's helper, which stopped them
      // inside (they die with the sandbox before this process could see them), or as found here.
      await killing;
      const stopped = await tree.terminate(req.killGraceMs);
      const reported = report === null ? { left: [], limits: [] } : parseReport(await report);
      const leftProcesses = exit === undefined || timedOut || canceled ? [] : [...reported.left, ...stopped];
      if (callbackError) {
        reject(callbackError.error);
        return;
      }
      const { code, signal: exitSignal } = exit ?? { code: null, signal: null };
      resolve({
        ...base,
        ...capture.result(),
        exitCode: timedOut
          ? EXIT_CODE_TIMEOUT
          : killedByCancel
            ? EXIT_CODE_CANCELED
            : exitCodeOf(code, exitSignal),
        signal: exitSignal,
        durationMs: performance.now() - started,
        timedOut,
        canceled,
        leftProcesses,
        limitsReached: reported.limits,
      });
    };
    function settle(): void {
      finish().catch(reject);
    }
    const consumerFailed = (error: unknown): void => {
      callbackError ??= { error };
      kill();
      // Nothing more is handed on: the pair reads the rest to its end (a paused pair would wait for
      // the drain timeout).
      pair?.ours.resume();
    };
    // The pair is paused for the consumer (a chunk of its buffer is still the consumer's): the drain
    // timeout, for processes that keep stdout open, counts only time not spent waiting on the consumer.
    // (Node resumes a child's own pipes when it exits; the pair's buffer cannot be read into then.)
    let pairWaiting = false;
    let drainDeferred = false;
    const onDrainTimeout = (): void => {
      if (pairWaiting) {
        drainDeferred = true;
        return;
      }
      settle();
    };

    /** Hands a chunk on; false when the stream is to pause until the consumer's promise settles. */
    const deliver = (name: "stdout" | "stderr", data: Buffer, resume: () => void): boolean => {
      capture.push(name, data);
      if (onOutput === undefined || callbackError) return true;
      try {
        const pending = onOutput({ stream: name, data });
        if (isThenable(pending)) {
          pending.then(resume, consumerFailed);
          return false;
        }
      } catch (error) {
        consumerFailed(error);
      }
      return true;
    };
    if (pair !== null) {
      const ours = pair.ours;
      const resumeOurs = (): void => {
        pairWaiting = false;
        if (drainDeferred && !finishing) {
          drainDeferred = false;
          drainTimer = setTimeout(onDrainTimeout, req.drainTimeoutMs);
        }
        ours.resume();
      };
      onPairRead = (chunk) => {
        const more = deliver("stdout", chunk, resumeOurs);
        if (!more) pairWaiting = true;
        return more;
      };
      // What came before: in order, each waiting for the consumer as a read would.
      if (early.length > 0) {
        ours.pause();
        pairWaiting = true;
        void (async () => {
          for (const chunk of early.splice(0)) {
            await new Promise<void>((resume) => {
              if (deliver("stdout", chunk, resume)) resume();
            });
          }
          resumeOurs();
        })();
      }
      // A reset by a dying child is the stream's end, as for a pipe.
      ours.on("error", () => ours.destroy());
    }
    for (const name of ["stdout", "stderr"] as const) {
      const stream = name === "stdout" ? stdout : child.stderr;
      if (stream !== null && stream !== pair?.ours) {
        const resume = (): void => {
          stream.resume();
        };
        stream.on("data", (data: Buffer) => {
          if (!deliver(name, data, resume)) stream.pause();
        });
      }
      stream?.once("close", () => {
        openStreams--;
        if (openStreams === 0 && exit !== undefined) settle();
      });
    }
    child.once("exit", (code, exitSignal) => {
      exit = { code, signal: exitSignal };
      clearTimeout(timeoutTimer);
      if (openStreams === 0) {
        settle();
        return;
      }
      // Background processes may hold the pipes open for good; wait a little for their last words.
      drainTimer = setTimeout(onDrainTimeout, req.drainTimeoutMs);
    });
    signal?.addEventListener("abort", onAbort, { once: true });
    // An abort while the child was being spawned fired before the listener existed.
    if (signal?.aborted) onAbort();
  });
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === "object" || typeof value === "function") &&
    value !== null &&
    typeof (value as { then?: unknown }).then === "function"
  );
}
