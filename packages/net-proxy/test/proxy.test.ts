// The proxy with real clients (curl over HTTP, CONNECT and SOCKS5) and real origins on 127.0.0.1; names
// are resolved by the policy's `network_resolve` (or an injected lookup), never by DNS.
import { execFile } from "node:child_process";
import { createServer as createHttpServer, type Server as HttpServer } from "node:http";
import type { AddressInfo, Server } from "node:net";
import { networkInterfaces } from "node:os";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  addressClass,
  NetProxy,
  NetworkPolicy,
  type ProxyEndpoint,
  type ProxyOptions,
  parseHostPattern,
} from "../src/index.js";

let origin: HttpServer;
let originPort: number;
let originConnections = 0;

beforeAll(async () => {
  origin = createHttpServer((request, response) => {
    response.end(`hello from origin ${request.url} (host ${request.headers.host})`);
  });
  origin.on("connection", () => {
    originConnections++;
  });
  await new Promise<void>((resolve) => origin.listen(0, "127.0.0.1", resolve));
  originPort = (origin.address() as AddressInfo).port;
});
afterAll(() => new Promise((resolve) => origin.close(resolve)));

const open: { endpoint: ProxyEndpoint; server: Server }[] = [];
afterEach(() => {
  for (const { endpoint } of open.splice(0)) endpoint.close();
});

/** A proxy with `options`, one endpoint listening, and its port. */
async function proxy(
  policy: ConstructorParameters<typeof NetProxy>[0]["policy"],
  options: Omit<ProxyOptions, "policy"> = {},
): Promise<{ endpoint: ProxyEndpoint; port: number }> {
  const endpoint = new NetProxy({ policy, ...options }).endpoint("test command");
  const server = await endpoint.listen();
  open.push({ endpoint, server });
  return { endpoint, port: (server.address() as AddressInfo).port };
}

/** curl with `args`; resolves with its exit code, stdout and stderr (bounded by a timeout). */
function curl(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      "curl",
      ["-sS", "--max-time", "10", ...args],
      { env: { PATH: process.env.PATH } },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

const TEST_POLICY = (): NetworkPolicy =>
  NetworkPolicy.from({
    allow: ["allowed.test", "**.svc.test", "denied.svc.test", "127.0.0.1"],
    deny: ["denied.svc.test"],
    allowAddresses: ["127.0.0.1"],
    resolve: {
      "allowed.test": "127.0.0.1",
      "api.svc.test": "127.0.0.1",
      "denied.svc.test": "127.0.0.1",
      "blocked.test": "127.0.0.1",
    },
  });

describe("NetProxy: allowed hosts, through each protocol", () => {
  it("plain HTTP (absolute-form), CONNECT and SOCKS5 with the name resolved by the proxy", async () => {
    const { endpoint, port } = await proxy(TEST_POLICY());
    const url = `http://allowed.test:${originPort}/x?y=1`;
    const plain = await curl("-x", `http://127.0.0.1:${port}`, url);
    expect(plain).toMatchObject({
      code: 0,
      stdout: `hello from origin /x?y=1 (host allowed.test:${originPort})`,
    });
    const tunnel = await curl("-p", "-x", `http://127.0.0.1:${port}`, url);
    expect(tunnel).toMatchObject({
      code: 0,
      stdout: `hello from origin /x?y=1 (host allowed.test:${originPort})`,
    });
    const socks = await curl("--socks5-hostname", `127.0.0.1:${port}`, `http://api.svc.test:${originPort}/s`);
    expect(socks).toMatchObject({
      code: 0,
      stdout: `hello from origin /s (host api.svc.test:${originPort})`,
    });
    expect(endpoint.events.map((event) => [event.host, event.protocol, event.decision, event.by])).toEqual([
      ["allowed.test", "http", "allowed", "policy"],
      ["allowed.test", "https", "allowed", "policy"],
      ["api.svc.test", "socks5", "allowed", "policy"],
    ]);
    expect(endpoint.events[0]?.bytesIn).toBeGreaterThan(0);
    expect(endpoint.refusals()).toEqual([]);
  });
});

describe("NetProxy: refusals say why, in the protocol and in the command's record", () => {
  it("a host not listed: 403 with x-proxy-error and the reason, and one line for the result", async () => {
    const { endpoint, port } = await proxy(TEST_POLICY());
    const before = originConnections;
    const plain = await curl("-i", "-x", `http://127.0.0.1:${port}`, `http://blocked.test:${originPort}/`);
    expect(plain.stdout).toMatch(/^HTTP\/1\.1 403 Forbidden/);
    expect(plain.stdout).toMatch(/^x-proxy-error: blocked-by-allowlist\r$/m);
    expect(plain.stdout).toContain(
      `conch: network access to blocked.test:${originPort} is blocked: not in network_allow`,
    );
    const tunnel = await curl("-p", "-x", `http://127.0.0.1:${port}`, `http://blocked.test:${originPort}/`);
    expect(tunnel.stderr).toMatch(/CONNECT tunnel failed, response 403/);
    const socks = await curl("--socks5-hostname", `127.0.0.1:${port}`, `http://blocked.test:${originPort}/`);
    expect(socks.code).not.toBe(0);
    expect(originConnections).toBe(before);
    expect(endpoint.refusals()).toEqual([
      `network: blocked blocked.test:${originPort} (not in network_allow)`,
      `network: blocked blocked.test:${originPort} (not in network_allow)`,
      `network: blocked blocked.test:${originPort} (not in network_allow)`,
    ]);
  });

  it("network_deny wins over network_allow", async () => {
    const { endpoint, port } = await proxy(TEST_POLICY());
    const result = await curl(
      "-i",
      "-x",
      `http://127.0.0.1:${port}`,
      `http://denied.svc.test:${originPort}/`,
    );
    expect(result.stdout).toMatch(/^x-proxy-error: blocked-by-denylist\r$/m);
    expect(endpoint.refusals()).toEqual([
      `network: blocked denied.svc.test:${originPort} (in network_deny (denied.svc.test))`,
    ]);
  });

  it("a name allowed but resolving to a private address is refused unless network_allow_addresses lists it", async () => {
    const policy = NetworkPolicy.from({ allow: ["allowed.test"], resolve: { "allowed.test": "127.0.0.1" } });
    const { endpoint, port } = await proxy(policy);
    const before = originConnections;
    const result = await curl("-i", "-x", `http://127.0.0.1:${port}`, `http://allowed.test:${originPort}/`);
    expect(result.stdout).toMatch(/^x-proxy-error: blocked-by-address\r$/m);
    expect(originConnections).toBe(before);
    expect(endpoint.refusals()).toEqual([
      `network: blocked allowed.test:${originPort} (it resolves to a loopback address, which network_allow_addresses does not list)`,
    ]);
  });

  it("resolves once per connection and dials only the address it checked (no rebinding)", async () => {
    let lookups = 0;
    // A name that answers a public address first and loopback after: the proxy never asks twice.
    const lookup = async (): Promise<string[]> => (++lookups === 1 ? ["192.0.2.1"] : ["127.0.0.1"]);
    const policy = NetworkPolicy.from({ allow: ["rebind.test"] });
    const { endpoint, port } = await proxy(policy, { lookup, connectTimeoutMs: 300 });
    const before = originConnections;
    const first = await curl("-i", "-x", `http://127.0.0.1:${port}`, `http://rebind.test:${originPort}/`);
    expect(first.stdout).toMatch(/^HTTP\/1\.1 (403|502)/);
    const second = await curl("-i", "-x", `http://127.0.0.1:${port}`, `http://rebind.test:${originPort}/`);
    expect(second.stdout).toMatch(/^x-proxy-error: blocked-by-address\r$/m);
    expect(lookups).toBe(2);
    expect(originConnections).toBe(before);
    expect(endpoint.events.every((event) => event.decision === "blocked")).toBe(true);
  });

  it("IP literals only when listed, IPv6 ones too", async () => {
    const { endpoint, port } = await proxy(TEST_POLICY());
    const listed = await curl("-x", `http://127.0.0.1:${port}`, `http://127.0.0.1:${originPort}/ip`);
    expect(listed).toMatchObject({ code: 0, stdout: `hello from origin /ip (host 127.0.0.1:${originPort})` });
    const other = await curl("-i", "-x", `http://127.0.0.1:${port}`, `http://[::1]:${originPort}/`);
    expect(other.stdout).toMatch(/^x-proxy-error: blocked-by-allowlist\r$/m);
    const spelled = await curl(
      "-i",
      "--socks5-hostname",
      `127.0.0.1:${port}`,
      `http://2130706434:${originPort}/`,
    );
    expect(spelled.code).not.toBe(0);
    expect(endpoint.refusals()).toEqual([
      `network: blocked [::1]:${originPort} (an IP address not in network_allow)`,
      `network: blocked 127.0.0.2:${originPort} (an IP address not in network_allow)`,
    ]);
  });

  it("a Host header that names another host than the URL, and a request that is not a proxy's, are 400", async () => {
    const { port } = await proxy(TEST_POLICY());
    const mismatch = await curl(
      "-i",
      "-x",
      `http://127.0.0.1:${port}`,
      "-H",
      "Host: blocked.test",
      `http://allowed.test:${originPort}/`,
    );
    expect(mismatch.stdout).toMatch(/^HTTP\/1\.1 400 Bad Request/);
    const direct = await curl("-i", `http://127.0.0.1:${port}/`);
    expect(direct.stdout).toMatch(/^x-proxy-error: bad-request\r$/m);
  });
});

describe("NetProxy: the network off", () => {
  it("refuses every request at once, with the reason, in each protocol", async () => {
    const closed = 'the network is off (network = "off")';
    const { endpoint, port } = await proxy(TEST_POLICY(), { closed });
    const plain = await curl("-i", "-x", `http://127.0.0.1:${port}`, `http://allowed.test:${originPort}/`);
    expect(plain.stdout).toMatch(/^x-proxy-error: blocked-by-policy\r$/m);
    const socks = await curl("--socks5-hostname", `127.0.0.1:${port}`, `http://allowed.test:${originPort}/`);
    expect(socks.code).not.toBe(0);
    expect(endpoint.refusals()).toEqual([
      `network: blocked allowed.test:${originPort} (${closed})`,
      `network: blocked allowed.test:${originPort} (${closed})`,
    ]);
  });
});

describe("NetProxy: a host not listed is asked", () => {
  it("the answer decides, and no answer in time blocks", async () => {
    const answers: string[] = [];
    const policy = NetworkPolicy.from({
      allowAddresses: ["127.0.0.1"],
      resolve: { "new.test": "127.0.0.1" },
    });
    const asking = await proxy(policy, {
      ask: async (request) => {
        answers.push(`${request.host}:${request.port} ${request.protocol} for ${request.endpoint}`);
        return answers.length === 1 ? "allow" : "deny";
      },
    });
    const yes = await curl("-x", `http://127.0.0.1:${asking.port}`, `http://new.test:${originPort}/asked`);
    expect(yes).toMatchObject({ code: 0, stdout: `hello from origin /asked (host new.test:${originPort})` });
    const no = await curl("-i", "-x", `http://127.0.0.1:${asking.port}`, `http://new.test:${originPort}/`);
    expect(no.stdout).toContain("not in network_allow; the user said no");
    expect(answers).toEqual([
      `new.test:${originPort} http for test command`,
      `new.test:${originPort} http for test command`,
    ]);
    expect(asking.endpoint.events.map((event) => event.by)).toEqual(["user", "user"]);

    const silent = await proxy(policy, { ask: () => new Promise(() => {}), askTimeoutMs: 200 });
    const late = await curl("-i", "-x", `http://127.0.0.1:${silent.port}`, `http://new.test:${originPort}/`);
    expect(late.stdout).toContain("nobody answered within 200 ms");
    expect(silent.endpoint.events.map((event) => event.by)).toEqual(["timeout"]);
  });
});

describe("NetProxy: questions, grants and what an endpoint is told", () => {
  const policy = (): NetworkPolicy =>
    NetworkPolicy.from({
      deny: ["denied.test"],
      allowAddresses: ["127.0.0.1"],
      resolve: { "new.test": "127.0.0.1", "denied.test": "127.0.0.1" },
    });

  it("connections opened at once wait for one question; a no stands for the endpoint's later ones", async () => {
    let asked = 0;
    let answer: (value: "allow" | "deny") => void = () => {};
    const asking = await proxy(policy(), {
      ask: () => {
        asked++;
        return new Promise((resolve) => {
          answer = resolve;
        });
      },
    });
    const url = `http://new.test:${originPort}/`;
    const both = Promise.all([
      curl("-i", "-x", `http://127.0.0.1:${asking.port}`, url),
      curl("-i", "-x", `http://127.0.0.1:${asking.port}`, url),
    ]);
    while (asked === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    // Both connections are waiting by now or soon; the one question is answered once.
    await new Promise((resolve) => setTimeout(resolve, 200));
    answer("deny");
    const [first, second] = await both;
    expect(first.stdout).toContain("the user said no");
    expect(second.stdout).toContain("the user said no");
    const again = await curl("-i", "-x", `http://127.0.0.1:${asking.port}`, url);
    expect(again.stdout).toContain("the user said no");
    expect(asked).toBe(1);
  });

  it("a command cannot flood the person with hosts: two questions at a time, ten in all", async () => {
    const hosts = Array.from({ length: 12 }, (_, i) => `h${i}.test`);
    const many = NetworkPolicy.from({
      allowAddresses: ["127.0.0.1"],
      resolve: Object.fromEntries(hosts.map((host) => [host, "127.0.0.1"])),
    });
    let asked = 0;
    const release: (() => void)[] = [];
    const asking = await proxy(many, {
      ask: () => {
        asked++;
        return new Promise((resolve) => release.push(() => resolve("deny")));
      },
    });
    const via = (host: string) =>
      curl("-i", "-x", `http://127.0.0.1:${asking.port}`, `http://${host}:${originPort}/`);
    const first = [via("h0.test"), via("h1.test")];
    while (asked < 2) await new Promise((resolve) => setTimeout(resolve, 10));
    // A third at once is refused unasked.
    expect((await via("h2.test")).stdout).toContain("asked about too many hosts (10 in all, 2 at a time)");
    for (const done of release.splice(0)) done();
    await Promise.all(first);
    // One at a time, up to ten in all; the eleventh is not asked.
    for (const host of hosts.slice(3, 11)) {
      const answered = via(host);
      while (release.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      for (const done of release.splice(0)) done();
      await answered;
    }
    expect(asked).toBe(10);
    expect((await via("h11.test")).stdout).toContain("asked about too many hosts");
    expect(asked).toBe(10);
  });

  it("no answer in time aborts the question's signal", async () => {
    let signal: AbortSignal | null = null;
    const silent = await proxy(policy(), {
      askTimeoutMs: 150,
      ask: (request) => {
        signal = request.signal;
        return new Promise(() => {});
      },
    });
    const late = await curl("-i", "-x", `http://127.0.0.1:${silent.port}`, `http://new.test:${originPort}/`);
    expect(late.stdout).toContain("nobody answered within 150 ms");
    expect((signal as AbortSignal | null)?.aborted).toBe(true);
  });

  it("a grant allows unasked, the deny list still wins; an endpoint's own ask and events", async () => {
    const shared = new NetProxy({ policy: policy(), ask: async () => "deny" });
    const events: string[] = [];
    const endpoint = shared.endpoint("mine", {
      ask: async () => "allow",
      onEvent: (event) =>
        events.push(`${event.host} ${event.decision} by ${event.by} in>0:${event.bytesIn > 0}`),
    });
    const server = await endpoint.listen();
    open.push({ endpoint, server });
    const port = (server.address() as AddressInfo).port;
    const yes = await curl("-x", `http://127.0.0.1:${port}`, `http://new.test:${originPort}/own`);
    expect(yes.stdout).toBe(`hello from origin /own (host new.test:${originPort})`);
    const other = shared.endpoint("other");
    const otherServer = await other.listen();
    open.push({ endpoint: other, server: otherServer });
    const otherPort = (otherServer.address() as AddressInfo).port;
    const no = await curl("-i", "-x", `http://127.0.0.1:${otherPort}`, `http://new.test:${originPort}/`);
    expect(no.stdout).toContain("the user said no");
    shared.grant("new.test", originPort);
    shared.grant("denied.test");
    const granted = await curl("-x", `http://127.0.0.1:${otherPort}`, `http://new.test:${originPort}/g`);
    expect(granted.stdout).toBe(`hello from origin /g (host new.test:${originPort})`);
    const denied = await curl(
      "-i",
      "-x",
      `http://127.0.0.1:${otherPort}`,
      `http://denied.test:${originPort}/`,
    );
    expect(denied.stdout).toContain("x-proxy-error: blocked-by-denylist");
    // The allowed connection is told once it closed, with its bytes; a refusal at once.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(events).toEqual(["new.test allowed by user in>0:true"]);
  });
});

describe("addressClass", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["0.0.0.0", "unspecified"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["192.168.1.1", "private"],
    ["169.254.169.254", "metadata"],
    ["169.254.1.1", "link-local"],
    ["100.64.0.1", "cgnat"],
    ["100.100.100.200", "metadata"],
    ["224.0.0.1", "multicast"],
    ["255.255.255.255", "reserved"],
    ["::1", "loopback"],
    ["::", "unspecified"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:169.254.169.254", "metadata"],
    ["64:ff9b::7f00:1", "loopback"],
    ["2002:a00:1::", "private"],
    ["fd00:ec2::254", "metadata"],
    ["fd12::1", "private"],
    ["fe80::1", "link-local"],
    ["ff02::1", "multicast"],
    ["8.8.8.8", null],
    ["2606:4700::1111", null],
  ])("%s is %s", (address, expected) => {
    expect(addressClass(address)).toBe(expected);
  });

  it("an address of this machine is one", () => {
    const own = Object.values(networkInterfaces())
      .flatMap((list) => list ?? [])
      .map((entry) => entry.address)
      .find((address) => !address.startsWith("127.") && address !== "::1" && !address.startsWith("fe80"));
    if (own !== undefined) expect(addressClass(own)).not.toBeNull();
  });
});

describe("NetworkPolicy.from: every bad entry named", () => {
  it.each([
    [{ allow: ["*"] }, "network_allow[0]"],
    [{ allow: ["ok.test", "*.com"] }, "network_allow[1]"],
    [{ allow: ["http://x.test"] }, "network_allow[0]"],
    [{ allow: ["x.test/path"] }, "network_allow[0]"],
    [{ allow: ["evil.com:443.allowed.com"] }, "network_allow[0]"],
    [{ allow: ["a\u0000b.test"] }, "network_allow[0]"],
    [{ allow: ["x.test:0"] }, "network_allow[0]"],
    [{ deny: [42] }, "network_deny[0]"],
    [{ allow: "x.test" }, "network_allow"],
    [{ allowAddresses: ["localhost"] }, "network_allow_addresses[0]"],
    [{ resolve: { "x.test": "not an address" } }, "network_resolve.x.test"],
    [{ resolve: { "127.0.0.1": "127.0.0.1" } }, "network_resolve key"],
  ])("%j names %s", (input, field) => {
    expect(() => NetworkPolicy.from(input as never)).toThrow(
      expect.objectContaining({ code: "INVALID_NETWORK_POLICY", message: expect.stringContaining(field) }),
    );
  });

  it("reads the pattern kinds, ports and IPv6 literals", () => {
    expect(parseHostPattern("Registry.NPMJS.org.", "f")).toEqual({
      text: "Registry.NPMJS.org.",
      kind: "exact",
      host: "registry.npmjs.org",
      port: null,
    });
    expect(parseHostPattern("*.pythonhosted.org", "f")).toMatchObject({
      kind: "subdomains",
      host: "pythonhosted.org",
    });
    expect(parseHostPattern("**.github.com:443", "f")).toMatchObject({
      kind: "apex",
      host: "github.com",
      port: 443,
    });
    expect(parseHostPattern("[::1]:8080", "f")).toMatchObject({ kind: "ip", host: "::1", port: 8080 });
    expect(parseHostPattern("127.1", "f")).toMatchObject({ kind: "ip", host: "127.0.0.1" });
    const policy = NetworkPolicy.from({ allow: ["*.pythonhosted.org", "**.github.com:443"] });
    expect(policy.decide("files.pythonhosted.org", 443).decision).toBe("allow");
    expect(policy.decide("pythonhosted.org", 443).decision).toBe("ask");
    expect(policy.decide("github.com", 443).decision).toBe("allow");
    expect(policy.decide("github.com", 22).decision).toBe("ask");
  });
});
