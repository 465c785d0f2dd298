// Which hosts a command may reach through the proxy: `network_allow` and `network_deny` patterns, the
// addresses a name may resolve to although they are not public (`network_allow_addresses`), and names
// resolved by the configuration instead of DNS (`network_resolve`, like curl's `--resolve`).
import { isIP } from "node:net";
import { expectedReceived } from "@conch/protocol";
import { NetProxyError } from "./errors.js";

/** One `network_allow` or `network_deny` entry, parsed. */
export interface HostPattern {
  /** As written. */
  readonly text: string;
  /** `exact`: that host; `subdomains`: `*.host`, below it only; `apex`: `**.host`, it and below; `ip`: a literal. */
  readonly kind: "exact" | "subdomains" | "apex" | "ip";
  /** Lower-case, without a trailing dot; an IP literal canonical (IPv6 without brackets). */
  readonly host: string;
  /** The one port it allows, or null for any. */
  readonly port: number | null;
}

/** What the configuration says of a host and port: allowed, denied, or not listed (a person is asked). */
export interface HostDecision {
  readonly decision: "allow" | "deny" | "ask";
  /** The pattern that decided, or null when none did. */
  readonly pattern: string | null;
  /** Why, in words the model reads after `network: blocked HOST:PORT (…)`. */
  readonly reason: string;
}

// Anything that is not a plain host character: control characters, spaces, `%`, `/`, `@`, `\`, a NUL
// that libc would cut the name at (`evil.com\0.allowed.com`).
const HOST_CHARS = /^[a-z0-9._-]+$/;

/**
 * `raw` as one host name or IP literal the policy compares (lower-case, no trailing dot; an IPv4 literal
 * in any spelling git's and libc's parsers accept, `127.1`, `2130706433`, `0x7f.0.0.1`, dotted; IPv6
 * compressed, without brackets), or null when it is neither.
 */
export function canonicalHost(raw: string): string | null {
  if (raw === "" || raw.length > 253 + 2) return null;
  const bracketed = raw.startsWith("[") && raw.endsWith("]") ? raw.slice(1, -1) : null;
  if (bracketed !== null) {
    if (isIP(bracketed) !== 6) return null;
    return new URL(`http://[${bracketed}]`).hostname.slice(1, -1);
  }
  if (isIP(raw) === 6) return new URL(`http://[${raw}]`).hostname.slice(1, -1);
  const lower = raw.toLowerCase().replace(/\.$/, "");
  if (!HOST_CHARS.test(lower)) return null;
  // The WHATWG parser reads numeric hosts as IPv4 in every spelling (and rejects malformed ones).
  try {
    const parsed = new URL(`http://${lower}`).hostname;
    return parsed === "" ? null : parsed;
  } catch {
    return null;
  }
}

const PORT = /^(?:[1-9][0-9]{0,4})$/;

function parsePort(text: string, field: string): number {
  const port = Number(text);
  if (!PORT.test(text) || port > 65_535) {
    throw new NetProxyError(
      "INVALID_NETWORK_POLICY",
      expectedReceived(field, "a port from 1 to 65535", text),
    );
  }
  return port;
}

/**
 * One pattern: `host`, `*.host` (subdomains only), `**.host` (the host and its subdomains), an IP
 * literal (IPv6 in brackets when a port follows), each with an optional `:port`. `*`, `*.tld`, schemes,
 * paths and anything that is not a host are refused, naming `field`.
 */
export function parseHostPattern(text: unknown, field: string): HostPattern {
  const fail = (expected: string): never => {
    throw new NetProxyError("INVALID_NETWORK_POLICY", expectedReceived(field, expected, text));
  };
  if (typeof text !== "string" || text.trim() === "")
    return fail("a host pattern such as registry.npmjs.org");
  let rest = text.trim();
  if (/[/?#@\\]|:\/\//.test(rest))
    return fail("a host pattern without a scheme, user or path (registry.npmjs.org)");
  let port: number | null = null;
  const v6 = /^\[([^\]]+)\](?::(\d+))?$/.exec(rest);
  if (v6 !== null) {
    if (v6[2] !== undefined) port = parsePort(v6[2], field);
    const host = canonicalHost(`[${v6[1]}]`);
    return host === null ? fail("an IPv6 literal in brackets") : { text, kind: "ip", host, port };
  }
  if (isIP(rest) === 6) return { text, kind: "ip", host: canonicalHost(rest) as string, port };
  const colon = rest.lastIndexOf(":");
  if (colon !== -1) {
    port = parsePort(rest.slice(colon + 1), field);
    rest = rest.slice(0, colon);
  }
  let kind: HostPattern["kind"] = "exact";
  if (rest.startsWith("**.")) {
    kind = "apex";
    rest = rest.slice(3);
  } else if (rest.startsWith("*.")) {
    kind = "subdomains";
    rest = rest.slice(2);
  }
  const host = canonicalHost(rest);
  if (host === null || host.includes("*"))
    return fail("a host name, *.name, **.name or an IP literal, with an optional :port");
  if (isIP(host) !== 0) {
    return kind === "exact" ? { text, kind: "ip", host, port } : fail("no wildcard before an IP literal");
  }
  // `*.com` would allow a whole top-level domain.
  if (kind !== "exact" && !host.includes("."))
    return fail("a wildcard over a name with a dot (*.example.com, not *.com)");
  return { text, kind, host, port };
}

function matches(pattern: HostPattern, host: string, port: number): boolean {
  if (pattern.port !== null && pattern.port !== port) return false;
  switch (pattern.kind) {
    case "exact":
    case "ip":
      return host === pattern.host;
    case "subdomains":
      return host.endsWith(`.${pattern.host}`);
    case "apex":
      return host === pattern.host || host.endsWith(`.${pattern.host}`);
  }
}

/** The network part of the configuration, as written (see `NetworkPolicy.from`). */
export interface NetworkPolicyInput {
  readonly allow?: readonly unknown[];
  readonly deny?: readonly unknown[];
  readonly allowAddresses?: readonly unknown[];
  readonly resolve?: Readonly<Record<string, unknown>>;
}

/** The proxy's host and address policy, validated once. */
export class NetworkPolicy {
  readonly allow: readonly HostPattern[];
  readonly deny: readonly HostPattern[];
  readonly #allowAddresses: ReadonlySet<string>;
  readonly #resolve: ReadonlyMap<string, string>;

  private constructor(
    allow: HostPattern[],
    deny: HostPattern[],
    allowAddresses: Set<string>,
    resolve: Map<string, string>,
  ) {
    this.allow = allow;
    this.deny = deny;
    this.#allowAddresses = allowAddresses;
    this.#resolve = resolve;
  }

  /**
   * Validates `input`: each pattern (`network_allow[i]`, `network_deny[i]`), each address of
   * `network_allow_addresses` (an IP literal), each `network_resolve` entry (a host name to an IP
   * literal). A wrong one throws `INVALID_NETWORK_POLICY` naming it.
   */
  static from(input: NetworkPolicyInput = {}): NetworkPolicy {
    const list = (value: unknown, field: string): readonly unknown[] => {
      if (value === undefined) return [];
      if (!Array.isArray(value))
        throw new NetProxyError("INVALID_NETWORK_POLICY", expectedReceived(field, "an array", value));
      return value;
    };
    const allow = list(input.allow, "network_allow").map((entry, index) =>
      parseHostPattern(entry, `network_allow[${index}]`),
    );
    const deny = list(input.deny, "network_deny").map((entry, index) =>
      parseHostPattern(entry, `network_deny[${index}]`),
    );
    const addresses = new Set<string>();
    for (const [index, entry] of list(input.allowAddresses, "network_allow_addresses").entries()) {
      const address =
        typeof entry === "string" && isIP(entry.replace(/^\[|\]$/g, "")) !== 0 ? canonicalHost(entry) : null;
      if (address === null || isIP(address) === 0) {
        throw new NetProxyError(
          "INVALID_NETWORK_POLICY",
          expectedReceived(`network_allow_addresses[${index}]`, "an IP address", entry),
        );
      }
      addresses.add(address);
    }
    const resolve = new Map<string, string>();
    const given = input.resolve ?? {};
    if (typeof given !== "object" || given === null || Array.isArray(given)) {
      throw new NetProxyError(
        "INVALID_NETWORK_POLICY",
        expectedReceived("network_resolve", "a table of host = address", given),
      );
    }
    for (const [name, value] of Object.entries(given)) {
      const host = canonicalHost(name);
      const address = typeof value === "string" ? canonicalHost(value) : null;
      if (host === null || isIP(host) !== 0) {
        throw new NetProxyError(
          "INVALID_NETWORK_POLICY",
          expectedReceived(`network_resolve key`, "a host name", name),
        );
      }
      if (address === null || isIP(address) === 0) {
        throw new NetProxyError(
          "INVALID_NETWORK_POLICY",
          expectedReceived(`network_resolve.${name}`, "an IP address", value),
        );
      }
      resolve.set(host, address);
    }
    return new NetworkPolicy(allow, deny, addresses, resolve);
  }

  /**
   * What the patterns say of `host` (canonical) at `port`: a `network_deny` match wins; then a
   * `network_allow` match; an IP literal is allowed only when a pattern lists it; anything else is asked.
   */
  decide(host: string, port: number): HostDecision {
    const denied = this.deny.find((pattern) => matches(pattern, host, port));
    if (denied !== undefined)
      return { decision: "deny", pattern: denied.text, reason: `in network_deny (${denied.text})` };
    const allowed = this.allow.find((pattern) => matches(pattern, host, port));
    if (allowed !== undefined)
      return { decision: "allow", pattern: allowed.text, reason: `in network_allow (${allowed.text})` };
    return {
      decision: "ask",
      pattern: null,
      reason: isIP(host) !== 0 ? "an IP address not in network_allow" : "not in network_allow",
    };
  }

  /** Whether `address` may be dialed although it is not public. */
  allowsAddress(address: string): boolean {
    return this.#allowAddresses.has(address);
  }

  /** The address the configuration resolves `host` to, instead of DNS. */
  resolved(host: string): string | undefined {
    return this.#resolve.get(host);
  }
}
