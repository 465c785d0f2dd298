import { type ChildProcess, spawn } from "node:child_process";
import { accessSync, existsSync, constants as fsConstants, statSync } from "node:fs";
import { Socket } from "node:net";
import { resolve } from "node:path";
import type { Writable } from "node:stream";
import type { SpawnSpec } from "@conch/protocol";
import { expectedReceived } from "@conch/protocol";
import { ExecError } from "../errors.js";
import { createRunMarker, RUN_MARKER_VAR } from "./run-marker.js";
import { ProcessTree } from "./tree.js";

export type { SpawnSpec } from "@conch/protocol";

export interface SpawnProcessOptions {
  /** The program and its arguments; the program is found on the `PATH` of `env`, or is a path. */
  readonly argv: readonly string[];
  readonly cwd: string;
  /** The child's whole environment. A copy of it gets the run marker (`RUN_MARKER_VAR`). */
  readonly env: Readonly<Record<string, string>>;
  /** Data the child reads on descriptors 3, 4, ... */
  readonly extraFds?: readonly Uint8Array[];
  /**
   * Rewrites what is spawned just before the spawn: how a sandbox wraps the command (e.g. in `bwrap`).
   * The program is looked for first, since the wrapper would start fine and only report a missing
   * program as its own exit code. A rejection rejects the spawn untouched, and nothing starts.
   */
  readonly prepare?: (spec: SpawnSpec) => Promise<SpawnSpec>;
  /** A descriptor of this process, or a socket, to be the child's stdout; a pipe by default. */
  readonly stdout?: number | Socket;
}

export interface SpawnedProcess<Process> {
  /** The child, with stdin at /dev/null and stdout and stderr on pipes; or what `launch` returned. */
  readonly process: Process;
  readonly pid: number;
  /**
   * Everything the child starts, found on demand by process group, session, parentage and run marker:
   * `terminate(graceMs)` ends it all (SIGTERM, grace, SIGKILL).
   */
  readonly tree: ProcessTree;
  /** What the prepared spec's `reportFd` said, read to its end; null when it had none. */
  readonly report: Promise<string> | null;
}

// A report is a line per process: a few KiB at most is plenty, and more is not read.
const MAX_REPORT_BYTES = 64 * 1024;

/** The report pipe's text, read to its end (or its first 64 KiB); null without one. */
function readReport(child: unknown, spec: SpawnSpec): Promise<string> | null {
  if (spec.reportFd === undefined) return null;
  const stream = (child as ChildProcess).stdio?.[spec.reportFd] as NodeJS.ReadableStream | null | undefined;
  if (stream === null || stream === undefined) return null;
  return new Promise((resolve) => {
    let text = "";
    stream.on("data", (chunk: Buffer) => {
      if (text.length < MAX_REPORT_BYTES) text += chunk.toString("utf8");
    });
    stream.on("error", () => resolve(text));
    stream.on("close", () => resolve(text));
    stream.on("end", () => resolve(text));
  });
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

function spawnFailed(file: string, reason: string, cause: unknown): ExecError {
  return new ExecError("SPAWN_FAILED", `cannot start ${JSON.stringify(file)}: ${reason}`, { cause });
}

/**
 * Finds the program as `spawn` would (a path against the cwd, else each `PATH` entry) and throws the
 * error a direct spawn would have thrown.
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
  throw spawnFailed(file, cause.message, cause);
}

function spawnChild(spec: SpawnSpec, stdout: number | Socket | "pipe"): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const [file, ...args] = spec.argv as [string, ...string[]];
    let child: ChildProcess;
    try {
      // detached: the child leads a new session and process group, so one signal reaches its whole tree
      // and the terminal's Ctrl-C reaches only us.
      const reportSlot = spec.reportFd === undefined ? [] : ["pipe" as const];
      child = spawn(file, args, {
        cwd: spec.cwd,
        env: spec.env,
        detached: true,
        stdio: ["ignore", stdout, "pipe", ...spec.extraFds.map(() => "pipe" as const), ...reportSlot],
      });
      spec.extraFds.forEach((data, index) => {
        const pipe = child.stdio[3 + index] as Writable | null;
        // The child may exit without reading it all (EPIPE): not an error of the run.
        pipe?.on("error", () => {});
        pipe?.end(data);
      });
    } catch (cause) {
      reject(spawnFailed(file, (cause as Error).message, cause));
      return;
    }
    const onError = (cause: NodeJS.ErrnoException): void => {
      reject(spawnFailed(file, spawnFailure(file, cause, spec.env.PATH), cause));
    };
    child.once("error", onError);
    child.once("spawn", () => {
      child.off("error", onError);
      resolve(child);
    });
  });
}

/**
 * Starts a command in a new session and process group of its own, marked so that everything it starts
 * can be found and killed (`tree`). Rejects with ExecError `SPAWN_FAILED` when the program is missing
 * or cannot run, saying which and why (`cause.code` is `ENOENT` for a missing program, `EACCES` for one
 * that may not run).
 *
 * With `launch`, the prepared spec is started by it rather than by `child_process` (a pseudo-terminal,
 * say): it must start the child leading its own session, and return it with its pid. The program is
 * then looked for before the launch, since such a launcher reports a missing program only as output.
 */
export function spawnProcess(options: SpawnProcessOptions): Promise<SpawnedProcess<ChildProcess>>;
export function spawnProcess<Process extends { readonly pid: number }>(
  options: SpawnProcessOptions,
  launch: (spec: SpawnSpec) => Process,
): Promise<SpawnedProcess<Process>>;
export async function spawnProcess<Process extends { readonly pid: number }>(
  options: SpawnProcessOptions,
  launch?: (spec: SpawnSpec) => Process,
): Promise<SpawnedProcess<Process | ChildProcess>> {
  const { stdout } = options;
  if (stdout !== undefined && !(stdout instanceof Socket) && !(Number.isSafeInteger(stdout) && stdout >= 0)) {
    throw new TypeError(
      expectedReceived("stdout", "a descriptor (an integer of 0 or more) or a socket", stdout),
    );
  }
  const marker = createRunMarker();
  const spec: SpawnSpec = {
    argv: [...options.argv],
    cwd: options.cwd,
    env: { ...options.env, [RUN_MARKER_VAR]: marker.value },
    extraFds: [...(options.extraFds ?? [])],
  };
  if (options.prepare !== undefined || launch !== undefined) checkProgram(spec);
  const prepared = options.prepare === undefined ? spec : await options.prepare(spec);
  let child: Process | ChildProcess;
  if (launch === undefined) {
    child = await spawnChild(prepared, stdout ?? "pipe");
  } else {
    try {
      child = launch(prepared);
    } catch (cause) {
      const file = prepared.argv[0] as string;
      const reason =
        cause instanceof Error
          ? spawnFailure(file, cause as NodeJS.ErrnoException, prepared.env.PATH)
          : String(cause);
      throw spawnFailed(file, reason, cause);
    }
  }
  const pid = child.pid as number;
  return {
    process: child,
    pid,
    tree: new ProcessTree(pid, marker.entry),
    report: readReport(child, prepared),
  };
}
