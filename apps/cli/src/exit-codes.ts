// Every exit status conch reports, and every mapping from an error or an outcome to one: the help's
// "Exit status" paragraph (help.ts) says the same to the user.
import { constants } from "node:os";
import { type ConchErrorCode, isConchError, type RejectionKind, type ToolResult } from "@conch/protocol";
import { UsageError } from "./errors.js";

export const EXIT_OK = 0;
/** An error no Conch package raised: a bug. */
const EXIT_INTERNAL = 1;
/** A usage error, or a bad config or rules file. */
export const EXIT_USAGE = 2;
/** The sandbox cannot run here; the command did not run. */
const EXIT_SANDBOX_UNAVAILABLE = 3;
/** The command did not run: a rule, the approval policy or the person asked said no. */
const EXIT_REJECTED = 4;
/**
 * Nothing matches: no running conchd holds that approval (`conch approve`, `conch deny`) or serves a
 * console (`conch console`), or there is no recording of that session (`conch record path`).
 */
export const EXIT_NONE_FOUND = 5;
/** As a shell reports them: the program exists but cannot be run, or does not exist. */
const EXIT_CANNOT_RUN = 126;
const EXIT_NOT_FOUND = 127;

/** 128+N after signal N (130 after Ctrl-C), as a shell reports a command it stopped. */
export function exitCodeForSignal(signal: NodeJS.Signals): number {
  return 128 + constants.signals[signal];
}

/** conch's own output was closed by its reader: a pipeline's writer killed by SIGPIPE. */
export const EXIT_BROKEN_PIPE: number = exitCodeForSignal("SIGPIPE");

/** A command the orchestrator did not run. */
export function exitCodeForRejection(kind: RejectionKind): number {
  return kind === "sandbox-unavailable" ? EXIT_SANDBOX_UNAVAILABLE : EXIT_REJECTED;
}

/** `conch tool call`: 0 when the command ran (its own exit code is in the text). */
export function exitCodeForToolResult(result: ToolResult): number {
  switch (result.status) {
    case "ok":
      return EXIT_OK;
    case "invalid":
      return EXIT_USAGE;
    case "rejected":
      return result.rejection === null ? EXIT_REJECTED : exitCodeForRejection(result.rejection);
    case "failed":
      return EXIT_INTERNAL;
  }
}

/** An error that ended a command: what it says about why conch could not do what was asked. */
export function exitCodeForError(error: unknown): number {
  if (error instanceof UsageError) return EXIT_USAGE;
  if (!isConchError(error)) return EXIT_INTERNAL;
  return exitCodeForCode(error.code, (error.cause as NodeJS.ErrnoException | undefined)?.code);
}

/** A failure's Conch error code (and, for a spawn, the system's code of its cause) as an exit status. */
export function exitCodeForCode(code: ConchErrorCode | "INTERNAL", systemCode?: string): number {
  switch (code) {
    case "INTERNAL":
      return EXIT_INTERNAL;
    case "SHELL_NOT_FOUND":
      return EXIT_NOT_FOUND;
    case "SANDBOX_UNAVAILABLE":
      return EXIT_SANDBOX_UNAVAILABLE;
    case "SPAWN_FAILED":
      return systemCode === "ENOENT" ? EXIT_NOT_FOUND : EXIT_CANNOT_RUN;
    default:
      return EXIT_USAGE;
  }
}
