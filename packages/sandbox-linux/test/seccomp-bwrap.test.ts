import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable, Writable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { buildSeccompFilter } from "../src/seccomp/filter.js";

const BWRAP_ARGS = [
  "--ro-bind",
  "/",
  "/",
  "--dev",
  "/dev",
  "--proc",
  "/proc",
  "--unshare-user",
  "--unshare-pid",
  "--unshare-net",
  "--die-with-parent",
];

const bwrapWorks =
  process.platform === "linux" &&
  process.arch === "x64" &&
  spawnSync("bwrap", [...BWRAP_ARGS, "--", "true"], { stdio: "ignore" }).status === 0;

interface Outcome {
  readonly exitCode: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `python3 -c script ...args` under bwrap, with the filter on fd 3 unless it is undefined. */
function runPython(filter: Uint8Array | undefined, script: string, ...args: string[]): Promise<Outcome> {
  const seccomp = filter ? ["--seccomp", "3"] : [];
  const child = spawn("bwrap", [...BWRAP_ARGS, ...seccomp, "--", "python3", "-c", script, ...args], {
    stdio: ["ignore", "pipe", "pipe", "pipe"],
  });
  const out = child.stdio[1] as Readable;
  const err = child.stdio[2] as Readable;
  const fd3 = child.stdio[3] as Writable;
  fd3.on("error", () => {});
  fd3.end(filter);
  let stdout = "";
  let stderr = "";
  out.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
  });
  err.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (exitCode) => resolve({ exitCode, stdout, stderr }));
  });
}

const off = (): Uint8Array => buildSeccompFilter({ arch: "x86_64", network: false });
const on = (): Uint8Array => buildSeccompFilter({ arch: "x86_64", network: true });

const CREATE_UNIX_SOCKET = `
import socket
try:
    socket.socket(socket.AF_UNIX)
    print("created")
except OSError as e:
    print(e.errno, e.strerror)
`;

const SOCKETPAIR = `
import socket
a, b = socket.socketpair()
a.sendall(b"ping")
print(b.recv(4).decode())
`;

const CONNECT_HOST_SOCKET = `
import socket, sys
path = sys.argv[1]
try:
    s = socket.socket(socket.AF_UNIX)
    s.connect(path)
    print("socket+connect ok")
except OSError as e:
    print("socket+connect", e.errno)
try:
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    a.connect(path)
    print("dgram socketpair connect ok")
except OSError as e:
    print("dgram socketpair", e.errno)
a, b = socket.socketpair()
try:
    a.connect(path)
    print("stream socketpair connect ok")
except OSError as e:
    print("stream socketpair connect", e.errno)
`;

// ptrace(PTRACE_ATTACH) of its own child, process_vm_readv with no iovecs, io_uring_setup, and
// TIOCSTI on a pty that is the caller's controlling terminal: all succeed without the filter.
const DENIED_ALWAYS = `
import ctypes, fcntl, os, pty, subprocess, termios
libc = ctypes.CDLL(None, use_errno=True)
def report(name, result):
    print(name, "ok" if result >= 0 else ctypes.get_errno())
child = subprocess.Popen(["sleep", "30"])
report("ptrace", libc.ptrace(16, child.pid, 0, 0))
report("process_vm_readv", libc.process_vm_readv(child.pid, None, 0, None, 0, 0))
child.kill()
child.wait()
report("io_uring_setup", libc.syscall(425, 1, ctypes.create_string_buffer(120)))
master, slave = pty.openpty()
os.setsid()
fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
try:
    fcntl.ioctl(slave, termios.TIOCSTI, b"x")
    print("TIOCSTI ok")
except OSError as e:
    print("TIOCSTI", e.errno)
`;

const X32_GETPID = `
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
print("x32", libc.syscall(0x40000000 | 39), ctypes.get_errno(), flush=True)
`;

describe.runIf(bwrapWorks)("the seccomp filter under bwrap", () => {
  let dir: string | undefined;
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = undefined;
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it("denies creating an AF_UNIX socket with network off, and allows it with network on", async () => {
    expect(await runPython(off(), CREATE_UNIX_SOCKET)).toEqual({
      exitCode: 0,
      stdout: "1 Operation not permitted\n",
      stderr: "",
    });
    expect(await runPython(on(), CREATE_UNIX_SOCKET)).toEqual({
      exitCode: 0,
      stdout: "created\n",
      stderr: "",
    });
  });

  it("keeps socketpair working with network off", async () => {
    expect(await runPython(off(), SOCKETPAIR)).toEqual({ exitCode: 0, stdout: "ping\n", stderr: "" });
  });

  it("cannot reach a unix socket on the host with network off; can with network on", async () => {
    dir = mkdtempSync(join(tmpdir(), "conch-seccomp-"));
    const path = join(dir, "host.sock");
    let connections = 0;
    const listening = createServer((socket) => {
      connections += 1;
      socket.destroy();
    });
    server = listening;
    await new Promise<void>((resolve) => listening.listen(path, resolve));

    expect(await runPython(off(), CONNECT_HOST_SOCKET, path)).toEqual({
      exitCode: 0,
      stdout: "socket+connect 1\ndgram socketpair 1\nstream socketpair connect 106\n",
      stderr: "",
    });
    expect(connections).toBe(0);

    // EPROTOTYPE (91): a datagram socket cannot connect to a stream listener; EISCONN (106).
    expect(await runPython(on(), CONNECT_HOST_SOCKET, path)).toEqual({
      exitCode: 0,
      stdout: "socket+connect ok\ndgram socketpair 91\nstream socketpair connect 106\n",
      stderr: "",
    });
    expect(connections).toBe(1);
  });

  it("denies ptrace, process_vm_readv, io_uring_setup and TIOCSTI with EPERM", async () => {
    const expected = "ptrace 1\nprocess_vm_readv 1\nio_uring_setup 1\nTIOCSTI 1\n";
    expect(await runPython(on(), DENIED_ALWAYS)).toEqual({ exitCode: 0, stdout: expected, stderr: "" });
    expect(await runPython(off(), DENIED_ALWAYS)).toEqual({ exitCode: 0, stdout: expected, stderr: "" });
    expect(await runPython(undefined, DENIED_ALWAYS)).toEqual({
      exitCode: 0,
      stdout: "ptrace ok\nprocess_vm_readv ok\nio_uring_setup ok\nTIOCSTI ok\n",
      stderr: "",
    });
  });

  it("kills a process that makes an x32 syscall", async () => {
    const killed = await runPython(on(), X32_GETPID);
    expect(killed).toEqual({ exitCode: 128 + 31, stdout: "", stderr: "" });
    // ENOSYS (38) without the filter: this kernel has no x32 support, so the call itself was harmless.
    expect(await runPython(undefined, X32_GETPID)).toEqual({
      exitCode: 0,
      stdout: "x32 -1 38\n",
      stderr: "",
    });
  });
});
