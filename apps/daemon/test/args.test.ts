// --http [HOST:]PORT and --allow-remote, as parseDaemonArgs reads them (bin.test.ts has the other options).
import { describe, expect, it } from "vitest";
import { parseDaemonArgs } from "../src/args.js";
import { UsageError } from "../src/errors.js";

function http(args: string[]): unknown {
  const parsed = parseDaemonArgs(args);
  if (parsed.action !== "serve") throw new Error(`${JSON.stringify(args)} is not serve`);
  return parsed.http;
}

function usageMessage(args: string[]): string {
  try {
    parseDaemonArgs(args);
  } catch (error) {
    if (error instanceof UsageError) return error.message;
    throw error;
  }
  throw new Error(`${JSON.stringify(args)} parsed`);
}

describe("parseDaemonArgs --http", () => {
  it("reads PORT, HOST:PORT and [IPv6]:PORT, 127.0.0.1 by default", () => {
    expect(parseDaemonArgs(["--http", "8080"])).toEqual({
      action: "serve",
      options: { cwd: process.cwd() },
      http: { host: "127.0.0.1", port: 8080, loopback: true },
    });
    expect(http(["--http=0"])).toEqual({ host: "127.0.0.1", port: 0, loopback: true });
    expect(http(["--http", "localhost:65535"])).toEqual({ host: "localhost", port: 65535, loopback: true });
    expect(http(["--http", "127.0.0.2:1"])).toEqual({ host: "127.0.0.2", port: 1, loopback: true });
    expect(http(["--http", "[::1]:0"])).toEqual({ host: "::1", port: 0, loopback: true });
    expect(http(["--http", "[0:0:0::1]:0"])).toEqual({ host: "::1", port: 0, loopback: true });
    expect(http(["--http", "0.0.0.0:0", "--allow-remote"])).toEqual({
      host: "0.0.0.0",
      port: 0,
      loopback: false,
    });
    expect(http(["--allow-remote", "--http", "[::]:9"])).toEqual({ host: "::", port: 9, loopback: false });
    expect(http(["--http", "[2001:DB8::1]:9", "--allow-remote"])).toEqual({
      host: "2001:db8::1",
      port: 9,
      loopback: false,
    });
    expect(http(["--allow-remote", "--http", "3"])).toEqual({ host: "127.0.0.1", port: 3, loopback: true });
    expect(http([])).toBeUndefined();
  });

  it("names --http and what it expected in every mistake", () => {
    expect(usageMessage(["--http"])).toBe("--http: expected a value");
    expect(usageMessage(["--http="])).toBe('--http: expected a value, received ""');
    expect(usageMessage(["--http", "1", "--http", "2"])).toBe("--http: given more than once");
    for (const value of ["x", "127.0.0.1", ":80", "::1:80", "127.0.0.1:", "-1", "80a", "[::1]", "a:b:1"]) {
      expect(usageMessage(["--http", value])).toBe(
        `--http: expected [HOST:]PORT, received ${JSON.stringify(value)}`,
      );
    }
    expect(usageMessage(["--http", "65536"])).toBe(
      '--http: expected a port from 0 to 65535, received "65536"',
    );
    expect(usageMessage(["--http", "[::1]:99999999999"])).toBe(
      '--http: expected a port from 0 to 65535, received "[::1]:99999999999"',
    );
    for (const value of ["example.com:80", "999.1.1.1:80", "[127.0.0.1]:80", "[fe80::1%eth0]:80", "[]:1"]) {
      expect(usageMessage(["--http", value])).toBe(
        `--http: expected HOST to be an IP address ([…] for IPv6) or localhost, received ${JSON.stringify(value)}`,
      );
    }
  });

  it("refuses a host that is not loopback without --allow-remote, and --allow-remote alone", () => {
    expect(usageMessage(["--http", "0.0.0.0:0"])).toBe(
      '--http: "0.0.0.0" is not a loopback address: other machines could connect; pass --allow-remote to ' +
        "listen there anyway (clients still need the token)",
    );
    expect(usageMessage(["--http", "[::]:0"])).toBe(
      '--http: "::" is not a loopback address: other machines could connect; pass --allow-remote to ' +
        "listen there anyway (clients still need the token)",
    );
    expect(usageMessage(["--allow-remote"])).toBe("--allow-remote: only with --http");
    expect(usageMessage(["--allow-remote=yes", "--http", "0"])).toBe(
      '--allow-remote: takes no value, received "--allow-remote=yes"',
    );
  });
});
