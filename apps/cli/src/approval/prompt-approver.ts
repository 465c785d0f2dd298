import { createInterface, type Interface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import {
  type ApprovalField,
  type ApprovalRequest,
  type Approver,
  approvalFields,
  networkTarget,
  proposedRuleText,
} from "@conch/approval";
import { type ApprovalPolicy, type ReviewDecision, visibleText } from "@conch/protocol";

// What the model wrote and what the command printed can make a row of the prompt look like another:
// each value is shown escaped (approvalFields), one of several lines each behind a gutter, and a row too
// wide for the terminal is wrapped by Conch behind a continuation mark, never by the terminal, whose
// wrapped part would start at the first column like a row of the prompt.
const LABEL = 12;
const LINE = "    | ";
const CONTINUED = "    + ";
// Narrower than this, there is no room to wrap into; the terminal wraps what it must.
const MIN_ROW_WIDTH = 16;

/**
 * `label:` and the value on its row when the value is one line, else each line below it, behind a
 * gutter; a command's output always below, as output.
 */
function row({ label, value }: ApprovalField): string[] {
  const lines = value.split("\n");
  const head = `  ${label}:`;
  if (lines.length === 1 && label !== "output") return [`${head.padEnd(LABEL)}${lines[0]}`];
  return [head, ...lines.map((line) => `${LINE}${line}`)];
}

// Escapes stay whole on a row; any other character is one piece.
const PIECES = /\\u\{[0-9a-f]+\}|[\s\S]/gu;

/** `row` cut to `width` columns, counting every character past ASCII as two: it may be wide. */
function wrapRow(row: string, width: number): string[] {
  const rows: string[] = [];
  let current = "";
  let used = 0;
  for (const piece of row.match(PIECES) ?? []) {
    const cells = piece.length > 1 || piece.charCodeAt(0) < 0x80 ? piece.length : 2;
    if (used + cells > width && current !== "") {
      rows.push(current);
      current = CONTINUED;
      used = CONTINUED.length;
    }
    current += piece;
    used += cells;
  }
  rows.push(current);
  return rows;
}

/** The question, as printed before the answer line; rows wrapped to `columns` when it is known. */
function approvalPrompt(request: ApprovalRequest, policy: ApprovalPolicy, columns: number | null): string {
  const { network } = request;
  const question =
    network !== undefined
      ? `conch: let this command connect to ${visibleText(networkTarget(network.host, network.port))}? (not in network_allow; the connection waits)`
      : request.input === undefined
        ? "conch: approve this command?"
        : "conch: let the agent type this into a terminal outside the sandbox?";
  const rows = ["", question, ...approvalFields(request, policy).flatMap(row)];
  rows.push(
    network === undefined
      ? "  [y] yes  [s] yes, and don't ask again this session"
      : "  [y] yes, for this command  [s] yes, for this session",
  );
  const rule = proposedRuleText(request);
  if (rule !== null) {
    rows.push(
      network === undefined
        ? `  [a] always: run \`${rule} ...\` unasked from now on`
        : `  [a] always: store \`${rule}\``,
    );
  }
  rows.push("  [n] no");
  const shown =
    columns === null ? rows : rows.flatMap((line) => wrapRow(line, Math.max(columns, MIN_ROW_WIDTH)));
  return `${shown.join("\n")}\n`;
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
    const columns = (this.#output as { columns?: unknown }).columns;
    this.#output.write(
      approvalPrompt(request, this.#policy(), typeof columns === "number" && columns > 0 ? columns : null),
    );
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
