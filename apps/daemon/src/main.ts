import { isConchError, visibleText } from "@conch/protocol";
import { parseDaemonArgs } from "./args.js";
import { StartError, UsageError } from "./errors.js";
import { HELP } from "./help.js";
import { serveOnHttp } from "./serve-http.js";
import { serveStdio } from "./serve-stdio.js";
import { daemonVersion } from "./version.js";

const EXIT_OK = 0;
const EXIT_FAILURE = 1;
const EXIT_USAGE = 2;

/** The one place where errors become what the person starting conchd reads, and an exit code. */
function report(error: unknown): number {
  if (error instanceof UsageError) {
    process.stderr.write(`conchd: ${visibleText(error.message)}\nRun 'conchd --help' for usage.\n`);
    return EXIT_USAGE;
  }
  if (error instanceof StartError || isConchError(error)) {
    process.stderr.write(`conchd: ${visibleText(error.message, { keepLineBreaks: true })}\n`);
  } else {
    const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
    process.stderr.write(`conchd: internal error: ${visibleText(detail, { keepLineBreaks: true })}\n`);
  }
  return EXIT_FAILURE;
}

/** Runs conchd with its arguments (without node and the script) and returns the exit code. */
export async function main(args: readonly string[]): Promise<number> {
  try {
    const parsed = parseDaemonArgs(args);
    if (parsed.action === "help") {
      process.stdout.write(HELP);
      return EXIT_OK;
    }
    if (parsed.action === "version") {
      process.stdout.write(`${daemonVersion()}\n`);
      return EXIT_OK;
    }
    const options = { ...parsed.options, version: daemonVersion() };
    if (parsed.http !== undefined) return await serveOnHttp(options, parsed.http);
    return await serveStdio(options);
  } catch (error) {
    return report(error);
  }
}
