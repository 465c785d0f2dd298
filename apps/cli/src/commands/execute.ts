import { fstatSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { type ExecResult, type OutputDelta, type RunOptions, run } from "@conch/exec-core";
import { isConchError, visibleText } from "@conch/protocol";
import { UsageError } from "../errors.js";
import { EXIT_BROKEN_PIPE, exitCodeForCode, exitCodeForRejection, exitCodeForSignal } from "../exit-codes.js";
import { outputClosed } from "../output/closed-output.js";
import { jsonLine } from "../output/json-line.js";
import { openRuntime, POLICY_SPECS, type PolicyOptions } from "./policy-options.js";

/** The options `conch run`, `conch exec` and `conch sandbox` share. */
export const COMMON_SPECS = {
  "timeout-ms": { type: "integer" },
  cwd: { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean" },
} as const;

/** `conch run` and `conch exec`: the common options and the policy ones. */
export const ORCHESTRATED_SPECS: typeof COMMON_SPECS & typeof POLICY_SPECS = {
  ...COMMON_SPECS,
  ...POLICY_SPECS,
};

export interface ExecuteOptions {
  json?: boolean;
  cwd?: string;
  "timeout-ms"?: number;
}

const STOP_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

/** The directory conch was started in, or a usage error naming --cwd when it was deleted meanwhile. */
function currentDirectory(command: string): string {
  try {
    return process.cwd();
  } catch {
    throw new UsageError("the current directory no longer exists; pass --cwd DIR", command);
  }
}

/**
 * The directory a command works in: `--cwd` (absolute, or relative to where conch started) or the current
 * one, checked to be a directory, else the same usage error for every command (exit 2).
 */
export function commandDirectory(option: unknown, command: string, label = "--cwd"): string {
  const cwd = resolve(typeof option === "string" ? option : currentDirectory(command));
  if (statSync(cwd, { throwIfNoEntry: false })?.isDirectory() !== true) {
    throw new UsageError(`${label}: no such directory: ${cwd}`, command);
  }
  return cwd;
}

interface LiveContext {
  readonly signal: AbortSignal;
  readonly onOutput?: (delta: OutputDelta) => Promise<void> | undefined;
}

/**
 * Runs `body` with the command's output streamed to ours (unless `json`), Ctrl-C and friends turned into
 * an abort that kills the whole tree, and our own closed output (`conch run ... | head -1`) too. Returns
 * the exit code `finish` picks, or 128+N after signal N, or 141 when our output was closed.
 */
async function live<T>(
  json: boolean,
  body: (context: LiveContext) => Promise<T>,
  finish: (value: T) => number,
): Promise<number> {
  const controller = new AbortController();
  let received: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals): void => {
    received ??= signal;
    controller.abort();
  };
  const signal = AbortSignal.any([controller.signal, outputClosed]);
  // Our stdout may be a slow pipe: wait for it to drain rather than buffer the command's output.
  const forward = ({ stream, data }: OutputDelta): Promise<void> | undefined => {
    const out = process[stream];
    if (outputClosed.aborted || out.write(data)) return undefined;
    return new Promise((resolve) => out.once("drain", resolve));
  };
  for (const stop of STOP_SIGNALS) process.on(stop, onSignal);
  try {
    let value: T;
    try {
      value = await body({ signal, ...(json ? {} : { onOutput: forward }) });
    } catch (error) {
      // A program that cannot start (or a sandbox that cannot run) still gets its JSON answer.
      if (json) jsonFailure(error);
      throw error;
    }
    if (outputClosed.aborted) return EXIT_BROKEN_PIPE;
    const code = finish(value);
    return received === undefined ? code : exitCodeForSignal(received);
  } finally {
    for (const stop of STOP_SIGNALS) process.off(stop, onSignal);
  }
}

/** `durationMs` → `duration_ms`: the CLI's JSON is snake_case, as the tool results are. */
function snakeCase(key: string): string {
  return key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/** The result as `--json` prints it: `status` first, then snake_case keys, as the tool results use. */
function jsonResult(fields: Record<string, unknown>): Record<string, unknown> {
  return {
    status: "ok",
    ...Object.fromEntries(Object.entries(fields).map(([key, value]) => [snakeCase(key), value])),
  };
}

/**
 * What `--json` prints when the command did not run: `status` as a tool result says it (`rejected` by a
 * rule, the policy or a person; `failed` when it could not start), and why. stderr says it too.
 */
function jsonNotRun(fields: Record<string, unknown>): void {
  process.stdout.write(jsonLine(fields));
}

function jsonFailure(error: unknown): void {
  jsonNotRun({
    status: "failed",
    error_code: isConchError(error) ? error.code : "INTERNAL",
    message: error instanceof Error ? error.message : String(error),
  });
}

function reportResult(
  result: ExecResult,
  options: ExecuteOptions,
  extra: Record<string, unknown> = {},
): void {
  if (options.json) {
    process.stdout.write(jsonLine(jsonResult({ ...result, ...extra })));
  } else if (result.timedOut) {
    process.stderr.write(
      `conch: timed out after ${options["timeout-ms"]} ms; the command and everything it started were killed\n`,
    );
  }
}

export interface ExecuteCommand {
  readonly argv: string[];
  /** The script, when argv runs one through a shell: the audit log records it. */
  readonly script?: string;
}

/**
 * Our stdout when the command may write to it itself: a pipe, or /dev/null, as a shell would hand it
 * over. Its output then never passes through conch and streams at the pipe's speed. A terminal, a file
 * or a socket stays conch's to write: through a terminal's descriptor a command could read keys or
 * push input, through a file's truncate or rewrite what was there, through a socket pass descriptors,
 * and the sandbox's rules do not reach a descriptor it is handed.
 */
function directStdout(): number | undefined {
  try {
    const stdout = fstatSync(1);
    if (stdout.isFIFO()) return 1;
    if (stdout.isCharacterDevice() && stdout.rdev === statSync("/dev/null").rdev) return 1;
  } catch {
    // No stdout to speak of: conch writes (and finds out).
  }
  return undefined;
}

/**
 * Runs one command through the orchestrator (approval, sandbox, run, denial check, retry where the
 * policy allows) and returns conch's exit code: the command's, or 4 when it was rejected, 3 when the
 * sandbox cannot run here.
 */
export async function execute(
  command: string,
  what: ExecuteCommand,
  options: ExecuteOptions,
  policy: PolicyOptions,
): Promise<number> {
  const timeoutMs = options["timeout-ms"];
  const cwd = commandDirectory(options.cwd, command);
  const { runtime, close } = await openRuntime(cwd, policy, { oneCommand: true });
  const stdoutFd = options.json === true ? undefined : directStdout();
  try {
    return await live(
      options.json === true,
      (context) =>
        runtime.orchestrator.run(
          {
            tool: command,
            argv: what.argv,
            ...(what.script === undefined ? {} : { script: what.script }),
            cwd,
            ...(timeoutMs === undefined ? {} : { timeoutMs }),
            maxOutputTokens: runtime.config.maxOutputTokens,
            spill: false,
            // Streamed to our stdout as it comes: nobody reads a model text of it.
            modelText: false,
            ...(stdoutFd === undefined ? {} : { stdoutFd }),
            // --json prints the run's own stdout and stderr.
            keepExecOutput: options.json === true,
          },
          context,
        ),
      (outcome) => {
        if (outcome.status === "failed") {
          if (outcome.cause !== undefined) {
            if (options.json === true) jsonFailure(outcome.cause);
            throw outcome.cause;
          }
          // A failure the door found itself (a missing cwd): said as a thrown one would be.
          if (options.json === true) {
            jsonNotRun({ status: "failed", error_code: outcome.code, message: outcome.message });
          }
          process.stderr.write(`conch: ${visibleText(outcome.message, { keepLineBreaks: true })}\n`);
          return exitCodeForCode(outcome.code);
        }
        if (outcome.status === "rejected") {
          // Canceled while asking: the signal's exit code says it all. The reason's lines (why, what to
          // do) stay lines.
          if (outcome.kind !== "canceled") {
            process.stderr.write(`conch: ${visibleText(outcome.reason, { keepLineBreaks: true })}\n`);
          }
          if (options.json === true) {
            jsonNotRun({ status: "rejected", rejection: outcome.kind, reason: outcome.reason });
          }
          return exitCodeForRejection(outcome.kind);
        }
        reportResult(outcome.result, options, {
          sandbox: outcome.sandbox,
          denied: outcome.denied,
          escalated: outcome.escalated,
        });
        if (outcome.denied && !options.json) {
          process.stderr.write(
            `conch: the sandbox (${runtime.orchestrator.sandboxPolicy.mode}) appears to have blocked this command; ` +
              "to run it outside the sandbox, pass --sandbox danger-full-access, or --approval on-failure to be asked first\n",
          );
        }
        return outcome.result.exitCode;
      },
    );
  } finally {
    await close();
  }
}

/** Runs argv with exec-core alone (`prepare` may wrap it in a sandbox): no approval, no config. */
export async function executeDirect(
  command: string,
  argv: string[],
  options: ExecuteOptions,
  prepare?: RunOptions["prepare"],
): Promise<number> {
  const cwd = commandDirectory(options.cwd, command);
  const timeoutMs = options["timeout-ms"];
  const stdout = options.json === true ? undefined : directStdout();
  return live(
    options.json === true,
    (context) =>
      run(
        { argv, cwd, ...(timeoutMs === undefined ? {} : { timeoutMs }) },
        {
          ...context,
          ...(prepare === undefined ? {} : { prepare }),
          ...(stdout === undefined ? {} : { stdout }),
        },
      ),
    (result) => {
      reportResult(result, options);
      return result.exitCode;
    },
  );
}
