import { type ChildProcess, spawn } from "node:child_process";
import { accessSync, existsSync, constants as fsConstants, statSync } from "node:fs";
import { constants } from "node:os";
import { resolve } from "node:path";
import type { Writable } from "node:stream";
import type { ExecRequest, ExecResult } from "@conch/protocol";
import { ExecError } from "./errors.js";
import { OutputCapture } from "./output/capture.js";
import { createRunMarker, RUN_MARKER_VAR } from "./process/run-marker.js";
import { ProcessTree } from "./process/tree.js";
import { normalizeRequest } from "./request/normalize.js";

export const EXIT_CODE_TIMEOUT = 124;
export const EXIT_CODE_CANCELED = 130;

export interface OutputDelta {
  stream: "stdout" | "stderr";
  data: Uint8Array;
}

/** What is spawned, after the request is checked and its environment built. */
export interface SpawnSpec {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  /** Data the child reads on descriptors 3, 4, ... (each a pipe closed after the data). */
  extraFds: Uint8Array[];
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
   * settles, so a slow consumer slows the command instead of filling memory.
   */
  onOutput?: (delta: OutputDelta) => void | Promise<void>;
}

/** Unique among all runs on this machine while this process lives: pid, a counter and some randomness. */

/** The exit status a shell would report: the code, or 128+N after signal N. */
export function exitCodeOf(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code;
  return 128 + (signal === null ? 0 : (constants.signals[signal] ?? 0));
}

/** Why a spawn failed, in words: ENOENT for a file that exists means its `#!` interpreter is missing. */
function spawnFailure(file: string, cause: NodeJS.ErrnoException, path: string | undefined): string {
  if (cause.code === "EACCES") return "permission denied";
  if (cause.code !== "ENOENT") return cause.code ?? cause.message;
  const candidates = file.includes("/")
    ? [file]
    : (path ?? "")
        .split(":")
        .filter(Boolean)
        .map((dir) => `${dir}/${file}`);
  return candidates.some((candidate) => existsSync(candidate))
    ? "its interpreter (the #! line) was not found"
    : "no such program";
}

/**
 * Finds the program as `spawn` would (a path against the cwd, else each `PATH` entry) and throws the
 * error a direct spawn would have thrown. Used before a `prepare` wraps the command (`bwrap ... argv`):
 * the wrapper would start fine and only report the missing program as its own exit code.
 */
function checkProgram(spec: SpawnSpec): void {
  const file = spec.argv[0] as string;
  const candidates = file.includes("/")
    ? [resolve(spec.cwd, file)]
    : (spec.env.PATH ?? "")
        .split(":")
        .filter(Boolean)
        .map((dir) => resolve(spec.cwd, dir, file));
  let denied = false;
  for (const candidate of candidates) {
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, fsConstants.X_OK);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "EACCES") denied = true;
    }
  }
  const cause = Object.assign(new Error(denied ? "permission denied" : "no such program"), {
    code: denied ? "EACCES" : "ENOENT",
  });
  throw new ExecError("SPAWN_FAILED", `cannot start ${JSON.stringify(file)}: ${cause.message}`, { cause });
}

function spawnChild(req: SpawnSpec): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const [file, ...args] = req.argv as [string, ...string[]];
    let child: ChildProcess;
    try {
      // detached: the child leads a new session and process group, so one signal reaches its whole tree
      // and the terminal's Ctrl-C reaches only us.
      child = spawn(file, args, {
        cwd: req.cwd,
        env: req.env,
        detached: true,
        stdio: ["ignore", "pipe", "pipe", ...req.extraFds.map(() => "pipe" as const)],
      });
      req.extraFds.forEach((data, index) => {
        const pipe = child.stdio[3 + index] as Writable | null;
        // The child may exit without reading it all (EPIPE): not an error of the run.
        pipe?.on("error", () => {});
        pipe?.end(data);
      });
    } catch (cause) {
      reject(
        new ExecError("SPAWN_FAILED", `cannot start ${JSON.stringify(file)}: ${(cause as Error).message}`, {
          cause,
        }),
      );
      return;
    }
    const onError = (cause: NodeJS.ErrnoException): void => {
      reject(
        new ExecError(
          "SPAWN_FAILED",
          `cannot start ${JSON.stringify(file)}: ${spawnFailure(file, cause, req.env.PATH)}`,
          { cause },
        ),
      );
    };
    child.once("error", onError);
    child.once("spawn", () => {
      child.off("error", onError);
      resolve(child);
    });
  });
}

/**
 * Runs one command to completion. The result arrives when the command has exited and its pipes are
 * drained (or `drainTimeoutMs` after exit, whichever is first); by then nothing it started is running.
 * Rejects with ExecError only when the request is invalid or the program cannot be started.
 */
export async function run(request: ExecRequest, options: RunOptions = {}): Promise<ExecResult> {
  const started = performance.now();
  const { value: markerValue, entry: marker } = createRunMarker();
  const req = normalizeRequest(request);
  const base = { command: req.argv, cwd: req.cwd };
  const { signal, onOutput } = options;
  const capture = new OutputCapture(req.maxOutputBytes);
  if (signal?.aborted) {
    return {
      ...base,
      ...capture.result(),
      exitCode: EXIT_CODE_CANCELED,
      signal: null,
      durationMs: 0,
      timedOut: false,
      canceled: true,
    };
  }
  req.env[RUN_MARKER_VAR] = markerValue;
  const spec: SpawnSpec = { argv: req.argv, cwd: req.cwd, env: req.env, extraFds: [] };
  if (options.prepare) checkProgram(spec);
  const child = await spawnChild(options.prepare ? await options.prepare(spec) : spec);
  const tree = new ProcessTree(child.pid as number, marker);

  return new Promise<ExecResult>((resolve, reject) => {
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let timedOut = false;
    let canceled = false;
    /** Canceled before the command exited: the exit status is ours, not the command's. */
    let killedByCancel = false;
    let callbackError: { error: unknown } | undefined;
    let killing: Promise<void> | undefined;
    let openStreams = 2;
    let drainTimer: NodeJS.Timeout | undefined;
    let finishing = false;
    const streams = [child.stdout, child.stderr] as const;

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
      await killing;
      await tree.terminate(req.killGraceMs);
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
      });
    };
    function settle(): void {
      finish().catch(reject);
    }
    const consumerFailed = (error: unknown): void => {
      callbackError ??= { error };
      kill();
    };

    for (const name of ["stdout", "stderr"] as const) {
      const stream = child[name];
      stream?.on("data", (data: Buffer) => {
        capture.push(name, data);
        if (onOutput === undefined || callbackError) return;
        try {
          const pending = onOutput({ stream: name, data });
          if (typeof pending?.then === "function") {
            stream.pause();
            pending.then(() => stream.resume(), consumerFailed);
          }
        } catch (error) {
          consumerFailed(error);
        }
      });
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
      drainTimer = setTimeout(settle, req.drainTimeoutMs);
    });
    signal?.addEventListener("abort", onAbort, { once: true });
    // An abort while the child was being spawned fired before the listener existed.
    if (signal?.aborted) onAbort();
  });
}
