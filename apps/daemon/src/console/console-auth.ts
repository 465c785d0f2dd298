// Who may use the console: a person who opened a one-time login link (printed on conchd's stderr, or
// handed out by `conch console` over the 0600 channel socket) gets a session cookie (HttpOnly,
// SameSite=Strict, Path=/console) and a CSRF token. Secrets are compared by digest, in constant time.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** The cookie's name. */
const COOKIE_NAME = "conch_console";
/** The path the cookie is scoped to: the console's API (the page itself holds no data). */
const COOKIE_PATH = "/console";

/** How long a login link may wait to be opened. */
const LINK_TTL_MS = 15 * 60 * 1000;
/** How long a console session lasts without use. */
const SESSION_IDLE_MS = 12 * 60 * 60 * 1000;
// Bounds: links minted and never opened, and sessions of browsers long gone.
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

export interface ConsoleSession {
  readonly id: string;
  readonly csrf: string;
}

export class ConsoleAuth {
  readonly #links = new Map<string, number>();
  readonly #sessions = new Map<string, { csrf: string; lastUsed: number }>();
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
    const session = { id: secret(), csrf: secret() };
    this.#sessions.set(session.id, { csrf: session.csrf, lastUsed: this.#now() });
    return session;
  }

  /** The console session a request's cookie names, or null. */
  session(cookieHeader: string | undefined): ConsoleSession | null {
    this.#sweep();
    const id = cookieValue(cookieHeader, COOKIE_NAME);
    if (id === null) return null;
    const key = findByDigest(this.#sessions, id);
    if (key === null) return null;
    const entry = this.#sessions.get(key) as { csrf: string; lastUsed: number };
    entry.lastUsed = this.#now();
    return { id: key, csrf: entry.csrf };
  }

  /** Whether `given` is the session's CSRF token (constant time). */
  checkCsrf(session: ConsoleSession, given: string | undefined): boolean {
    return given !== undefined && timingSafeEqual(digest(given), digest(session.csrf));
  }

  logout(session: ConsoleSession): void {
    this.#sessions.delete(session.id);
  }

  /** The Set-Cookie value that installs a session. */
  cookie(session: ConsoleSession): string {
    return `${COOKIE_NAME}=${session.id}; HttpOnly; SameSite=Strict; Path=${COOKIE_PATH}`;
  }

  /** The Set-Cookie value that removes it. */
  clearedCookie(): string {
    return `${COOKIE_NAME}=; HttpOnly; SameSite=Strict; Path=${COOKIE_PATH}; Max-Age=0`;
  }

  #sweep(): void {
    const now = this.#now();
    for (const [link, expires] of this.#links) if (expires <= now) this.#links.delete(link);
    for (const [id, entry] of this.#sessions) {
      if (now - entry.lastUsed > SESSION_IDLE_MS) this.#sessions.delete(id);
    }
  }
}

/** The value of cookie `name` in a Cookie header, or null. */
function cookieValue(header: string | undefined, name: string): string | null {
  if (header === undefined) return null;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq === -1) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}
