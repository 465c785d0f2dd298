// `conch record list|path ID`: the asciicast recordings of PTY sessions in the state dir.

import { listRecordings, recordingsDir } from "@conch/orchestrator";
import { expectedReceived, visibleText } from "@conch/protocol";
import { parseArgs } from "../args.js";
import { UsageError } from "../errors.js";
import { EXIT_NONE_FOUND } from "../exit-codes.js";
import { RECORD_HELP } from "../help.js";
import { jsonLine, snakeKeys } from "../output/json-line.js";

const SPECS = { json: { type: "boolean" }, help: { type: "boolean" } } as const;
const COMMAND_CHARS = 60;

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

export async function recordCommand(args: readonly string[]): Promise<number> {
  const { options, positionals } = parseArgs(args, SPECS, "record", false);
  const [action, ...rest] = positionals;
  if (options.help || action === undefined) {
    (options.help ? process.stdout : process.stderr).write(RECORD_HELP);
    return options.help ? 0 : 2;
  }
  const dir = recordingsDir();
  if (action === "list") {
    if (rest.length > 0) throw new UsageError("list takes no arguments", "record");
    const recordings = listRecordings(dir);
    if (options.json === true) {
      process.stdout.write(jsonLine(snakeKeys({ dir, recordings })));
      return 0;
    }
    if (recordings.length === 0) {
      process.stdout.write(`conch record: no recordings in ${visibleText(dir)}\n`);
      return 0;
    }
    for (const recording of recordings) {
      const command = visibleText(recording.command);
      const shown = command.length > COMMAND_CHARS ? `${command.slice(0, COMMAND_CHARS)}…` : command;
      process.stdout.write(
        `${String(recording.sessionId).padEnd(6)} ${new Date(recording.startedAt).toISOString()}  ${size(recording.bytes).padStart(9)}  ${shown}\n`,
      );
    }
    return 0;
  }
  if (action === "path") {
    if (rest.length !== 1)
      throw new UsageError("path takes one session ID (see conch record list)", "record");
    const id = Number(rest[0]);
    if (!Number.isSafeInteger(id) || id < 1) {
      throw new UsageError(expectedReceived("ID", "a session id", rest[0]), "record");
    }
    // Newest first: session ids repeat across daemons, and the latest is the one asked about.
    const found = listRecordings(dir).find((recording) => recording.sessionId === id);
    if (found === undefined) {
      process.stderr.write(`conch record: no recording of session ${id} in ${visibleText(dir)}\n`);
      return EXIT_NONE_FOUND;
    }
    process.stdout.write(`${found.path}\n`);
    return 0;
  }
  throw new UsageError(expectedReceived("ACTION", "list or path", action), "record");
}
