import { z } from "zod";
import { ENV_INHERIT_POLICIES, type EnvPolicy, type ExecRequest, type ExecResult } from "../exec.js";
import { MAX_TIMER_MS } from "../tools/limits.js";

/** Bytes kept per stream at most, so one request cannot claim gigabytes. */
const MAX_OUTPUT_BYTES = 1024 ** 3;

/** How the child's environment is built: inherit, drop by pattern, then override. */
export const EnvPolicySchema = z.strictObject({
  inherit: z
    .enum(ENV_INHERIT_POLICIES)
    .optional()
    .describe("Which of the parent's variables to start from (default `all`)."),
  exclude: z
    .array(z.string())
    .optional()
    .describe(
      "Case-insensitive glob patterns of variable names to drop (default: exec-core's DEFAULT_ENV_EXCLUDES, `*KEY*`, `*SECRET*`, `*TOKEN*`, `*PASSWORD*`, `*CREDENTIAL*`, `*AUTH*`, ...).",
    ),
  allow: z
    .array(z.string().min(1))
    .optional()
    .describe(
      "Variable names (exact) inherited even when an exclude pattern matches them or their value is a URL with a password.",
    ),
  set: z
    .record(z.string(), z.string())
    .optional()
    .describe("Variables set last; they win over inherited values and Conch's pins."),
}) satisfies z.ZodType<EnvPolicy>;

/** One command to run to completion. */
export const ExecRequestSchema = z.strictObject({
  argv: z.array(z.string()).min(1).describe("The program and its arguments; no shell parsing."),
  cwd: z.string().min(1).describe("Absolute or relative directory the command runs in; must exist."),
  env: EnvPolicySchema.optional(),
  timeoutMs: z
    .number()
    .int()
    .min(1)
    .max(MAX_TIMER_MS)
    .optional()
    .describe("Kill the whole process tree after this many milliseconds; exit code 124."),
  killGraceMs: z
    .number()
    .int()
    .min(0)
    .max(MAX_TIMER_MS)
    .optional()
    .describe("Time between SIGTERM and SIGKILL when killing (default 500)."),
  drainTimeoutMs: z
    .number()
    .int()
    .min(0)
    .max(MAX_TIMER_MS)
    .optional()
    .describe("After exit, how long to wait for pipes held open by background processes (default 2000)."),
  maxOutputBytes: z
    .number()
    .int()
    .min(2)
    .max(MAX_OUTPUT_BYTES)
    .optional()
    .describe("Bytes of output kept per stream, half head and half tail (default 1 MiB)."),
}) satisfies z.ZodType<ExecRequest>;

/** What a finished command produced. Output fields are bounded head/tail text. */
export const ExecResultSchema = z.strictObject({
  command: z.array(z.string()),
  cwd: z.string(),
  exitCode: z.number().int().describe("The exit status; 128+N when killed by signal N; 124 when timed out."),
  signal: z.string().nullable().describe("The signal that ended the process, e.g. `SIGKILL`."),
  durationMs: z.number().nonnegative(),
  timedOut: z.boolean(),
  canceled: z.boolean(),
  truncated: z.boolean().describe("Some output was omitted from the middle of a stream."),
  binary: z.boolean().describe("Output held NUL bytes in its first 4 KiB and was summarised."),
  stdout: z.string(),
  stderr: z.string(),
  output: z.string().describe("stdout and stderr interleaved in arrival order."),
  stdoutBytes: z.number().int().nonnegative(),
  stderrBytes: z.number().int().nonnegative(),
  leftProcesses: z.array(z.string()),
  limitsReached: z.array(
    z.strictObject({ kind: z.enum(["memory", "processes", "file", "tmp"]), limit: z.number().nonnegative() }),
  ),
}) satisfies z.ZodType<ExecResult>;
