import { constants } from "node:os";
import { type ExecRequest, run } from "@conch/exec-core";

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

/**
 * Runs one request, streaming its output to ours (or printing the result as JSON), and returns the exit
 * code for conch. Ctrl-C and friends kill the whole tree; conch then exits as if killed by that signal.
 */
export async function execute(argv: string[], options: ExecuteOptions): Promise<number> {
  const timeoutMs = options["timeout-ms"];
  const request: ExecRequest = { argv, cwd: options.cwd ?? process.cwd() };
  if (timeoutMs !== undefined) request.timeoutMs = timeoutMs;
  const controller = new AbortController();
  let received: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals): void => {
    received ??= signal;
    controller.abort();
  };
  for (const signal of STOP_SIGNALS) process.on(signal, onSignal);
  try {
    const result = await run(request, {
      signal: controller.signal,
      ...(options.json ? {} : { onOutput: ({ stream, data }) => process[stream].write(data) }),
    });
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
