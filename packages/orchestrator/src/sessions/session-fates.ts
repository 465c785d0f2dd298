// What became of a session id that names no live session, so the model's next call on it says so:
// Codex answers `Unknown process id N` whether the session exited (and its last output was already
// returned), was pruned or closed, or never was, and a model then tends to retry or guess. The store
// forgets a session as it leaves; its fate is kept here for a grace period (config
// `session_exit_grace_s`), and that the id was ever used, for as long as the store lives.
import {
  DEFAULT_MAX_SESSIONS,
  isUnifiedExecError,
  type SessionEvent,
  type SessionStore,
  UnifiedExecError,
} from "@conch/unified-exec";

/** Session ids run from 1000 to 99999. */
const ID_LIMIT = 100_000;

type Fate =
  | { readonly kind: "exited"; readonly exitCode: number }
  | { readonly kind: "pruned"; readonly exitCode: number | null }
  | { readonly kind: "closed"; readonly how: string | null; readonly exitCode: number | null };

interface Ended {
  fate: Fate;
  /** When it left the store. */
  readonly at: number;
}

export class SessionFates {
  readonly #graceMs: number;
  readonly #now: () => number;
  // Exit codes of listed sessions that exited (a terminal stays listed until closed).
  readonly #exitCodes = new Map<number, number>();
  // Sessions that left the store, oldest first.
  readonly #ended = new Map<number, Ended>();
  readonly #used = new Uint8Array(Math.ceil(ID_LIMIT / 8));

  constructor(store: SessionStore, graceMs: number, now: () => number = Date.now) {
    this.#graceMs = graceMs;
    this.#now = now;
    store.observe((event) => this.#on(event));
  }

  #on(event: SessionEvent): void {
    const { id } = event;
    switch (event.type) {
      case "started":
        if (id >= 0 && id < ID_LIMIT) this.#used[id >> 3] = (this.#used[id >> 3] as number) | (1 << (id & 7));
        this.#ended.delete(id);
        return;
      case "exited":
        this.#exitCodes.set(id, event.exitCode);
        return;
      case "removed": {
        const exitCode = this.#exitCodes.get(id) ?? null;
        this.#exitCodes.delete(id);
        this.#expire();
        // Left after its exit: the store forgets an exited session in the call that returns its end.
        // Left while running: closed, unless the start that pruned it says so next.
        const fate: Fate =
          exitCode === null ? { kind: "closed", how: null, exitCode } : { kind: "exited", exitCode };
        this.#ended.set(id, { fate, at: this.#now() });
        return;
      }
      default:
    }
  }

  /** Drops the fates older than the grace period. */
  #expire(): void {
    const cutoff = this.#now() - this.#graceMs;
    for (const [id, ended] of this.#ended) {
      if (ended.at >= cutoff) return;
      this.#ended.delete(id);
    }
  }

  /** Session `id` was pruned to make room for another (a start's `pruned`). */
  pruned(id: number): void {
    const ended = this.#ended.get(id);
    if (ended !== undefined) ended.fate = { kind: "pruned", exitCode: ended.fate.exitCode };
  }

  /** Session `id` was closed; `how` (e.g. `by a person`) follows the words `it was closed`. */
  closed(id: number, how: string | null): void {
    const ended = this.#ended.get(id);
    if (ended !== undefined) ended.fate = { kind: "closed", how, exitCode: ended.fate.exitCode };
  }

  /**
   * `error` with what became of session `id` when it is the store's `UNKNOWN_SESSION` for it; any
   * other error as it is.
   */
  explain(id: number, error: unknown): unknown {
    if (!isUnifiedExecError(error) || error.code !== "UNKNOWN_SESSION") return error;
    return new UnifiedExecError("UNKNOWN_SESSION", this.describe(id), { cause: error });
  }

  /** The model's words for an id that names no live session. */
  describe(id: number): string {
    const ended = this.#ended.get(id);
    if (ended !== undefined && this.#now() - ended.at <= this.#graceMs) {
      const { fate } = ended;
      switch (fate.kind) {
        case "exited":
          return `session ${id} exited with code ${fate.exitCode}; its final output was returned by an earlier call`;
        case "pruned":
          return (
            `Unknown process id ${id} (it was pruned: the ${DEFAULT_MAX_SESSIONS}-session store was full; ` +
            `${fate.exitCode === null ? "its process was killed" : `it had exited with code ${fate.exitCode}`})`
          );
        case "closed":
          return `Unknown process id ${id} (it was closed${fate.how === null ? "" : ` ${fate.how}`})`;
      }
    }
    const used = id >= 0 && id < ID_LIMIT && ((this.#used[id >> 3] as number) & (1 << (id & 7))) !== 0;
    return used
      ? `Unknown process id ${id} (its session ended more than ${duration(this.#graceMs)} ago)`
      : `Unknown process id ${id} (no session had that id)`;
  }
}

/** `10 minutes`, `1 hour`, `90 seconds`. */
function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  const [n, unit] = s % 3600 === 0 ? [s / 3600, "hour"] : s % 60 === 0 ? [s / 60, "minute"] : [s, "second"];
  return `${n} ${unit}${n === 1 ? "" : "s"}`;
}
