// Who may use the console: a person who opened a one-time login link (printed on conchd's stderr, or
// handed out by `conch console` over the 0600 channel socket). The page trades the link's secret, once,
// for a session secret that it holds itself (in memory and the tab's sessionStorage, both this origin's
// alone) and sends with every request: `Authorization: Bearer SECRET` on fetches, a WebSocket subprotocol
// on the tab's connection (a browser lets a page set no header there). No cookie: a browser sends the
// cookies of 127.0.0.1 to every port of it, so any server on loopback the person's browser visits would
// receive one. Secrets are compared by digest, in constant time.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";

/** The subprotocol the console's WebSocket speaks, and the one the server answers with. */
export const WEBSOCKET_PROTOCOL = "conch-console";
/** The prefix of the subprotocol that carries the session secret (`conch-console-auth.SECRET`). */
const WEBSOCKET_AUTH_PREFIX = "conch-console-auth.";

/** How long a login link may wait to be opened. */
const LINK_TTL_MS = 15 * 60 * 1000;
/** How long a console session lasts without use. */
const SESSION_IDLE_MS = 12 * 60 * 60 * 1000;
// Bounds: links minted and never opened, and sessions of tabs long gone.
const MAX_LINKS = 32;
const MAX_SESSIONS = 64;

function secret(): string {
  return randomBytes(32).toString("base64url");
}

function digest(value: string): Buffer {
  return createHash("sha256").update(value).digest();
}

/** `value`'s digest found among `entries`' keys, compared in constant time; its key, or null. */
function findByDigest<T>(entries: Map<string, T>, value: string): string | null {
  const given = digest(value);
  let found: string | null = null;
  for (const key of entries.keys()) {
    if (timingSafeEqual(digest(key), given)) found = key;
  }
  return found;
}

/** The secret of `Authorization: Bearer SECRET` (scheme in any case), or null. */
function bearer(value: string | string[] | undefined): string | null {
  if (typeof value !== "string") return null;
  return /^Bearer +([A-Za-z0-9_-]+) *$/i.exec(value)?.[1] ?? null;
}

/** The secret among a WebSocket handshake's offered subprotocols, or null. */
function offeredSecret(value: string | string[] | undefined): string | null {
  if (typeof value !== "string") return null;
  const offered = value.split(",").map((entry) => entry.trim());
  if (!offered.includes(WEBSOCKET_PROTOCOL)) return null;
  const auth = offered.filter((entry) => entry.startsWith(WEBSOCKET_AUTH_PREFIX));
  return auth.length === 1 ? (auth[0] as string).slice(WEBSOCKET_AUTH_PREFIX.length) : null;
}

export interface ConsoleSession {
  /** The secret the page sends with every request. */
  readonly secret: string;
}

export class ConsoleAuth {
  readonly #links = new Map<string, number>();
  readonly #sessions = new Map<string, { lastUsed: number }>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** A new one-time login secret, good for 15 minutes. */
  mintLink(): string {
    this.#sweep();
    while (this.#links.size >= MAX_LINKS) this.#links.delete(this.#links.keys().next().value as string);
    const value = secret();
    this.#links.set(value, this.#now() + LINK_TTL_MS);
    return value;
  }

  /** Trades a login secret (used up) for a console session; null when the secret is unknown, used or old. */
  login(given: string): ConsoleSession | null {
    this.#sweep();
    const link = findByDigest(this.#links, given);
    if (link === null) return null;
    this.#links.delete(link);
    while (this.#sessions.size >= MAX_SESSIONS) {
      this.#sessions.delete(this.#sessions.keys().next().value as string);
    }
    const session = { secret: secret() };
    this.#sessions.set(session.secret, { lastUsed: this.#now() });
    return session;
  }

  /**
   * The console session a request names: by `Authorization: Bearer`, or for a WebSocket handshake by
   * its subprotocol. Cookies count for nothing. Null when it names none.
   */
  session(headers: IncomingHttpHeaders, websocket: boolean): ConsoleSession | null {
    this.#sweep();
    const given = websocket
      ? offeredSecret(headers["sec-websocket-protocol"])
      : bearer(headers.authorization);
    if (given === null) return null;
    const key = findByDigest(this.#sessions, given);
    if (key === null) return null;
    (this.#sessions.get(key) as { lastUsed: number }).lastUsed = this.#now();
    return { secret: key };
  }

  logout(session: ConsoleSession): void {
    this.#sessions.delete(session.secret);
  }

  #sweep(): void {
    const now = this.#now();
    for (const [link, expires] of this.#links) if (expires <= now) this.#links.delete(link);
    for (const [id, entry] of this.#sessions) {
      if (now - entry.lastUsed > SESSION_IDLE_MS) this.#sessions.delete(id);
    }
  }
}
