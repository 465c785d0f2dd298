import { z } from "zod";
import type { BashParams } from "../../tools/bash.js";
import { TOOL_LIMITS } from "../../tools/limits.js";
import { login, timeoutMs, workdir } from "./common.js";

/** The `bash` profile's single tool (OpenCode's shape): a script plus a short human-readable description. */
export const BashSchema = z.strictObject({
  command: z.string().min(1).describe("The bash script to run; pipes, redirects and `&&` work."),
  // Not word-counted: rejecting a call over a cosmetic rule would cost the model a turn for nothing.
  description: z
    .string()
    .min(1)
    .describe(
      "What the command does in 5–10 words, shown to the user in approval prompts, e.g. 'List files in the build directory'.",
    ),
  workdir,
  timeout_ms: timeoutMs(TOOL_LIMITS.bashTimeoutMs),
  login,
}) satisfies z.ZodType<BashParams>;
