import type { ReviewDecision, SandboxMode, SandboxPermissions } from "@conch/protocol";
import type { RequirementExplanation } from "./requirement/reasons.js";

/** Everything a person needs to decide about one command. */
export interface ApprovalRequest {
  argv: readonly string[];
  cwd: string;
  /** Why approval is needed (a rule's reason), or null when the heuristics asked. */
  reason: string | null;
  /**
   * The prefix rule `approved_always` stores, already checked with `storablePrefixRule`; null when
   * none may be stored, so "always" is not offered.
   */
  proposedRule: readonly string[] | null;
  /** The model's reason for asking to leave the sandbox (`justification`). */
  justification?: string;
  /** The model's 5–10 word description of the command (the `bash` tool profile's `description`). */
  description?: string;
  /**
   * Set when the command already ran in the sandbox and the sandbox denied it: what it printed (its
   * tail), so the person can judge the retry outside the sandbox this request asks for.
   */
  sandboxDenial?: string;
  /**
   * What decided that it is asked (the part of the command line, the rule, the danger, the policy) and
   * what the model could do instead: for a text the model reads while nobody has answered yet.
   */
  explanation?: RequirementExplanation;
  sandboxMode: SandboxMode;
  sandboxPermissions: SandboxPermissions;
  /** The command runs on a terminal the model types into (`tty`), rather than with stdin closed. */
  tty: boolean;
  /**
   * Set when what is asked is not a new command but text the model types into a live session that runs
   * outside the sandbox (`argv`, `cwd` and `tty` are that session's): whatever the program does with it
   * (less's `!`, a shell's next line) runs on the host.
   */
  input?: SessionInputQuestion;
  /**
   * Set when what is asked is not a command but a connection its command opens through Conch's network
   * proxy to a host the configuration does not list (`argv`, `cwd` and `tty` are that command's).
   * "Run once" allows the host for the rest of that command, "for this session" for every command while
   * Conch runs, "always" stores a `network_rule` for the host: `proposedRule` is then that rules-file
   * line as its one element (`networkRuleLine`), or null when nothing may be stored.
   */
  network?: NetworkQuestion;
}

/** A connection to a host the configuration does not list. */
export interface NetworkQuestion {
  readonly host: string;
  readonly port: number;
  /** How the command asked for it: plain HTTP, HTTPS (CONNECT) or SOCKS5. */
  readonly protocol: "http" | "https" | "socks5";
  /** Why it is not allowed unasked (the configuration's words). */
  readonly why: string;
}

/** Text the model asks to type into a live session outside the sandbox. */
export interface SessionInputQuestion {
  readonly sessionId: number;
  readonly text: string;
  /**
   * What the model typed earlier that no line end has entered yet, when anything: `text` adds to it (an
   * Enter after `!` and `touch x`, each asked alone, enters `!touch x`).
   */
  readonly line?: string;
}

/**
 * Who gave an answer: a person at a prompt, a person through an MCP client's form, or out of band; or
 * nobody (`policy`: a fixed answer, such as `conch --approver deny`).
 */
export type ApprovalAnswerer = "user" | "elicitation" | "out-of-band" | "policy";

/**
 * An answer with more than the decision: who gave it, and for a "no" why, in the words the model reads.
 * A plain `ReviewDecision` is the same as `{ decision }` from a person at a prompt.
 */
export interface ApprovalAnswer {
  readonly decision: ReviewDecision;
  /** Who answered (the audit log's `decidedBy`); default `user`. */
  readonly decidedBy?: ApprovalAnswerer;
  /**
   * How a decision other than an approval came about: `denied`, a person said no (the default for
   * `denied`); `not-approved`, nobody said yes (the question was cancelled, timed out or failed);
   * `pending`, a person has yet to answer elsewhere (out of band), and the same call may be retried.
   */
  readonly outcome?: "denied" | "not-approved" | "pending";
  /** For a decision other than an approval: what the model reads (default: `rejected by user`). */
  readonly reason?: string;
}

/** Asks someone (a TTY prompt, an MCP elicitation, a callback) whether a command may run. */
export interface Approver {
  /**
   * `options.signal` aborts when the call is canceled: stop asking and answer `abort`. `options.waitMs`:
   * where the answer would come out of band (pending), wait up to this long for it before answering
   * `pending`.
   */
  request(
    request: ApprovalRequest,
    options?: { signal?: AbortSignal; waitMs?: number },
  ): Promise<ReviewDecision | ApprovalAnswer>;
}

/**
 * An Approver for tests: answers with the given decisions in order and records every request. A
 * request beyond the script rejects, naming the command, so a test that asks more than it planned fails
 * where it happened.
 */
export class ScriptedApprover implements Approver {
  /** Every request received, in order, including one that found no answer left. */
  readonly requests: ApprovalRequest[] = [];
  readonly #decisions: readonly ReviewDecision[];

  constructor(decisions: Iterable<ReviewDecision>) {
    this.#decisions = [...decisions];
  }

  /** How many scripted answers are left. */
  get remaining(): number {
    return this.#decisions.length - Math.min(this.requests.length, this.#decisions.length);
  }

  async request(request: ApprovalRequest): Promise<ReviewDecision> {
    this.requests.push(request);
    const decision = this.#decisions[this.requests.length - 1];
    if (decision === undefined) {
      throw new Error(
        `ScriptedApprover: no decision left for request ${this.requests.length} ` +
          `(${JSON.stringify(request.argv)} in ${request.cwd}); ${this.#decisions.length} scripted`,
      );
    }
    return decision;
  }
}
