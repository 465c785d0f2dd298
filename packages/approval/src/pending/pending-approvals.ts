// Approvals a person gives out of band (`conch approve ID`), for a client that cannot ask anyone: the
// call that needs a yes returns at once naming a pending id; a person grants or refuses it elsewhere; the
// same call retried with the same command finds the answer. No I/O here: the daemon serves it.
import { randomBytes } from "node:crypto";
import type { ApprovalAnswer, ApprovalRequest } from "../approver.js";

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
  /** When it was asked and when it lapses, ms since the epoch. */
  readonly createdAt: number;
  readonly expiresAt: number;
}

/** How a person answers: run it once, allow it for the daemon's session, or refuse (with a note). */
export type PendingVerdict =
  | { readonly decision: "approve"; readonly scope: "once" | "session" }
  | { readonly decision: "deny"; readonly note?: string };

interface Entry {
  readonly key: string;
  readonly shown: PendingApproval;
  verdict: PendingVerdict | null;
  /** Until when the entry counts: the question's lapse, then the granted answer's. */
  expiresAt: number;
}

export interface PendingApprovalsOptions {
  /** The clock, ms since the epoch (tests move it). */
  readonly now?: () => number;
  readonly ttlMs?: number;
  /** At most this many questions wait at once; the oldest lapses first (default 256). */
  readonly max?: number;
}

/** What the same command is: the same argv, cwd, permissions, sandbox and tty ask the same question. */
function keyOf(request: ApprovalRequest): string {
  return JSON.stringify([
    request.argv,
    request.cwd,
    request.sandboxMode,
    request.sandboxPermissions,
    request.tty,
    request.reason,
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

/**
 * The pending approvals of one daemon. `ask` is what the daemon's out-of-band approver calls for every
 * command that needs a yes; `approve` and `deny` are what a person calls through `conch approve/deny`.
 * Never treats no answer as yes: a question nobody answered lapses after the TTL and is asked anew.
 */
export class PendingApprovals {
  readonly #entries = new Map<string, Entry>();
  readonly #now: () => number;
  readonly #ttl: number;
  readonly #max: number;
  readonly #listeners = new Set<() => void>();

  constructor(options: PendingApprovalsOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#ttl = options.ttlMs ?? PENDING_APPROVAL_TTL_MS;
    this.#max = options.max ?? 256;
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
   */
  ask(request: ApprovalRequest, client: string, hint: (id: string) => string): ApprovalAnswer {
    this.#sweep();
    const key = keyOf(request);
    const entry = [...this.#entries.values()].find((candidate) => candidate.key === key);
    if (entry?.verdict != null) {
      const { verdict } = entry;
      this.#entries.delete(entry.shown.id);
      this.#changed();
      if (verdict.decision === "approve") {
        return {
          decision: verdict.scope === "session" ? "approved_for_session" : "approved",
          decidedBy: "out-of-band",
        };
      }
      const note = verdict.note === undefined || verdict.note === "" ? "" : `: ${verdict.note}`;
      return { decision: "denied", decidedBy: "out-of-band", reason: `rejected by user${note}` };
    }
    if (entry !== undefined) {
      return {
        decision: "abort",
        outcome: "pending",
        decidedBy: "out-of-band",
        reason: hint(entry.shown.id),
      };
    }
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
      createdAt: now,
      expiresAt: now + this.#ttl,
    };
    this.#entries.set(id, { key, shown, verdict: null, expiresAt: shown.expiresAt });
    this.#changed();
    return { decision: "abort", outcome: "pending", decidedBy: "out-of-band", reason: hint(id) };
  }

  /** The questions waiting for an answer, oldest first. */
  list(): PendingApproval[] {
    this.#sweep();
    return [...this.#entries.values()].filter((entry) => entry.verdict === null).map((entry) => entry.shown);
  }

  /**
   * A person's answer to the question `id`. False when there is no such question waiting (unknown,
   * answered already, or lapsed). A granted answer waits for the model's retry as long again.
   */
  answer(id: string, verdict: PendingVerdict): boolean {
    this.#sweep();
    const entry = this.#entries.get(id);
    if (entry === undefined || entry.verdict !== null) return false;
    entry.verdict = verdict;
    entry.expiresAt = this.#now() + this.#ttl;
    this.#changed();
    return true;
  }
}
