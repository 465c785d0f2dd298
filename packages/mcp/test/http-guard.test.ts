// The Host, Origin and token checks of MCP over HTTP (src/http/http-guard.ts), without a server.
import { describe, expect, it } from "vitest";
import { createGuard } from "../src/http/http-guard.js";

describe("createGuard", () => {
  const TOKEN = "t".repeat(43);
  const check = (guard: ReturnType<typeof createGuard>, host: string, origin?: string) => {
    const request = {
      url: "/mcp",
      headers: { host, authorization: `Bearer ${TOKEN}`, ...(origin === undefined ? {} : { origin }) },
    };
    return (guard.checkAddress(request) ?? guard.checkToken(request))?.status ?? 200;
  };

  it("takes the loopback spellings when bound to [::1], and only the address when bound elsewhere", () => {
    const v6 = createGuard({ host: "::1", loopback: true }, 4000, TOKEN);
    expect(
      ["[::1]:4000", "[0:0::1]:4000", "127.0.0.1:4000", "localhost:4000"].map((h) => check(v6, h)),
    ).toEqual([200, 200, 200, 200]);
    expect(check(v6, "[::2]:4000")).toBe(403);
    expect(check(v6, "[::1]:4000", "http://[::1]:4000")).toBe(200);

    const remote = createGuard({ host: "192.0.2.7", loopback: false }, 80, TOKEN);
    // Port 80 is the default: clients leave it out of Host and Origin.
    expect(["192.0.2.7", "192.0.2.7:80", "127.0.0.1", "localhost:80"].map((h) => check(remote, h))).toEqual([
      200, 200, 403, 403,
    ]);
    expect(check(remote, "192.0.2.7", "http://192.0.2.7")).toBe(200);
    expect(check(remote, "192.0.2.7", "http://localhost")).toBe(403);
  });

  it("takes this machine's addresses when bound to 0.0.0.0", () => {
    const wildcard = createGuard({ host: "0.0.0.0", loopback: false }, 4000, TOKEN);
    expect(
      ["127.0.0.1:4000", "localhost:4000", "[::1]:4000", "0.0.0.0:4000"].map((h) => check(wildcard, h)),
    ).toEqual([200, 200, 200, 200]);
    expect(check(wildcard, "192.0.2.200:4000")).toBe(403);
    expect(check(wildcard, "evil.example:4000")).toBe(403);
  });
});

describe("createGuard: Origin and token", () => {
  const TOKEN = "t".repeat(43);
  const guard = createGuard({ host: "127.0.0.1", loopback: true }, 4000, TOKEN);
  const status = (headers: Record<string, string>): number => {
    const request = { url: "/mcp", headers: { host: "127.0.0.1:4000", ...headers } };
    return (guard.checkAddress(request) ?? guard.checkToken(request))?.status ?? 200;
  };
  const bearer = { authorization: `Bearer ${TOKEN}` };

  it("takes no Origin (not a browser) and this server's own, as a browser spells it", () => {
    expect(status(bearer)).toBe(200);
    expect(status({ ...bearer, origin: "http://127.0.0.1:4000" })).toBe(200);
    expect(status({ ...bearer, origin: "http://localhost:4000" })).toBe(200);
    expect(guard.isOwnOrigin("http://127.0.0.1:4000")).toBe(true);
  });

  it.each([
    ["another port", "http://127.0.0.1:4001"],
    ["https", "https://127.0.0.1:4000"],
    ["another host", "http://evil.example:4000"],
    ["an opaque origin", "null"],
    ["a path", "http://127.0.0.1:4000/x"],
    ["an extension", "chrome-extension://abcdef"],
    ["an empty value", ""],
  ])("refuses an Origin with %s (403), before the token", (_what, origin) => {
    expect(status({ origin })).toBe(403);
    expect(guard.isOwnOrigin(origin)).toBe(false);
  });

  it.each([
    ["no Host", undefined],
    ["another port", "127.0.0.1:4001"],
    ["no port (80)", "127.0.0.1"],
    ["a path", "127.0.0.1:4000/mcp"],
    ["user info", "a@127.0.0.1:4000"],
    ["a rebinding name", "attacker.example:4000"],
  ])("refuses a Host with %s (403)", (_what, host) => {
    const request = { url: "/mcp", headers: { ...(host === undefined ? {} : { host }), ...bearer } };
    expect(guard.checkAddress(request)?.status).toBe(403);
  });

  it("wants the bearer token, in any case of the scheme, and says which is wrong", () => {
    expect(status({ authorization: `bearer ${TOKEN}` })).toBe(200);
    const request = (authorization?: string) => ({
      headers: { host: "127.0.0.1:4000", ...(authorization === undefined ? {} : { authorization }) },
    });
    expect(guard.checkToken(request())).toMatchObject({
      status: 401,
      headers: { "www-authenticate": "Bearer" },
    });
    expect(guard.checkToken(request(`Bearer ${TOKEN}x`))).toMatchObject({
      status: 401,
      message: "Unauthorized: wrong bearer token",
    });
    expect(guard.checkToken(request(`Basic ${TOKEN}`))?.status).toBe(401);
  });
});
