// The live sessions of a remote backend, kept in conchd's state directory as they start and end, so that
// a conchd that restarts (killed, crashed, upgraded) finds them again on the agent with the ids the model
// knows. Their output is not kept here: the audit log has each range received, and the agent holds what
// was not acknowledged.
import { readFileSync, renameSync, writeFileSync } from "node:fs";

export interface RemoteLedgerEntry {
  /** The session id the model knows. */
  readonly sessionId: number;
  /** The process's id on the agent. */
  readonly processId: string;
  readonly tool: string;
  readonly command: string;
  readonly argv: readonly string[];
  readonly cwd: string;
  readonly tty: boolean;
  readonly cols: number;
  readonly rows: number;
  /** Whether it stays listed after its exit (the terminal tools). */
  readonly keepAfterExit: boolean;
  readonly client: string | null;
}

function isEntry(value: unknown): value is RemoteLedgerEntry {
  const entry = value as Partial<RemoteLedgerEntry> | null;
  return (
    typeof entry === "object" &&
    entry !== null &&
    Number.isSafeInteger(entry.sessionId) &&
    typeof entry.processId === "string" &&
    typeof entry.tool === "string" &&
    typeof entry.command === "string" &&
    Array.isArray(entry.argv) &&
    entry.argv.every((arg) => typeof arg === "string") &&
    typeof entry.cwd === "string" &&
    typeof entry.tty === "boolean" &&
    Number.isSafeInteger(entry.cols) &&
    Number.isSafeInteger(entry.rows) &&
    typeof entry.keepAfterExit === "boolean" &&
    (entry.client === null || typeof entry.client === "string")
  );
}

export class RemoteLedger {
  readonly #path: string;
  readonly #entries = new Map<number, RemoteLedgerEntry>();

  /** The ledger at `path` (a JSON file, 0600), with the entries a conchd before this one left there. */
  constructor(path: string) {
    this.#path = path;
    try {
      const value = JSON.parse(readFileSync(path, "utf8")) as unknown;
      if (Array.isArray(value))
        for (const entry of value) if (isEntry(entry)) this.#entries.set(entry.sessionId, entry);
    } catch {
      // None yet, or unreadable: nothing to find again.
    }
  }

  entries(): readonly RemoteLedgerEntry[] {
    return [...this.#entries.values()];
  }

  add(entry: RemoteLedgerEntry): void {
    this.#entries.set(entry.sessionId, entry);
    this.#write();
  }

  remove(sessionId: number): void {
    if (this.#entries.delete(sessionId)) this.#write();
  }

  #write(): void {
    const partial = `${this.#path}.${process.pid}.tmp`;
    try {
      writeFileSync(partial, `${JSON.stringify([...this.#entries.values()])}\n`, { mode: 0o600 });
      renameSync(partial, this.#path);
    } catch {
      // Not kept: after a restart this session is not found again (the agent ends it at its keep time).
    }
  }
}
