import { type Decision, parseDecision } from "./decision.js";
import { RuleProblem } from "./problem.js";
import type { ExecPolicy, NetworkProtocol } from "./types.js";

export function parseNetworkProtocol(raw: string): NetworkProtocol {
  switch (raw) {
    case "http":
      return "http";
    case "https":
    case "https_connect":
    case "http-connect":
      return "https";
    case "socks5_tcp":
    case "socks5_udp":
      return raw;
    default:
      throw new RuleProblem(
        `invalid rule: network_rule protocol must be one of http, https, socks5_tcp, socks5_udp (got ${raw})`,
      );
  }
}

/** Network rules say `deny` where prefix rules say `forbidden`; both are accepted. */
export function parseNetworkDecision(raw: string): Decision {
  return raw === "deny" ? "forbidden" : parseDecision(raw);
}

/** Reduces a host to the lower-cased name or IP literal a rule is keyed on, as Codex does. */
export function normalizeNetworkHost(raw: string): string {
  let host = raw.trim();
  if (host === "") throw new RuleProblem("invalid rule: network_rule host cannot be empty");
  if (host.includes("://") || host.includes("/") || host.includes("?") || host.includes("#")) {
    throw new RuleProblem(
      "invalid rule: network_rule host must be a hostname or IP literal (without scheme or path)",
    );
  }
  if (host.startsWith("[")) {
    const close = host.indexOf("]");
    if (close === -1) {
      throw new RuleProblem("invalid rule: network_rule host has an invalid bracketed IPv6 literal");
    }
    const rest = host.slice(close + 1);
    if (rest !== "" && !/^:[0-9]+$/.test(rest)) {
      throw new RuleProblem(`invalid rule: network_rule host contains an unsupported suffix: ${raw}`);
    }
    host = host.slice(1, close);
  } else if (host.split(":").length === 2) {
    const colon = host.lastIndexOf(":");
    const candidate = host.slice(0, colon);
    if (candidate !== "" && /^[0-9]+$/.test(host.slice(colon + 1))) host = candidate;
  }
  const normalized = host
    .replace(/\.+$/, "")
    .trim()
    .replace(/[A-Z]/g, (c) => c.toLowerCase());
  if (normalized === "") throw new RuleProblem("invalid rule: network_rule host cannot be empty");
  if (normalized.includes("*")) {
    throw new RuleProblem(
      "invalid rule: network_rule host must be a specific host; wildcards are not allowed",
    );
  }
  if (/\s/.test(normalized))
    throw new RuleProblem("invalid rule: network_rule host cannot contain whitespace");
  return normalized;
}

/**
 * The allowed and denied domain lists the network rules compile to, as Codex builds them: rules apply
 * in order, a later rule for the same host moves it between lists, `prompt` rules are in neither.
 */
export function compileNetworkDomains(policy: ExecPolicy): { allowed: string[]; denied: string[] } {
  let allowed: string[] = [];
  let denied: string[] = [];
  for (const rule of policy.networkRules) {
    if (rule.decision === "allow") {
      denied = denied.filter((host) => host !== rule.host);
      allowed = [...allowed.filter((host) => host !== rule.host), rule.host];
    } else if (rule.decision === "forbidden") {
      allowed = allowed.filter((host) => host !== rule.host);
      denied = [...denied.filter((host) => host !== rule.host), rule.host];
    }
  }
  return { allowed, denied };
}
