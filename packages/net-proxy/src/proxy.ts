// The proxy itself: HTTP CONNECT, plain HTTP (absolute-form) and SOCKS5 on one listener, told apart by
// their first byte. Each request's host is checked against the policy (asking a person for one that is
// not listed, when an `ask` is given), resolved once, and only an address that passed the address check
// is dialed: a name that resolves to a private address is refused unless `network_allow_addresses` lists
// it, and nothing is resolved a second time (no rebinding). Every refusal is answered in the protocol's
// own way (a 403 with `x-proxy-error` and a plain-text reason; SOCKS5's "not allowed by ruleset") and
// recorded for the endpoint the command used, so the command's result can say it.
import { lookup as dnsLookup } from "node:dns/promises";
import { createServer, isIP, type Server, type Socket, connect as tcpConnect } from "node:net";
import { type AddressClass, addressClass } from "./address.js";
import { canonicalHost, type NetworkPolicy } from "./policy.js";

/** How a command asked for a connection. */
export type ProxyProtocol = "http" | "https" | "socks5";

/** One connection the proxy decided, as the audit log and the command's result say it. */
export interface ProxyEvent {
  readonly host: string;
  readonly port: number;
  readonly protocol: ProxyProtocol;
  readonly decision: "allowed" | "blocked";
  /** Who decided: the configuration, a person, or (no answer in time) nobody. */
  readonly by: "policy" | "user" | "timeout";
  /** Why it was blocked, or what allowed it. */
  readonly reason: string;
  /** Bytes to and from the host, once the connection closed (0 for a blocked one). */
  bytesOut: number;
  bytesIn: number;
}

/**
 * The answer about a host the configuration does not list: a person's yes or no, no answer from the
 * person asked (`no-answer`: a dismissed form, a lapsed question), or nobody could be asked (`not-asked`:
 * the approval policy is `never`, or there is no one to ask). Anything but `allow` blocks it.
 */
export type AskAnswer = "allow" | "deny" | "no-answer" | "not-asked";

/** The question about a host the configuration does not list. */
export interface AskRequest {
  readonly host: string;
  readonly port: number;
  readonly protocol: ProxyProtocol;
  /** The label of the endpoint whose command asked. */
  readonly endpoint: string;
  /** Why the configuration does not allow it unasked (`not in network_allow`). */
  readonly why: string;
  /** Aborts when the connection stops waiting (`askTimeoutMs`): withdraw the question. */
  readonly signal: AbortSignal;
}

/** Asks about an unlisted host; anything but "allow" (or a rejection) blocks it. */
export type Ask = (request: AskRequest) => Promise<AskAnswer>;

/** What an endpoint adds to the proxy's options: its own way of asking, and its own audit. */
export interface EndpointOptions {
  /** Asks for this endpoint's command instead of the proxy's `ask`. */
  readonly ask?: Ask;
  /** Told of each decision: a refusal at once, an allowed connection once it closed (with its bytes). */
  readonly onEvent?: (event: ProxyEvent) => void;
}

export interface ProxyOptions {
  readonly policy: NetworkPolicy;
  /**
   * Refuse every request with this reason (the network is off): proxy-aware tools fail at once, with
   * the reason, instead of waiting on DNS that is not there.
   */
  readonly closed?: string;
  /**
   * Asks about a host that is not listed; the connection waits for the answer at most `askTimeoutMs`
   * (then it is blocked). Without it, an unlisted host is blocked.
   */
  readonly ask?: Ask;
  readonly askTimeoutMs?: number;
  /** Name resolution (all addresses); `dns.lookup` by default. For tests. */
  readonly lookup?: (host: string) => Promise<string[]>;
  /** How long a dial may take. */
  readonly connectTimeoutMs?: number;
}

// A request head (request line and headers) longer than this is no proxy request.
const MAX_HEAD_BYTES = 16 * 1024;
// How long a client may take to send its request head or SOCKS5 greeting.
const HEAD_TIMEOUT_MS = 10_000;
const DEFAULT_ASK_TIMEOUT_MS = 60_000;
const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
// Questions about unlisted hosts one endpoint (one command or session) may have asked at once, and in all.
const MAX_QUESTIONS_AT_ONCE = 2;
const MAX_QUESTIONS = 10;

const CLASS_WORDS: Readonly<Record<AddressClass, string>> = {
  loopback: "a loopback address",
  unspecified: "an unspecified address",
  private: "a private address",
  "link-local": "a link-local address",
  cgnat: "a carrier-grade NAT address",
  multicast: "a multicast address",
  metadata: "a cloud metadata address",
  reserved: "a reserved address",
  "this host": "an address of this machine",
};

/** Why the proxy refused, as `x-proxy-error` says it. */
type RefusalKind =
  | "blocked-by-policy"
  | "blocked-by-allowlist"
  | "blocked-by-denylist"
  | "blocked-by-address"
  | "bad-request"
  | "unreachable";

class Refusal extends Error {
  readonly kind: RefusalKind;
  constructor(kind: RefusalKind, message: string) {
    super(message);
    this.kind = kind;
  }
}

/** The proxy, shared by a workspace's commands; each command reaches it through an endpoint of its own. */
export class NetProxy {
  readonly #options: ProxyOptions;
  // Hosts a person allowed for as long as this proxy serves (`host:port`, canonical).
  readonly #granted = new Set<string>();

  constructor(options: ProxyOptions) {
    this.#options = options;
  }

  /** A new endpoint named `label` (the command or session it serves), with its own record of events. */
  endpoint(label: string, options: EndpointOptions = {}): ProxyEndpoint {
    return new ProxyEndpoint(label, this, options);
  }

  /** It refuses everything (`closed`: the network is off). */
  get closed(): boolean {
    return this.#options.closed !== undefined;
  }

  /**
   * Allows `host` (on `port`, or any port) for every endpoint from now on, as a person's answer does:
   * the configuration's deny list still wins, and the address checks still apply.
   */
  grant(host: string, port: number | null = null): void {
    this.#granted.add(grantKey(host, port));
  }

  /** Granted on this proxy (`grant`). */
  granted(host: string, port: number): boolean {
    return this.#granted.has(grantKey(host, port)) || this.#granted.has(grantKey(host, null));
  }

  /** Serves one client connection of `endpoint`. */
  serve(socket: Socket, endpoint: ProxyEndpoint): void {
    socket.on("error", () => socket.destroy());
    socket.setTimeout(HEAD_TIMEOUT_MS, () => socket.destroy());
    socket.once("data", (first: Buffer) => {
      socket.pause();
      const handled =
        first[0] === 0x05 ? this.#socks(socket, first, endpoint) : this.#http(socket, first, endpoint);
      handled.catch(() => socket.destroy());
    });
  }

  /** The host checked against the policy, then (unless listed) asked about. */
  async #admit(
    host: string,
    port: number,
    protocol: ProxyProtocol,
    endpoint: ProxyEndpoint,
  ): Promise<Pick<ProxyEvent, "by" | "reason">> {
    const closed = this.#options.closed;
    if (closed !== undefined) throw new Refusal("blocked-by-policy", closed);
    const verdict = this.#options.policy.decide(host, port);
    if (verdict.decision === "deny") throw new Refusal("blocked-by-denylist", verdict.reason);
    if (verdict.decision === "allow") return { by: "policy", reason: verdict.reason };
    if (this.granted(host, port) || endpoint.granted(host, port)) {
      return { by: "user", reason: "allowed by the user" };
    }
    const ask = endpoint.ask ?? this.#options.ask;
    if (ask === undefined) throw new Refusal("blocked-by-allowlist", verdict.reason);
    const timeoutMs = this.#options.askTimeoutMs ?? DEFAULT_ASK_TIMEOUT_MS;
    // One question per host and port at a time: the connections a tool opens at once wait for it together.
    const answer = await endpoint.question(host, port, () => {
      const waited = new AbortController();
      let timer: NodeJS.Timeout | undefined;
      return Promise.race([
        ask({
          host,
          port,
          protocol,
          endpoint: endpoint.label,
          why: verdict.reason,
          signal: waited.signal,
        }).catch((): AskAnswer => "deny"),
        new Promise<"timeout">((resolve) => {
          timer = setTimeout(() => {
            waited.abort();
            resolve("timeout");
          }, timeoutMs);
        }),
      ]).finally(() => clearTimeout(timer));
    });
    if (answer === "allow") return { by: "user", reason: "allowed by the user" };
    if (answer === "too-many") {
      throw new Refusal(
        "blocked-by-allowlist",
        `${verdict.reason}; this command asked about too many hosts (${MAX_QUESTIONS} in all, ${MAX_QUESTIONS_AT_ONCE} at a time), so no more are asked`,
      );
    }
    if (answer === "timeout") {
      throw Object.assign(
        new Refusal(
          "blocked-by-allowlist",
          `${verdict.reason}; nobody answered within ${timeoutMs < 1000 ? `${timeoutMs} ms` : `${Math.round(timeoutMs / 1000)} s`}`,
        ),
        { by: "timeout" as const },
      );
    }
    if (answer === "not-asked") throw new Refusal("blocked-by-allowlist", verdict.reason);
    const said = answer === "deny" ? "the user said no" : "the user did not answer";
    throw Object.assign(new Refusal("blocked-by-allowlist", `${verdict.reason}; ${said}`), {
      by: "user" as const,
    });
  }

  /** The addresses `host` may be dialed at: resolved once, each checked. */
  async #addresses(host: string): Promise<string[]> {
    const { policy } = this.#options;
    const configured = policy.resolved(host);
    let found: string[];
    if (isIP(host) !== 0) found = [host];
    else if (configured !== undefined) found = [configured];
    else {
      try {
        found = await (this.#options.lookup ?? defaultLookup)(host);
      } catch (error) {
        throw new Refusal(
          "unreachable",
          `the name does not resolve (${(error as NodeJS.ErrnoException).code ?? "error"})`,
        );
      }
    }
    const usable = found.filter(
      (address) => addressClass(address) === null || policy.allowsAddress(canonicalHost(address) ?? address),
    );
    if (usable.length > 0) return usable;
    const first = found[0];
    const kind = first === undefined ? null : addressClass(first);
    throw new Refusal(
      "blocked-by-address",
      kind === null
        ? "the name resolves to no address"
        : `it resolves to ${CLASS_WORDS[kind]}, which network_allow_addresses does not list`,
    );
  }

  /** Dials the first address that answers. */
  async #dial(addresses: readonly string[], port: number): Promise<Socket> {
    let last: Error | null = null;
    for (const address of addresses) {
      try {
        return await new Promise<Socket>((resolve, reject) => {
          const socket = tcpConnect({ host: address, port });
          socket.setTimeout(this.#options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS, () =>
            socket.destroy(new Error("timed out")),
          );
          socket.once("connect", () => {
            socket.setTimeout(0);
            resolve(socket);
          });
          socket.once("error", reject);
        });
      } catch (error) {
        last = error as Error;
      }
    }
    throw new Refusal("unreachable", `no connection (${last?.message ?? "no address"})`);
  }

  /** Admits, resolves and dials `host:port`, recording the decision; throws a Refusal. */
  async #open(
    host: string,
    port: number,
    protocol: ProxyProtocol,
    endpoint: ProxyEndpoint,
  ): Promise<{ upstream: Socket; event: ProxyEvent }> {
    const record = (decision: ProxyEvent["decision"], by: ProxyEvent["by"], reason: string): ProxyEvent => {
      const event: ProxyEvent = { host, port, protocol, decision, by, reason, bytesOut: 0, bytesIn: 0 };
      endpoint.record(event);
      return event;
    };
    let admitted: Pick<ProxyEvent, "by" | "reason">;
    try {
      admitted = await this.#admit(host, port, protocol, endpoint);
    } catch (error) {
      const by = (error as { by?: ProxyEvent["by"] }).by ?? "policy";
      if (error instanceof Refusal) record("blocked", by, error.message);
      throw error;
    }
    try {
      const upstream = await this.#dial(await this.#addresses(host), port);
      return { upstream, event: record("allowed", admitted.by, admitted.reason) };
    } catch (error) {
      if (error instanceof Refusal) record("blocked", "policy", error.message);
      throw error;
    }
  }

  async #http(socket: Socket, first: Buffer, endpoint: ProxyEndpoint): Promise<void> {
    const { head, rest } = await readHead(socket, first);
    const refuse = (kind: RefusalKind, status: number, message: string): void => {
      const body = `conch: ${message}\n`;
      socket.end(
        `HTTP/1.1 ${status} ${status === 403 ? "Forbidden" : status === 502 ? "Bad Gateway" : "Bad Request"}\r\n` +
          `x-proxy-error: ${kind}\r\ncontent-type: text/plain\r\nconnection: close\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
    };
    const request = parseRequest(head);
    if (request === null) {
      refuse("bad-request", 400, "not a proxy request: CONNECT host:port, or an absolute http:// URL");
      return;
    }
    const { host, port, protocol } = request;
    let opened: { upstream: Socket; event: ProxyEvent };
    try {
      opened = await this.#open(host, port, protocol, endpoint);
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      const status = error.kind === "unreachable" ? 502 : 403;
      refuse(error.kind, status, `network access to ${hostPort(host, port)} is blocked: ${error.message}`);
      return;
    }
    const { upstream, event } = opened;
    if (protocol === "https") {
      socket.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (rest.length > 0) upstream.write(rest);
    } else {
      upstream.write(Buffer.concat([Buffer.from(request.forwardHead, "latin1"), rest]));
    }
    relay(socket, upstream, event, endpoint);
  }

  async #socks(socket: Socket, first: Buffer, endpoint: ProxyEndpoint): Promise<void> {
    const reader = new ByteReader(socket, first);
    // Greeting: VER NMETHODS METHODS...; only "no authentication" is offered.
    const [, count] = await reader.take(2);
    const methods = await reader.take(count as number);
    if (!methods.includes(0x00)) {
      socket.end(Buffer.from([0x05, 0xff]));
      return;
    }
    socket.write(Buffer.from([0x05, 0x00]));
    const [version, command, , type] = await reader.take(4);
    const reply = (code: number): Buffer => Buffer.from([0x05, code, 0x00, 0x01, 0, 0, 0, 0, 0, 0]);
    if (version !== 0x05 || command !== 0x01) {
      socket.end(reply(0x07));
      return;
    }
    let raw: string;
    if (type === 0x01) raw = [...(await reader.take(4))].join(".");
    else if (type === 0x04) {
      const bytes = await reader.take(16);
      raw = Array.from({ length: 8 }, (_, i) =>
        (((bytes[2 * i] as number) << 8) | (bytes[2 * i + 1] as number)).toString(16),
      ).join(":");
    } else if (type === 0x03) {
      const [length] = await reader.take(1);
      raw = (await reader.take(length as number)).toString("latin1");
    } else {
      socket.end(reply(0x08));
      return;
    }
    const portBytes = await reader.take(2);
    const port = ((portBytes[0] as number) << 8) | (portBytes[1] as number);
    const host = canonicalHost(raw);
    if (host === null || port === 0) {
      endpoint.record({
        host: raw,
        port,
        protocol: "socks5",
        decision: "blocked",
        by: "policy",
        reason: "not a host name",
        bytesOut: 0,
        bytesIn: 0,
      });
      socket.end(reply(0x02));
      return;
    }
    let opened: { upstream: Socket; event: ProxyEvent };
    try {
      opened = await this.#open(host, port, "socks5", endpoint);
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      // 0x02: connection not allowed by ruleset; 0x04: host unreachable.
      socket.end(reply(error.kind === "unreachable" ? 0x04 : 0x02));
      return;
    }
    socket.write(reply(0x00));
    const leftover = reader.rest();
    if (leftover.length > 0) opened.upstream.write(leftover);
    relay(socket, opened.upstream, opened.event, endpoint);
  }
}

/** One command's way into the proxy: what it asked, in order. */
export class ProxyEndpoint {
  readonly label: string;
  readonly events: ProxyEvent[] = [];
  /** How this endpoint's command asks about an unlisted host, if it has its own way. */
  readonly ask: Ask | undefined;
  readonly #proxy: NetProxy;
  readonly #servers = new Set<Server>();
  readonly #onEvent: ((event: ProxyEvent) => void) | undefined;
  readonly #granted = new Set<string>();
  readonly #questions = new Map<string, Promise<AskAnswer | "timeout">>();
  #inFlight = 0;
  #askedCount = 0;

  constructor(label: string, proxy: NetProxy, options: EndpointOptions = {}) {
    this.label = label;
    this.#proxy = proxy;
    this.ask = options.ask;
    this.#onEvent = options.onEvent;
  }

  /** Allows `host` (on `port`, or any) for this endpoint's command from now on. */
  grant(host: string, port: number | null = null): void {
    this.#granted.add(grantKey(host, port));
  }

  granted(host: string, port: number): boolean {
    return this.#granted.has(grantKey(host, port)) || this.#granted.has(grantKey(host, null));
  }

  /**
   * The answer to the question about `host:port`: asked now, or the one being asked already (the
   * connections a tool opens at once wait together). A "no" or no answer stands for the rest of this
   * endpoint's command: a client's retries are not asked again.
   */
  question(
    host: string,
    port: number,
    ask: () => Promise<AskAnswer | "timeout">,
  ): Promise<AskAnswer | "timeout" | "too-many"> {
    const key = grantKey(host, port);
    const asking = this.#questions.get(key);
    if (asking !== undefined) return asking;
    // A command cannot flood the person (nor push other calls' questions off the pending list) with
    // hosts: a few questions at a time, and a bounded number in all.
    if (this.#inFlight >= MAX_QUESTIONS_AT_ONCE || this.#askedCount >= MAX_QUESTIONS) {
      return Promise.resolve("too-many");
    }
    this.#askedCount++;
    this.#inFlight++;
    const asked = ask()
      .then((answer) => {
        if (answer === "allow") this.#questions.delete(key);
        return answer;
      })
      .finally(() => {
        this.#inFlight--;
      });
    this.#questions.set(key, asked);
    return asked;
  }

  /** Serves a client connection of this endpoint's command. */
  accept(socket: Socket): void {
    this.#proxy.serve(socket, this);
  }

  /** Serves every connection `server` accepts (a listener made for this command). */
  attach(server: Server): void {
    this.#servers.add(server);
    server.on("connection", (socket: Socket) => this.accept(socket));
  }

  /** A listener of its own on `host:port` (port 0: any free one), for callers that do not bring one. */
  async listen(port = 0, host = "127.0.0.1"): Promise<Server> {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, host, () => resolve());
    });
    this.attach(server);
    return server;
  }

  record(event: ProxyEvent): void {
    this.events.push(event);
    if (event.decision === "blocked") this.#onEvent?.(event);
  }

  /** An allowed connection closed: its bytes are final. */
  finished(event: ProxyEvent): void {
    this.#onEvent?.(event);
  }

  /** The blocked requests, one line each, as the command's result says them. */
  refusals(): string[] {
    return this.events
      .filter((event) => event.decision === "blocked")
      .map((event) => `network: blocked ${hostPort(event.host, event.port)} (${event.reason})`);
  }

  /** Stops its listeners; connections in flight finish. */
  close(): void {
    for (const server of this.#servers) server.close();
    this.#servers.clear();
  }
}

function grantKey(host: string, port: number | null): string {
  return `${host} ${port ?? "*"}`;
}

function hostPort(host: string, port: number): string {
  return `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
}

async function defaultLookup(host: string): Promise<string[]> {
  return (await dnsLookup(host, { all: true, verbatim: true })).map((entry) => entry.address);
}

/** Pipes both ways, counting bytes into `event`; tells `endpoint` once both sides closed. */
function relay(client: Socket, upstream: Socket, event: ProxyEvent, endpoint: ProxyEndpoint): void {
  client.setTimeout(0);
  let open = 2;
  const closed = (): void => {
    open -= 1;
    if (open === 0) endpoint.finished(event);
  };
  client.once("close", closed);
  upstream.once("close", closed);
  upstream.on("error", () => client.destroy());
  client.on("error", () => upstream.destroy());
  upstream.on("data", (chunk: Buffer) => {
    event.bytesIn += chunk.length;
  });
  client.on("data", (chunk: Buffer) => {
    event.bytesOut += chunk.length;
  });
  client.pipe(upstream);
  upstream.pipe(client);
  client.resume();
}

/** Reads up to the end of an HTTP head; what follows it is `rest`. */
function readHead(socket: Socket, first: Buffer): Promise<{ head: string; rest: Buffer }> {
  return new Promise((resolve, reject) => {
    let buffered = first;
    const check = (): boolean => {
      const end = buffered.indexOf("\r\n\r\n");
      if (end !== -1) {
        socket.off("data", more);
        socket.pause();
        resolve({ head: buffered.subarray(0, end).toString("latin1"), rest: buffered.subarray(end + 4) });
        return true;
      }
      if (buffered.length > MAX_HEAD_BYTES) {
        socket.off("data", more);
        reject(new Error("request head too long"));
        return true;
      }
      return false;
    };
    const more = (chunk: Buffer): void => {
      buffered = Buffer.concat([buffered, chunk]);
      check();
    };
    if (!check()) {
      socket.on("data", more);
      socket.resume();
    }
  });
}

// A request target's authority: a host or [IPv6], and a port.
const AUTHORITY = /^(\[[0-9A-Fa-f:.]+\]|[^\s:/?#@[\]]+)(?::(\d{1,5}))?$/;

function parseAuthority(text: string, defaultPort: number | null): { host: string; port: number } | null {
  const match = AUTHORITY.exec(text);
  if (match === null) return null;
  const host = canonicalHost(match[1] as string);
  const port = match[2] === undefined ? defaultPort : Number(match[2]);
  if (host === null || port === null || port < 1 || port > 65_535) return null;
  return { host, port };
}

/**
 * The request a head asks for: `CONNECT host:port`, or an absolute `http://` URL whose Host header (when
 * given) names the same host, with the head to send upstream (origin-form, no proxy headers, one request).
 */
function parseRequest(
  head: string,
):
  | { host: string; port: number; protocol: "https"; forwardHead?: undefined }
  | { host: string; port: number; protocol: "http"; forwardHead: string }
  | null {
  const lines = head.split("\r\n");
  const requestLine = /^([A-Z]+) (\S+) HTTP\/1\.[01]$/.exec(lines[0] ?? "");
  if (requestLine === null) return null;
  const [, method, target] = requestLine as unknown as [string, string, string];
  const headers = lines.slice(1);
  if (headers.some((line) => !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+:[^\0\r\n]*$/.test(line))) return null;
  const hostHeader = headers
    .find((line) => /^host:/i.test(line))
    ?.slice(5)
    .trim();
  if (method === "CONNECT") {
    const authority = parseAuthority(target, null);
    return authority === null ? null : { ...authority, protocol: "https" };
  }
  if (!target.startsWith("http://")) return null;
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return null;
  }
  const authority = parseAuthority(url.host, 80);
  if (authority === null || url.username !== "" || url.password !== "") return null;
  if (hostHeader !== undefined) {
    const given = parseAuthority(hostHeader, 80);
    if (given === null || given.host !== authority.host || given.port !== authority.port) return null;
  }
  const kept = headers.filter((line) => !/^(proxy-[^:]*|connection|keep-alive):/i.test(line));
  const forwardHead = [
    `${method} ${url.pathname}${url.search} HTTP/1.1`,
    ...kept,
    "Connection: close",
    "",
    "",
  ].join("\r\n");
  return { ...authority, protocol: "http", forwardHead };
}

/** Reads exact byte counts from a paused socket, starting with what was read already. */
class ByteReader {
  #buffered: Buffer;
  readonly #socket: Socket;

  constructor(socket: Socket, first: Buffer) {
    this.#socket = socket;
    this.#buffered = first;
  }

  async take(count: number): Promise<Buffer> {
    while (this.#buffered.length < count) {
      const chunk = await new Promise<Buffer>((resolve, reject) => {
        const onData = (data: Buffer): void => {
          this.#socket.off("end", onEnd);
          this.#socket.pause();
          resolve(data);
        };
        const onEnd = (): void => {
          this.#socket.off("data", onData);
          reject(new Error("closed"));
        };
        this.#socket.once("data", onData);
        this.#socket.once("end", onEnd);
        this.#socket.resume();
      });
      this.#buffered = Buffer.concat([this.#buffered, chunk]);
    }
    const taken = this.#buffered.subarray(0, count);
    this.#buffered = this.#buffered.subarray(count);
    return taken;
  }

  rest(): Buffer {
    return this.#buffered;
  }
}
