import { z } from "zod";
import { SANDBOX_PERMISSIONS } from "../../policies.js";
import { MAX_TIMER_MS, TOOL_LIMITS } from "../../tools/limits.js";

// The fields several tools share, each with the description the model reads.

export const timeoutMs = (defaultMs: number) =>
  z
    .number()
    .int()
    .min(1)
    .max(MAX_TIMER_MS)
    .default(defaultMs)
    .describe(
      `Kill the command and its child processes after this many milliseconds (default ${defaultMs}). ` +
        "A timed-out command reports exit code 124 and its output starts with `command timed out after N milliseconds`.",
    );

export const workdir = z
  .string()
  .min(1)
  .optional()
  .describe(
    "Directory to run the command in, absolute or relative to the session's working directory (the default). Set this instead of using `cd`.",
  );

// Optional rather than defaulted: the default is a config decision (a config can forbid login shells), so
// the runtime must be able to tell "not given" from an explicit `true`.
export const login = z
  .boolean()
  .optional()
  .describe(
    "Run the shell as a login shell (`-l`), so profile files set up PATH and tools. Defaults to true unless the configuration forbids login shells.",
  );

export const maxOutputTokens = z
  .number()
  .int()
  .min(1)
  .default(TOOL_LIMITS.maxOutputTokens)
  .describe(
    `Most tokens of output to return (1 token is about 4 bytes; default ${TOOL_LIMITS.maxOutputTokens}). Longer output keeps its first and last whole lines, with one line between that names the lines left out, the file holding the full output, and the \`sed -n 'A,Bp' FILE\` command that reads a range of it.`,
  );

export const sandboxPermissions = z
  .enum(SANDBOX_PERMISSIONS)
  .default("use_default")
  .describe(
    "Sandbox for this command. `use_default` (the default) runs it in the session's sandbox; `require_escalated` asks the user to run it without sandbox restrictions and needs `justification`. Only allowed under the `on-request` approval policy.",
  );

/** What a call that escalates without a justification is told: the field is required with it. */
const JUSTIFICATION_REQUIRED =
  'required with sandbox_permissions "require_escalated": one short question, shown to the user, that says why the command must run outside the sandbox';

/**
 * The check `justification`'s description promises, for a tool's `superRefine`: `require_escalated`
 * asks a person, who decides on the justification, so one without the other is an invalid argument.
 * The JSON Schema cannot say it (models' schema dialects have no `if`/`then`); the description does.
 */
export function escalationNeedsJustification(
  input: { readonly sandbox_permissions: string; readonly justification?: string | undefined },
  context: z.RefinementCtx,
): void {
  if (input.sandbox_permissions === "require_escalated" && input.justification === undefined) {
    context.addIssue({ code: "custom", path: ["justification"], message: JUSTIFICATION_REQUIRED });
  }
}

export const justification = z
  .string()
  .min(1)
  .optional()
  .describe(
    'Only with `sandbox_permissions: "require_escalated"`: one short question, shown to the user, that says why the command must run outside the sandbox, e.g. "Do you want to fetch and pull the latest version of this git branch?"',
  );

// At least one non-empty token: an empty prefix would approve every future command.
export const prefixRule = z
  .array(z.string().min(1))
  .min(1)
  .optional()
  .describe(
    'Only with `sandbox_permissions: "require_escalated"`: a short command prefix the user may allow from now on so similar commands run without asking, e.g. ["git", "pull"], ["uv", "run"] or ["pytest"].',
  );

/** The longest `wait_for_approval_ms`: a pending approval lapses after 10 minutes anyway. */
const MAX_APPROVAL_WAIT_MS = 600_000;

export const waitForApprovalMs = z
  .number()
  .int()
  .min(0)
  .max(MAX_APPROVAL_WAIT_MS)
  .optional()
  .describe(
    "If the command needs a person's approval and the client cannot ask them (the answer comes out of band), wait up to this long (ms; at most the call's own limit) for their answer and return the command's result, instead of returning at once with a pending approval ID.",
  );
