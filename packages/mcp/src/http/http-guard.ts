import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { isIP } from "node:net";
import { networkInterfaces } from "node:os";
import {
  localhostAllowedHostnames,
  validateHostHeader,
  validateOriginHeader,
} from "@modelcontextprotocol/server";

/** The one path conchd serves MCP at. */
export const MCP_PATH = "/mcp";

/** Where an HTTP server listens (conchd's `--http`). */
export interface HttpAddress {
  /** An IP address (IPv6 without brackets), or `localhost`. */
  readonly host: string;
  /** 0 picks a free port. */
  readonly port: number;
  /** Whether only this machine can reach `host`; any other host needed `--allow-remote`. */
  readonly loopback: boolean;
}

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

const WILDCARDS = new Set(["0.0.0.0", "::"]);
// What a Host header may be: a name or IPv4 address, or an IPv6 address in brackets, then a port.
const AUTHORITY = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?::\d{1,5})?$/;

/** A host as URL spells it (lowercase, IPv6 in brackets and compressed), so spellings compare equal. */
function urlHostname(host: string): string {
  return isIP(host) === 6 ? `[${host}]` : host;
}

/** The port of `http://HOST:PORT` (80 without one), or null when `value` is no such authority. */
function authorityPort(value: string): number | null {
  try {
    const { port } = new URL(`http://${value}`);
    return port === "" ? 80 : Number(port);
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
 * The hostnames are checked by the MCP SDK's own helpers (`validateHostHeader`, `validateOriginHeader`);
 * what they leave out is checked here: the port must match, a Host header must be a bare authority, and
 * an Origin must be this server's `http:` origin as a browser spells it.
 */
export function createGuard(
  address: Pick<HttpAddress, "host" | "loopback">,
  port: number,
  token: string,
): Guard {
  const expected = digest(token);
  const bound = urlHostname(address.host);
  const wildcard = WILDCARDS.has(address.host);
  // Looked up per request: interfaces come and go while conchd runs.
  const ownHostnames = (): string[] => {
    const names = [bound];
    if (address.loopback || wildcard) names.push(...localhostAllowedHostnames());
    if (wildcard) {
      for (const list of Object.values(networkInterfaces())) {
        for (const entry of list ?? []) names.push(urlHostname(entry.address.split("%")[0] as string));
      }
    }
    return names;
  };
  const isOwnOrigin = (origin: string): boolean => {
    if (origin === "" || !validateOriginHeader(origin, ownHostnames()).ok) return false;
    try {
      const url = new URL(origin);
      return (
        url.protocol === "http:" &&
        url.origin === origin.toLowerCase() &&
        (url.port === "" ? 80 : Number(url.port)) === port
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
      const own =
        host !== undefined &&
        AUTHORITY.test(host) &&
        authorityPort(host) === port &&
        validateHostHeader(host, ownHostnames()).ok;
      if (!own) {
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
