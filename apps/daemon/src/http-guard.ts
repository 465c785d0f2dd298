import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { isIP } from "node:net";
import { networkInterfaces } from "node:os";
import type { HttpAddress } from "./args.js";

/** The one path conchd serves MCP at. */
export const MCP_PATH = "/mcp";

/** Why a request is answered before it reaches MCP. */
interface Rejection {
  readonly status: 401 | 403 | 404;
  readonly message: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** What the guard reads of a request. */
interface GuardedRequest {
  readonly url?: string | undefined;
  readonly headers: IncomingHttpHeaders;
}

const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "[::1]"] as const;
const WILDCARDS = new Set(["0.0.0.0", "::"]);
// What a Host header may be: a name or IPv4 address, or an IPv6 address in brackets, then a port.
const AUTHORITY = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?::\d{1,5})?$/;

/** A host as URL spells it (lowercase, IPv6 in brackets and compressed), so spellings compare equal. */
function urlHostname(host: string): string {
  return isIP(host) === 6 ? `[${host}]` : host;
}

/** `http://HOST:PORT`'s host and port, or null when `value` is no such authority. */
function parseAuthority(value: string): { readonly hostname: string; readonly port: number } | null {
  try {
    const url = new URL(`http://${value}`);
    return { hostname: url.hostname, port: url.port === "" ? 80 : Number(url.port) };
  } catch {
    return null;
  }
}

function digest(value: string): Buffer {
  return createHash("sha256").update(value).digest();
}

/** The token of `Authorization: Bearer TOKEN` (scheme in any case), or null for anything else. */
function bearerToken(value: string | undefined): string | null {
  const match = value === undefined ? null : /^Bearer +(\S+) *$/i.exec(value);
  return match?.[1] ?? null;
}

/** The checks of conchd's HTTP server, in the order a request meets them. */
export interface Guard {
  /**
   * Every request first: the Host header names this server (DNS rebinding: a page on another name must
   * not reach a loopback server through the browser), and an Origin header, when there is one, is this
   * server's own.
   */
  checkAddress(request: GuardedRequest): Rejection | null;
  /** Then, for /mcp: the bearer token is the server's. */
  checkToken(request: GuardedRequest): Rejection | null;
  /** Whether `origin` is this server's own (for the console's changes, which must carry one). */
  isOwnOrigin(origin: string): boolean;
}

/**
 * The checks every request passes (see Guard). Bound to loopback, the loopback names (localhost,
 * 127.0.0.1, [::1]) all count as this server's; bound to 0.0.0.0 or ::, so do this machine's addresses.
 * The port must match either way.
 */
export function createGuard(
  address: Pick<HttpAddress, "host" | "loopback">,
  port: number,
  token: string,
): Guard {
  const expected = digest(token);
  const bound = urlHostname(address.host);
  const wildcard = WILDCARDS.has(address.host);
  const isOwn = (hostname: string, givenPort: number): boolean => {
    if (givenPort !== port) return false;
    if (hostname === bound) return true;
    if ((address.loopback || wildcard) && (LOOPBACK_NAMES as readonly string[]).includes(hostname))
      return true;
    // Looked up per request: interfaces come and go while conchd runs.
    return (
      wildcard &&
      Object.values(networkInterfaces()).some((list) =>
        list?.some((entry) => urlHostname(entry.address.split("%")[0] as string) === hostname),
      )
    );
  };
  const isOwnOrigin = (origin: string): boolean => {
    try {
      const url = new URL(origin);
      return (
        url.protocol === "http:" &&
        url.origin === origin.toLowerCase() &&
        isOwn(url.hostname, url.port === "" ? 80 : Number(url.port))
      );
    } catch {
      // "null" (a sandboxed frame, a file:// page) and anything else unparsable is no one's origin.
      return false;
    }
  };
  const forbidden = (message: string): Rejection => ({ status: 403, message, headers: {} });

  return {
    isOwnOrigin,
    checkAddress(request) {
      const host = request.headers.host;
      const authority = host !== undefined && AUTHORITY.test(host) ? parseAuthority(host) : null;
      if (authority === null || !isOwn(authority.hostname, authority.port)) {
        return forbidden(`Forbidden: Host ${JSON.stringify(host ?? "")} is not this server's address`);
      }
      const origin = request.headers.origin;
      if (origin !== undefined && !isOwnOrigin(origin)) {
        return forbidden(`Forbidden: Origin ${JSON.stringify(origin)} is not this server's origin`);
      }
      return null;
    },
    checkToken(request) {
      const given = bearerToken(request.headers.authorization);
      if (given === null) {
        return {
          status: 401,
          message: 'Unauthorized: send the token as "Authorization: Bearer TOKEN"',
          headers: { "www-authenticate": "Bearer" },
        };
      }
      // Digests are the same length whatever was sent, so the comparison takes the same time.
      if (!timingSafeEqual(digest(given), expected)) {
        return {
          status: 401,
          message: "Unauthorized: wrong bearer token",
          headers: { "www-authenticate": 'Bearer error="invalid_token"' },
        };
      }
      return null;
    },
  };
}
