import { createInterface, type Interface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import type { ApprovalPolicy, ApprovalRequest, Approver, ReviewDecision } from "@conch/approval";

// Shell words printed as typed; anything else single-quoted.
const PLAIN_WORD = /^[A-Za-z0-9_./@%+=:,-]+$/;
const SCRIPT_FLAGS = new Set(["-c", "-lc"]);
// The end of a sandbox denial's output, where the error usually is.
const DENIAL_LINES = 8;

function quote(word: string): string {
  return PLAIN_WORD.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The command as a person reads it: a shell script itself, else the argv quoted. */
function displayCommand(argv: readonly string[]): string {
  const [, flag, script] = argv;
  if (argv.length === 3 && flag !== undefined && SCRIPT_FLAGS.has(flag) && script !== undefined)
    return script;
  return argv.map(quote).join(" ");
}

function why(request: ApprovalRequest, policy: ApprovalPolicy): string {
  if (request.sandboxDenial !== undefined) {
    return `it failed in the sandbox (${request.sandboxPolicy}), apparently blocked by it; run it again outside the sandbox?`;
  }
  if (request.reason !== null) return request.reason;
  if (request.sandboxPermissions === "require_escalated") {
    return `the model asks to run it outside the sandbox (${request.sandboxPolicy})`;
  }
  if (policy === "untrusted") return "it is not known to be read-only, and the approval policy is untrusted";
  return `it may be dangerous, and the approval policy (${policy}) asks first`;
}

/** The question, as printed before the answer line. */
function approvalPrompt(request: ApprovalRequest, policy: ApprovalPolicy): string {
  const lines = ["", "conch: approve this command?", `  command:  ${displayCommand(request.argv)}`];
  if (request.description !== undefined) lines.push(`  purpose:  ${request.description}`);
  if (request.justification !== undefined) lines.push(`  model:    ${request.justification}`);
  lines.push(`  cwd:      ${request.cwd}`);
  const sandbox =
    request.sandboxPermissions === "require_escalated" || request.sandboxDenial !== undefined
      ? "none: it would run outside the sandbox"
      : request.sandboxPolicy;
  lines.push(`  sandbox:  ${sandbox}`, `  why:      ${why(request, policy)}`);
  if (request.sandboxDenial !== undefined) {
    const tail = request.sandboxDenial.trimEnd().split("\n").slice(-DENIAL_LINES);
    lines.push("  output:", ...tail.map((line) => `    | ${line}`));
  }
  const always =
    request.proposedRule === null
      ? ""
      : `  [a] always: run \`${request.proposedRule.map(quote).join(" ")} ...\` unasked from now on\n`;
  return `${lines.join("\n")}\n  [y] yes  [s] yes, and don't ask again this session\n${always}  [n] no\n`;
}

const ANSWERS: Readonly<Record<string, ReviewDecision>> = {
  y: "approved",
  yes: "approved",
  s: "approved_for_session",
  session: "approved_for_session",
  a: "approved_always",
  always: "approved_always",
  n: "denied",
  no: "denied",
};

/**
 * Asks on `output` and reads answers, one per line, from `input`: the terminal, or whatever is piped in.
 * End of input answers no. Requests are asked one at a time, in order.
 */
export class PromptApprover implements Approver {
  readonly #input: Readable;
  readonly #output: Writable;
  readonly #policy: () => ApprovalPolicy;
  #lines: AsyncIterator<string> | null = null;
  #reader: Interface | null = null;
  #queue: Promise<unknown> = Promise.resolve();

  /** `policy` is read at each request: it names the policy in the question. */
  constructor(input: Readable, output: Writable, policy: () => ApprovalPolicy) {
    this.#input = input;
    this.#output = output;
    this.#policy = policy;
  }

  request(request: ApprovalRequest, options: { signal?: AbortSignal } = {}): Promise<ReviewDecision> {
    const answer = this.#queue.then(() => this.#ask(request, options.signal));
    this.#queue = answer.catch(() => undefined);
    return answer;
  }

  async #ask(request: ApprovalRequest, signal: AbortSignal | undefined): Promise<ReviewDecision> {
    if (signal?.aborted) return "abort";
    this.#output.write(approvalPrompt(request, this.#policy()));
    const choices = request.proposedRule === null ? "y/s/n" : "y/s/a/n";
    for (;;) {
      this.#output.write(`answer [${choices}]: `);
      const line = await this.#nextLine(signal);
      if (line === "aborted") {
        this.#output.write("\nconch: canceled\n");
        return "abort";
      }
      if (line === null) {
        this.#output.write("\nconch: no answer (end of input): not approved\n");
        return "denied";
      }
      const decision = ANSWERS[line.trim().toLowerCase()];
      if (decision !== undefined && !(decision === "approved_always" && request.proposedRule === null)) {
        return decision;
      }
      this.#output.write(`conch: answer one of ${choices}\n`);
    }
  }

  /** The next answer line, null at end of input, or "aborted" when `signal` fires first. */
  async #nextLine(signal: AbortSignal | undefined): Promise<string | null> {
    if (this.#lines === null) {
      this.#reader = createInterface({ input: this.#input, terminal: false });
      this.#lines = this.#reader[Symbol.asyncIterator]();
    }
    const lines = this.#lines;
    let onAbort = (): void => {};
    const aborted = new Promise<"aborted">((resolve) => {
      onAbort = () => resolve("aborted");
      signal?.addEventListener("abort", onAbort, { once: true });
    });
    try {
      // A pending next() survives an abort and takes the following line; the process is ending then anyway.
      const next = await Promise.race([lines.next(), aborted]);
      if (next === "aborted") return "aborted";
      return next.done === true ? null : next.value;
    } finally {
      signal?.removeEventListener("abort", onAbort);
    }
  }

  /** Stops reading input, so the process can exit. */
  close(): void {
    this.#reader?.close();
  }
}
