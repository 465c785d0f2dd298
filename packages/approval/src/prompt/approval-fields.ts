// What a person is shown about one approval, whichever way it is asked: the CLI's prompt, an MCP
// client's form, `conch pending`, the console. Every value is escaped (visibleText, line breaks kept):
// what the model wrote and what the command printed cannot pass for a row of the question.
import type { ApprovalPolicy } from "@conch/protocol";
import type { ApprovalRequest } from "../approver.js";
import { visibleText } from "./visible-text.js";

/** One row of the question: a label (`command`, `cwd`, `why`, …) and its escaped value. */
export interface ApprovalField {
  readonly label: string;
  readonly value: string;
}

// Shell words shown as typed; anything else single-quoted.
const PLAIN_WORD = /^[A-Za-z0-9_./@%+=:,-]+$/;
const SCRIPT_FLAGS = new Set(["-c", "-lc"]);
// The end of a sandbox denial's output, where the error usually is.
const DENIAL_LINES = 8;

/** A shell word as a person would type it. */
export function shellQuote(word: string): string {
  return PLAIN_WORD.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

// A run of blanks this long is shown by its length: spaces must not push the end of a command out of view.
const LONG_BLANKS = /[ \t]{16,}/g;

const escaped = (value: string): string =>
  visibleText(value, { keepLineBreaks: true }).replace(LONG_BLANKS, (run) => ` [${run.length} blanks] `);

function why(request: ApprovalRequest, policy: ApprovalPolicy): string {
  if (request.sandboxDenial !== undefined) {
    return `it failed in the sandbox (${request.sandboxMode}), apparently blocked by it; run it again outside the sandbox?`;
  }
  if (request.reason !== null) return request.reason;
  if (request.sandboxPermissions === "require_escalated") {
    return `the model asks to run it outside the sandbox (${request.sandboxMode})`;
  }
  if (policy === "untrusted") return "it is not known to be read-only, and the approval policy is untrusted";
  return `it may be dangerous, and the approval policy (${policy}) asks first`;
}

/**
 * The rows of the question, in order: a script run by a shell shows the shell (the program that really
 * runs, however it is named) and then the script; anything else its whole argv, quoted. Then what the
 * model said (purpose, justification), cwd, sandbox, why it is asked, and a denied run's last lines.
 */
export function approvalFields(request: ApprovalRequest, policy: ApprovalPolicy): ApprovalField[] {
  const fields: ApprovalField[] = [];
  const [program, flag, script] = request.argv;
  if (request.argv.length === 3 && program !== undefined && flag !== undefined && SCRIPT_FLAGS.has(flag)) {
    fields.push({ label: "shell", value: escaped(`${shellQuote(program)} ${flag}`) });
    fields.push({ label: "command", value: escaped(script as string) });
  } else {
    fields.push({ label: "command", value: escaped(request.argv.map(shellQuote).join(" ")) });
  }
  if (request.description !== undefined)
    fields.push({ label: "purpose", value: escaped(request.description) });
  if (request.justification !== undefined)
    fields.push({ label: "model", value: escaped(request.justification) });
  fields.push({ label: "cwd", value: escaped(request.cwd) });
  const sandbox =
    request.sandboxPermissions === "require_escalated" || request.sandboxDenial !== undefined
      ? "none: it would run outside the sandbox"
      : request.sandboxMode;
  fields.push({ label: "sandbox", value: sandbox }, { label: "why", value: escaped(why(request, policy)) });
  if (request.sandboxDenial !== undefined) {
    const lines = escaped(request.sandboxDenial.trimEnd()).split("\n").slice(-DENIAL_LINES);
    fields.push({ label: "output", value: lines.join("\n") });
  }
  return fields;
}

/** The prefix rule "always" would store, as a person reads it, or null when none may be stored. */
export function proposedRuleText(request: ApprovalRequest): string | null {
  return request.proposedRule === null ? null : visibleText(request.proposedRule.map(shellQuote).join(" "));
}
