// What a person is shown about one approval, whichever way it is asked: the CLI's prompt, an MCP
// client's form, `conch pending`, the console. Every value is escaped (visibleText): what the model
// wrote and what the command printed cannot pass for a row of the question. Only a command (a script has
// lines) and a denied run's output keep their line breaks, and every route shows such a value below its
// label behind a gutter; the model's own words (purpose, justification), the cwd, the reason and typed
// input are one line each, a line break in them shown as `\u{0a}`.
import type { ApprovalPolicy, SandboxMode } from "@conch/protocol";
import { visibleText } from "@conch/protocol";
import type { ApprovalRequest, NetworkQuestion } from "../approver.js";

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

const blanksShown = (value: string): string =>
  value.replace(LONG_BLANKS, (run) => ` [${run.length} blanks] `);
/** A value of several lines (a script, output), each line escaped. */
const escaped = (value: string): string => blanksShown(visibleText(value, { keepLineBreaks: true }));
/** A value that is one line, whatever it holds: a line break in it is escaped like any control. */
const oneLine = (value: string): string => blanksShown(visibleText(value));

/** The words every route shows for a command run on a terminal outside the sandbox. */
export const UNSANDBOXED_TERMINAL_TEXT =
  "an interactive terminal outside the sandbox that the agent types into";

/**
 * Whether what the model types into a session outside the sandbox is asked first, input by input: where
 * the person keeps a sandbox (whatever leaves it was a person's yes for that command, never for what is
 * typed into it later) or asks before every unread command (`untrusted`). With no sandbox configured and
 * a policy that runs unread commands unasked, typed text is no different from a command.
 */
export function sessionInputNeedsApproval(sandboxMode: SandboxMode, policy: ApprovalPolicy): boolean {
  return sandboxMode === "read-only" || sandboxMode === "workspace-write" || policy === "untrusted";
}

/** The request runs (or types into something that runs) outside Conch's sandbox. */
function unsandboxed(request: ApprovalRequest): boolean {
  return (
    request.input !== undefined ||
    request.sandboxPermissions === "require_escalated" ||
    request.sandboxDenial !== undefined ||
    request.sandboxMode === "danger-full-access"
  );
}

function why(request: ApprovalRequest, policy: ApprovalPolicy): string {
  if (request.network !== undefined) {
    return `the command connects to a host that is not in network_allow (${request.network.why}); the sandbox's network goes through Conch's proxy, which waits for this answer`;
  }
  if (request.input !== undefined) {
    return `the model types this into session ${request.input.sessionId}, which runs outside the sandbox: what the program does with it (a shell's next line, less's or vi's \`!\`) runs on the host`;
  }
  if (request.sandboxDenial !== undefined) {
    return `it failed in the sandbox (${request.sandboxMode}), apparently blocked by it; run it again outside the sandbox?`;
  }
  if (request.reason !== null) return request.reason;
  // What decided it, in the words the model got ("rm with -f/--force deletes without asking …"), rather
  // than the policy's general words.
  if (request.explanation !== undefined && request.sandboxPermissions !== "require_escalated") {
    return request.explanation.why;
  }
  if (request.sandboxPermissions === "require_escalated") {
    return `the model asks to run it outside the sandbox (${request.sandboxMode})`;
  }
  if (policy === "untrusted") return "it is not known to be read-only, and the approval policy is untrusted";
  return `it may be dangerous, and the approval policy (${policy}) asks first`;
}

/**
 * The rows of the question, in order: for typed input, the text, the session it goes to, and the line
 * it completes when the model typed part of it before. Then a
 * script run by a shell shows the shell (the program that really runs, however it is named) and then
 * the script; anything else its whole argv, quoted. Then what the model said (purpose, justification),
 * cwd, sandbox, the terminal the agent types into (when it is outside the sandbox), why it is asked, and
 * a denied run's last lines.
 */
export function approvalFields(request: ApprovalRequest, policy: ApprovalPolicy): ApprovalField[] {
  const fields: ApprovalField[] = [];
  if (request.network !== undefined) {
    const { host, port, protocol } = request.network;
    fields.push({ label: "network", value: oneLine(`${networkTarget(host, port)} (${protocol})`) });
  }
  if (request.input !== undefined) {
    fields.push(
      { label: "input", value: oneLine(request.input.text) },
      { label: "session", value: String(request.input.sessionId) },
    );
    // The line as it stands once the input is added: pieces asked one by one are seen together.
    const { line } = request.input;
    if (line !== undefined && line !== "") {
      fields.push({ label: "line", value: oneLine(line + request.input.text) });
    }
  }
  const [program, flag, script] = request.argv;
  if (request.argv.length === 3 && program !== undefined && flag !== undefined && SCRIPT_FLAGS.has(flag)) {
    fields.push({ label: "shell", value: oneLine(`${shellQuote(program)} ${flag}`) });
    fields.push({ label: "command", value: escaped(script as string) });
  } else {
    fields.push({ label: "command", value: escaped(request.argv.map(shellQuote).join(" ")) });
  }
  if (request.description !== undefined)
    fields.push({ label: "purpose", value: oneLine(request.description) });
  if (request.justification !== undefined)
    fields.push({ label: "model", value: oneLine(request.justification) });
  fields.push({ label: "cwd", value: oneLine(request.cwd) });
  const sandbox =
    request.network !== undefined
      ? `${request.sandboxMode}: the command runs in the sandbox; only this connection is asked`
      : request.input !== undefined ||
          request.sandboxPermissions === "require_escalated" ||
          request.sandboxDenial !== undefined
        ? "none: it would run outside the sandbox"
        : request.sandboxMode;
  fields.push({ label: "sandbox", value: sandbox });
  if (request.tty && unsandboxed(request)) {
    const asked = sessionInputNeedsApproval(request.sandboxMode, policy)
      ? ": each thing it types but Ctrl-C is asked again, shown here first"
      : ": what it types runs unasked";
    fields.push({ label: "terminal", value: `${UNSANDBOXED_TERMINAL_TEXT}${asked}` });
  }
  fields.push({ label: "why", value: oneLine(why(request, policy)) });
  if (request.sandboxDenial !== undefined) {
    const lines = escaped(request.sandboxDenial.trimEnd()).split("\n").slice(-DENIAL_LINES);
    fields.push({ label: "output", value: lines.join("\n") });
  }
  return fields;
}

/** `host:port`, an IPv6 literal in brackets. */
export function networkTarget(host: string, port: number): string {
  return `${host.includes(":") ? `[${host}]` : host}:${port}`;
}

/**
 * What "always" would store, as a person reads it, or null when nothing may be stored: a prefix rule's
 * words, or for a connection the `network_rule` line (the host, any port).
 */
export function proposedRuleText(request: ApprovalRequest): string | null {
  if (request.network !== undefined) {
    return request.proposedRule === null ? null : visibleText(networkRuleLine(request.network));
  }
  return request.proposedRule === null ? null : visibleText(request.proposedRule.map(shellQuote).join(" "));
}

/** The rules-file line "always" stores for a connection: the host, any port, the protocol asked. */
export function networkRuleLine(network: NetworkQuestion): string {
  const protocol = network.protocol === "socks5" ? "socks5_tcp" : network.protocol;
  return `network_rule(host=${JSON.stringify(network.host)}, protocol=${JSON.stringify(protocol)}, decision="allow")`;
}
