import { constants } from "node:os";
import { type ExecRequest, type OutputDelta, type RunOptions, run } from "@conch/exec-core";
import { UsageError } from "../errors.js";

/** The options `conch run` and `conch exec` share. */
export const COMMON_SPECS = {
  "timeout-ms": { type: "integer" },
  cwd: { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean" },
} as const;

export interface ExecuteOptions {
  json?: boolean;
  cwd?: string;
  "timeout-ms"?: number;
}

const STOP_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
const EXIT_BROKEN_PIPE = 128 + constants.signals.SIGPIPE;

/** The directory conch was started in, or a usage error naming --cwd when it was deleted meanwhile. */
export function currentDirectory(command: string): string {
  try {
    return process.cwd();
  } catch {
    throw new UsageError("the current directory no longer exists; pass --cwd DIR", command);
  }
}

/**
 * Runs one request, streaming its output to ours (or printing the result as JSON), and returns the exit
 * code for conch. Ctrl-C and friends kill the whole tree; conch then exits as if killed by that signal.
 * When our own output is closed (`conch run ... | head -1`), the tree is killed too and conch exits 141.
 */
export async function execute(
  command: string,
  argv: string[],
  options: ExecuteOptions,
  prepare?: RunOptions["prepare"],
): Promise<number> {
  const timeoutMs = options["timeout-ms"];
  const request: ExecRequest = { argv, cwd: options.cwd ?? currentDirectory(command) };
  if (timeoutMs !== undefined) request.timeoutMs = timeoutMs;
  const controller = new AbortController();
  let received: NodeJS.Signals | undefined;
  let outputClosed = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    received ??= signal;
    controller.abort();
  };
  const onOutputError = (): void => {
    outputClosed = true;
    controller.abort();
  };
  // Our stdout may be a slow pipe: wait for it to drain rather than buffer the command's output.
  const forward = ({ stream, data }: OutputDelta): Promise<void> | undefined => {
    const out = process[stream];
    if (outputClosed || out.write(data)) return undefined;
    return new Promise((resolve) => out.once("drain", resolve));
  };
  for (const signal of STOP_SIGNALS) process.on(signal, onSignal);
  process.stdout.on("error", onOutputError);
  process.stderr.on("error", onOutputError);
  try {
    const result = await run(request, {
      ...(prepare === undefined ? {} : { prepare }),
      signal: controller.signal,
      ...(options.json ? {} : { onOutput: forward }),
    });
    if (outputClosed) return EXIT_BROKEN_PIPE;
    if (options.json) {
      process.stdout.write(`${JSON.stringify(result)}\n`);
    } else if (result.timedOut) {
      process.stderr.write(
        `conch: timed out after ${timeoutMs} ms; the command and everything it started were killed\n`,
      );
    }
    return received === undefined ? result.exitCode : 128 + constants.signals[received];
  } finally {
    for (const signal of STOP_SIGNALS) process.off(signal, onSignal);
  }
}
