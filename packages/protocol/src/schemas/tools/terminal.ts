import { z } from "zod";
import { TOOL_LIMITS } from "../../tools/limits.js";
import {
  TERMINAL_SIGNALS,
  type TerminalCloseParams,
  type TerminalListParams,
  type TerminalOpenParams,
  type TerminalReadParams,
  type TerminalSignalParams,
  type TerminalWriteParams,
} from "../../tools/terminal.js";

// The `terminal` profile (DeepSeek harness shape): explicit open/write/read/signal/close/list over the same
// session store as exec_command, so `id` is a session id from 1000–99999.

const id = z
  .number()
  .int()
  .describe("The terminal id returned by terminal_open (also listed by terminal_list).");

export const TerminalOpenSchema = z.strictObject({
  command: z.string().min(1).describe("The shell command to start in a new terminal that stays open."),
  cwd: z
    .string()
    .min(1)
    .optional()
    .describe(
      "Directory to start in, absolute or relative to the session's working directory (the default).",
    ),
  tty: z
    .boolean()
    .default(true)
    .describe(
      "Run in a pseudo-terminal (default true: what REPLs, shells and full-screen programs such as vim or less need). false: plain pipes, stdin closed.",
    ),
}) satisfies z.ZodType<TerminalOpenParams>;

export const TerminalWriteSchema = z.strictObject({
  id,
  input: z
    .string()
    .min(1)
    .describe(
      'Text to send to the terminal\'s stdin; end a line with "\\n". Use terminal_read to wait for output.',
    ),
}) satisfies z.ZodType<TerminalWriteParams>;

export const TerminalReadSchema = z.strictObject({
  id,
  wait_ms: z
    .number()
    .int()
    .min(0)
    .default(TOOL_LIMITS.writeYieldTimeMs)
    .describe(
      `How long to wait for new output, in milliseconds (default ${TOOL_LIMITS.writeYieldTimeMs}, clamped to at most ${TOOL_LIMITS.emptyPollMaxMs}). Returns at once when the process exits. Only output since the previous read is returned.`,
    ),
}) satisfies z.ZodType<TerminalReadParams>;

export const TerminalSignalSchema = z.strictObject({
  id,
  signal: z
    .enum(TERMINAL_SIGNALS)
    .describe(
      "Signal for the terminal's process group: INT (like Ctrl-C), TERM (ask to exit), KILL (force exit), HUP (hang up).",
    ),
}) satisfies z.ZodType<TerminalSignalParams>;

export const TerminalCloseSchema = z.strictObject({
  id: id.describe("The terminal to close; its process and all of its children are killed."),
}) satisfies z.ZodType<TerminalCloseParams>;

export const TerminalListSchema = z
  .strictObject({})
  .describe(
    "No arguments; lists every open terminal with its id, command, pid, state and age.",
  ) satisfies z.ZodType<TerminalListParams>;
