import { describe, expect, it } from "vitest";
import { looksLikeNetworkFailure, sandboxCutsNetwork } from "./denial-hint.js";

describe("looksLikeNetworkFailure", () => {
  // What common tools print without a network, as they print it.
  it.each([
    "curl: (7) Failed to connect to 127.0.0.1 port 1 after 0 ms: Couldn't connect to server",
    "curl: (7) Failed to connect to localhost port 8080 after 2 ms: Could not connect to server",
    "curl: (7) Failed to connect to 127.0.0.1 port 1: Connection refused",
    "curl: (6) Could not resolve host: example.com",
    "curl: (5) Could not resolve proxy: proxy.local",
    "wget: unable to resolve host address 'example.com'",
    "ConnectionRefusedError: [Errno 111] Connection refused",
    "socket.gaierror: [Errno -3] Temporary failure in name resolution",
    "socket.gaierror: [Errno -2] Name or service not known",
    "OSError: [Errno 101] Network is unreachable",
    "ssh: connect to host example.com port 22: No route to host",
    "ssh: Could not resolve hostname example.com: No address associated with hostname",
    "fatal: unable to access 'https://github.com/x/y/': Could not resolve host: github.com",
    "WARNING: Retrying ... NewConnectionError: Failed to establish a new connection: [Errno -3] Temporary failure in name resolution",
    "npm ERR! request to https://registry.npmjs.org/x failed, reason: getaddrinfo EAI_AGAIN registry.npmjs.org",
    "Error: connect ECONNREFUSED 127.0.0.1:5432",
    "Error: getaddrinfo ENOTFOUND db.internal",
    "W: Failed to fetch http://deb.debian.org/debian/dists/bookworm/InRelease  Temporary failure resolving 'deb.debian.org'",
    "dial tcp: lookup proxy.golang.org on 127.0.0.53:53: read udp: connection refused",
    "curl: (6) getaddrinfo() thread failed to start",
    "ping: example.com: nodename nor servname provided, or not known",
    "CONNECTION REFUSED",
  ])("%s", (output) => {
    expect(looksLikeNetworkFailure(`some output\n${output}\n`)).toBe(true);
  });

  it.each([
    "touch: cannot touch '/x': Permission denied",
    "bash: foo: command not found",
    "cat: no-such-file: No such file or directory",
    "HTTP/1.1 404 Not Found",
    "Error: Request timed out",
    "Connection reset by peer",
    "ENOTFOUNDATION is not an error code",
  ])("not %s", (output) => {
    expect(looksLikeNetworkFailure(output)).toBe(false);
  });
});

describe("sandboxCutsNetwork", () => {
  it("read-only, and workspace-write without network_access", () => {
    expect(sandboxCutsNetwork({ mode: "read-only" })).toBe(true);
    expect(sandboxCutsNetwork({ mode: "workspace-write" })).toBe(true);
    expect(sandboxCutsNetwork({ mode: "workspace-write", networkAccess: false })).toBe(true);
    expect(sandboxCutsNetwork({ mode: "workspace-write", networkAccess: true })).toBe(false);
    expect(sandboxCutsNetwork({ mode: "danger-full-access" })).toBe(false);
    expect(sandboxCutsNetwork({ mode: "external-sandbox" })).toBe(false);
  });
});
