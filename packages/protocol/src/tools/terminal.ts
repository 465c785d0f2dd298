import { z } from "zod";
import { TOOL_LIMITS } from "./common.js";

// The `terminal` profile (DeepSeek harness shape): explicit open/write/read/signal/close/list over the same
// session store as exec_command, so `id` is a session id from 1000–99999.

export const TERMINAL_SIGNALS = ["INT", "TERM", "KILL", "HUP"] as const;
export type TerminalSignal = (typeof TERMINAL_SIGNALS)[number];

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
});
export type TerminalOpenParams = z.infer<typeof TerminalOpenSchema>;

export const TerminalWriteSchema = z.strictObject({
  id,
  input: z
    .string()
    .min(1)
    .describe(
      'Text to send to the terminal\'s stdin; end a line with "\\n". Use terminal_read to wait for output.',
    ),
});
export type TerminalWriteParams = z.infer<typeof TerminalWriteSchema>;

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
});
export type TerminalReadParams = z.infer<typeof TerminalReadSchema>;

export const TerminalSignalSchema = z.strictObject({
  id,
  signal: z
    .enum(TERMINAL_SIGNALS)
    .describe(
      "Signal for the terminal's process group: INT (like Ctrl-C), TERM (ask to exit), KILL (force exit), HUP (hang up).",
    ),
});
export type TerminalSignalParams = z.infer<typeof TerminalSignalSchema>;

export const TerminalCloseSchema = z.strictObject({
  id: id.describe("The terminal to close; its process and all of its children are killed."),
});
export type TerminalCloseParams = z.infer<typeof TerminalCloseSchema>;

export const TerminalListSchema = z
  .strictObject({})
  .describe("No arguments; lists every open terminal with its id, command, pid, state and age.");
export type TerminalListParams = z.infer<typeof TerminalListSchema>;
