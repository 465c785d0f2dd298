import { z } from "zod";
import type { ArgvShellParams } from "../../tools/argv.js";
import { MAX_TIMER_MS, TOOL_LIMITS } from "../../tools/limits.js";

/** The `argv` profile's `shell` (Mini Codex shape): an argv array and nothing a shell could parse. */
export const ArgvShellSchema = z.strictObject({
  argv: z
    .array(z.string())
    .min(1)
    .describe(
      'The program and its arguments, e.g. ["git", "status"]. No shell runs: pipes, globs, `$VAR` and quotes are passed literally.',
    ),
  cwd: z
    .string()
    .min(1)
    .optional()
    .describe("Directory to run in, absolute or relative to the session's working directory (the default)."),
  timeout_seconds: z
    .number()
    .positive()
    .max(MAX_TIMER_MS / 1000)
    .default(TOOL_LIMITS.argvTimeoutSeconds)
    .describe(
      `Kill the command and its child processes after this many seconds (default ${TOOL_LIMITS.argvTimeoutSeconds}; fractions allowed). A timed-out command reports exit code 124.`,
    ),
}) satisfies z.ZodType<ArgvShellParams>;
