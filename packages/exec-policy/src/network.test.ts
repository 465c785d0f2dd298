import { describe, expect, it } from "vitest";
import { normalizeNetworkHost, parseNetworkDecision, parseNetworkProtocol } from "./network.js";

describe("normalizeNetworkHost", () => {
  it.each([
    ["Example.COM", "example.com"],
    ["  example.com.  ", "example.com"],
    ["example.com:443", "example.com"],
    ["[::1]", "::1"],
    ["[::1]:8080", "::1"],
    ["::1", "::1"],
    ["10.0.0.1:80", "10.0.0.1"],
    ["host:port", "host:port"],
  ])("%j → %j", (raw, host) => {
    expect(normalizeNetworkHost(raw)).toBe(host);
  });

  it.each([
    ["", "invalid rule: network_rule host cannot be empty"],
    ["...", "invalid rule: network_rule host cannot be empty"],
    [
      "https://example.com",
      "invalid rule: network_rule host must be a hostname or IP literal (without scheme or path)",
    ],
    [
      "example.com/path",
      "invalid rule: network_rule host must be a hostname or IP literal (without scheme or path)",
    ],
    ["[::1", "invalid rule: network_rule host has an invalid bracketed IPv6 literal"],
    ["[::1]x", "invalid rule: network_rule host contains an unsupported suffix: [::1]x"],
    ["*.example.com", "invalid rule: network_rule host must be a specific host; wildcards are not allowed"],
    ["exa mple.com", "invalid rule: network_rule host cannot contain whitespace"],
  ])("rejects %j", (raw, message) => {
    expect(() => normalizeNetworkHost(raw)).toThrow(message);
  });
});

describe("network protocols and decisions", () => {
  it("accepts Codex's spellings", () => {
    expect(
      ["http", "https", "https_connect", "http-connect", "socks5_tcp", "socks5_udp"].map(
        parseNetworkProtocol,
      ),
    ).toEqual(["http", "https", "https", "https", "socks5_tcp", "socks5_udp"]);
    expect(["allow", "prompt", "forbidden", "deny"].map(parseNetworkDecision)).toEqual([
      "allow",
      "prompt",
      "forbidden",
      "forbidden",
    ]);
    expect(() => parseNetworkProtocol("ftp")).toThrow(
      "invalid rule: network_rule protocol must be one of http, https, socks5_tcp, socks5_udp (got ftp)",
    );
    expect(() => parseNetworkDecision("ask")).toThrow("invalid decision: ask");
  });
});
