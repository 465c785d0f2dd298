// Approvals a person gives out of band (`conch approve ID`, the console), for a client that cannot ask
// anyone: the call that needs a yes returns at once naming a pending id; a person grants or refuses it
// elsewhere; the same call retried with the same command finds the answer. Questions a client's own form
// is asking are listed here too, so that a person elsewhere may answer first: the first answer wins.
// No I/O here: the daemon serves it.
import { randomBytes } from "node:crypto";
import type { ApprovalPolicy } from "@conch/protocol";
import type { ApprovalAnswer, ApprovalRequest } from "../approver.js";
import { type ApprovalField, approvalFields, proposedRuleText } from "../prompt/approval-fields.js";

/** How long a question waits for an answer, and a granted approval for its retry. */
export const PENDING_APPROVAL_TTL_MS: number = 10 * 60 * 1000;

/** What a person sees of a pending approval (`conch pending`). */
export interface PendingApproval {
  readonly id: string;
  readonly argv: readonly string[];
  readonly cwd: string;
  readonly reason: string | null;
  readonly justification: string | null;
  readonly description: string | null;
  readonly sandboxMode: ApprovalRequest["sandboxMode"];
  readonly sandboxPermissions: ApprovalRequest["sandboxPermissions"];
  readonly tty: boolean;
  /** Who asked: the MCP client's name, as it gave it (untrusted). */
  readonly client: string;
  /** For a connection rather than a command: where to (see ApprovalRequest.network), else null. */
  readonly network: { readonly host: string; readonly port: number; readonly protocol: string } | null;
  /** The question's rows exactly as every prompt shows them (`approvalFields`): escaped. */
  readonly fields: readonly ApprovalField[];
  /** The rule "always allow" would store, as shown (`proposedRuleText`); null when none may be stored. */
  readonly rule: string | null;
  /**
   * `out-of-band`: only a person here can answer. `elicitation`: the client's form asks it too, and
   * whichever answer comes first counts.
   */
  readonly route: PendingRoute;
  /** When it was asked and when it lapses, ms since the epoch. */
  readonly createdAt: number;
  readonly expiresAt: number;
}

/** What the model's text about a pending question says of it: asked before, how long ago, when it lapses. */
export interface PendingAsked {
  /** The same question was asked before (this is a retry before anyone answered). */
  readonly again: boolean;
  readonly askedMsAgo: number;
  readonly lapsesInMs: number;
}

/** Where else a pending question is being asked. */
export type PendingRoute = "out-of-band" | "elicitation";

/**
 * How a person answers: run it once, allow it for the daemon's session, allow it always (store the
 * question's rule), or refuse (with a note).
 */
export type PendingVerdict =
  | { readonly decision: "approve"; readonly scope: "once" | "session" | "always" }
  | { readonly decision: "deny"; readonly note?: string };

/** A question a client's form is asking right now (`open`), which a person elsewhere may answer first. */
export interface LiveQuestion {
  readonly id: string;
  /** Resolves with a person's answer given here; never rejects, and never resolves once closed. */
  readonly answered: Promise<ApprovalAnswer>;
  /** Takes the question off the list (the client's form answered it, or the call ended). */
  close(): void;
}

interface Entry {
  readonly key: string;
  readonly shown: PendingApproval;
  verdict: PendingVerdict | null;
  /** Until when the entry counts: the question's lapse, then the granted answer's. */
  expiresAt: number;
  /** For a live question: called with the answer, instead of keeping it for a retry. */
  onAnswer: ((answer: ApprovalAnswer) => void) | null;
}

export interface PendingApprovalsOptions {
  /** The clock, ms since the epoch (tests move it). */
  readonly now?: () => number;
  readonly ttlMs?: number;
  /** At most this many questions wait at once; the oldest lapses first (default 256). */
  readonly max?: number;
  /** The approval policy the questions are asked under, for their rows (default `on-request`). */
  readonly policy?: ApprovalPolicy;
  /**
   * Told of a person's answer to a question that waits for the model's retry, when it is given (the
   * audit log records a decision when it is made, not only once a retry uses it; a no may never be).
   */
  readonly onAnswer?: (question: PendingApproval, verdict: PendingVerdict) => void;
}

/**
 * Which question a request asks, whichever route asks it: the same argv, cwd, permissions, sandbox, tty,
 * reason, typed input (text, the line it adds to, and session) and connection (host, port, protocol) ask the same question. What a denied run printed (`sandboxDenial`) is not part of it: a
 * retry outside the sandbox is the same question however its output varied.
 */
export function approvalQuestionKey(request: ApprovalRequest): string {
  return JSON.stringify([
    request.argv,
    request.cwd,
    request.sandboxMode,
    request.sandboxPermissions,
    request.tty,
    request.reason,
    request.input === undefined
      ? null
      : [request.input.sessionId, request.input.line ?? "", request.input.text],
    request.network === undefined
      ? null
      : [request.network.host, request.network.port, request.network.protocol],
  ]);
}

// Crockford's base32, without the letters people misread.
const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";

function newId(): string {
  const bytes = randomBytes(8);
  let id = "";
  for (const byte of bytes) id += ALPHABET[byte & 31];
  return id;
}

/** The answer a verdict gives the call that asked. */
function answerOf(verdict: PendingVerdict): ApprovalAnswer {
  if (verdict.decision === "approve") {
    const decision =
      verdict.scope === "always"
        ? "approved_always"
        : verdict.scope === "session"
          ? "approved_for_session"
          : "approved";
    return { decision, decidedBy: "out-of-band" };
  }
  const note = verdict.note === undefined || verdict.note === "" ? "" : `: ${verdict.note}`;
  return { decision: "denied", decidedBy: "out-of-band", reason: `rejected by user${note}` };
}

/**
 * The pending approvals of one daemon. `ask` is what the daemon's out-of-band approver calls for every
 * command that needs a yes; `answer` is what a person calls through `conch approve/deny` or the console.
 * Never treats no answer as yes: a question nobody answered lapses after the TTL and is asked anew.
 */
export class PendingApprovals {
  readonly #entries = new Map<string, Entry>();
  readonly #now: () => number;
  readonly #ttl: number;
  readonly #max: number;
  readonly #policy: ApprovalPolicy;
  readonly #listeners = new Set<() => void>();
  readonly #onAnswer: PendingApprovalsOptions["onAnswer"];

  constructor(options: PendingApprovalsOptions = {}) {
    this.#onAnswer = options.onAnswer;
    this.#now = options.now ?? Date.now;
    this.#ttl = options.ttlMs ?? PENDING_APPROVAL_TTL_MS;
    this.#max = options.max ?? 256;
    this.#policy = options.policy ?? "on-request";
  }

  /** Calls `listener` whenever the list changes (a question asked, answered, used or lapsed). */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #changed(): void {
    for (const listener of this.#listeners) listener();
  }

  #sweep(): void {
    const now = this.#now();
    let changed = false;
    for (const [id, entry] of this.#entries) {
      if (entry.expiresAt <= now) {
        this.#entries.delete(id);
        changed = true;
      }
    }
    if (changed) this.#changed();
  }

  /**
   * The answer to `request` if a person gave one (used up unless it was for the session), else the
   * pending question, made now if there is none yet. `hint(id)` is what the model reads while it waits.
   * `route` says whether the client's own form asks it too (a 2026-07-28 round, answered on its retry).
   */
  ask(
    request: ApprovalRequest,
    client: string,
    hint: (id: string, asked: PendingAsked) => string,
    route: PendingRoute = "out-of-band",
  ): ApprovalAnswer {
    const answer = this.take(request);
    if (answer !== null) return answer;
    const found = this.#find(request);
    const entry = found ?? this.#add(request, client, route, null);
    const asked: PendingAsked = {
      again: found !== undefined,
      askedMsAgo: this.#now() - entry.shown.createdAt,
      lapsesInMs: entry.expiresAt - this.#now(),
    };
    return {
      decision: "abort",
      outcome: "pending",
      decidedBy: "out-of-band",
      reason: hint(entry.shown.id, asked),
    };
  }

  /**
   * A person's answer to the question about `request`, waited for at most `waitMs` (or until `signal`
   * aborts): used up as `take` does; null when none came in time.
   */
  waitForAnswer(
    request: ApprovalRequest,
    waitMs: number,
    signal?: AbortSignal,
  ): Promise<ApprovalAnswer | null> {
    const now = this.take(request);
    if (now !== null || waitMs <= 0 || signal?.aborted === true) return Promise.resolve(now);
    return new Promise((resolve) => {
      const finish = (answer: ApprovalAnswer | null): void => {
        clearTimeout(timer);
        stop();
        signal?.removeEventListener("abort", onAbort);
        resolve(answer);
      };
      const onAbort = (): void => finish(null);
      const timer = setTimeout(() => finish(null), waitMs);
      const stop = this.onChange(() => {
        const answer = this.take(request);
        if (answer !== null) finish(answer);
      });
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** A person's answer to the question about `request`, used up; null when nobody answered it here. */
  take(request: ApprovalRequest): ApprovalAnswer | null {
    this.#sweep();
    const entry = this.#find(request);
    if (entry?.verdict == null) return null;
    this.#entries.delete(entry.shown.id);
    this.#changed();
    return answerOf(entry.verdict);
  }

  /** The client's own form answered the question about `request` first: it leaves the list. */
  withdraw(request: ApprovalRequest): void {
    const entry = this.#find(request);
    if (entry === undefined || entry.verdict !== null) return;
    this.#entries.delete(entry.shown.id);
    this.#changed();
  }

  /**
   * Lists a question the client's form is asking now (a 2025-era elicitation), until `close`: a person
   * who answers it here first resolves `answered` instead. With route `out-of-band`, a question only a
   * person here can answer while its caller waits (a connection the network proxy holds).
   */
  open(request: ApprovalRequest, client: string, route: PendingRoute = "elicitation"): LiveQuestion {
    let resolve: (answer: ApprovalAnswer) => void = () => {};
    const answered = new Promise<ApprovalAnswer>((settle) => {
      resolve = settle;
    });
    const entry = this.#add(request, client, route, resolve);
    return {
      id: entry.shown.id,
      answered,
      close: () => {
        if (this.#entries.get(entry.shown.id) !== entry) return;
        this.#entries.delete(entry.shown.id);
        this.#changed();
      },
    };
  }

  #find(request: ApprovalRequest): Entry | undefined {
    const key = approvalQuestionKey(request);
    for (const entry of this.#entries.values()) {
      if (entry.key === key && entry.onAnswer === null) return entry;
    }
    return undefined;
  }

  #add(request: ApprovalRequest, client: string, route: PendingRoute, onAnswer: Entry["onAnswer"]): Entry {
    this.#sweep();
    // Full: the oldest unanswered question lapses first; an answer a person gave is kept for its retry
    // unless every entry is one.
    while (this.#entries.size >= this.#max) {
      const entries = [...this.#entries.values()];
      const oldest = entries.find((candidate) => candidate.verdict === null) ?? entries[0];
      if (oldest === undefined) break;
      this.#entries.delete(oldest.shown.id);
    }
    const now = this.#now();
    let id = newId();
    while (this.#entries.has(id)) id = newId();
    const shown: PendingApproval = {
      id,
      argv: [...request.argv],
      cwd: request.cwd,
      reason: request.reason,
      justification: request.justification ?? null,
      description: request.description ?? null,
      sandboxMode: request.sandboxMode,
      sandboxPermissions: request.sandboxPermissions,
      tty: request.tty,
      client,
      network:
        request.network === undefined
          ? null
          : { host: request.network.host, port: request.network.port, protocol: request.network.protocol },
      fields: approvalFields(request, this.#policy),
      rule: proposedRuleText(request),
      route,
      createdAt: now,
      expiresAt: now + this.#ttl,
    };
    const entry: Entry = {
      key: approvalQuestionKey(request),
      shown,
      verdict: null,
      expiresAt: shown.expiresAt,
      onAnswer,
    };
    this.#entries.set(id, entry);
    this.#changed();
    return entry;
  }

  /** The questions waiting for an answer, oldest first. */
  list(): PendingApproval[] {
    this.#sweep();
    return [...this.#entries.values()].filter((entry) => entry.verdict === null).map((entry) => entry.shown);
  }

  /**
   * A person's answer to the question `id`. False when there is no such question waiting (unknown,
   * answered already, or lapsed), or when it asks to allow always a command no rule may be stored for.
   * A granted answer waits for the model's retry as long again; a live question's goes to its call.
   */
  answer(id: string, verdict: PendingVerdict): boolean {
    this.#sweep();
    const entry = this.#entries.get(id);
    if (entry === undefined || entry.verdict !== null) return false;
    if (verdict.decision === "approve" && verdict.scope === "always" && entry.shown.rule === null)
      return false;
    if (entry.onAnswer !== null) {
      this.#entries.delete(id);
      entry.onAnswer(answerOf(verdict));
    } else {
      entry.verdict = verdict;
      entry.expiresAt = this.#now() + this.#ttl;
      try {
        this.#onAnswer?.(entry.shown, verdict);
      } catch {
        // The listener's trouble (an audit log that cannot be written) is not the person's answer's.
      }
    }
    this.#changed();
    return true;
  }
}
