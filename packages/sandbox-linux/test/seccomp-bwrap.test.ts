import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import type { Readable, Writable } from "node:stream";
import { describeWith } from "@conch/test-config";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { createLinuxBackend } from "../src/index.js";
import { buildSeccompFilter, seccompArchOf } from "../src/seccomp/filter.js";
import { ARCH_SYSCALLS, DENIED_SYSCALLS, type SeccompArch } from "../src/seccomp/syscalls.js";
import { rules, runSandboxed, type Outcome as Sandboxed } from "./sandbox-helpers.js";

// The filter alone under a bwrap that keeps every capability (so a denial here is the filter's, not a
// missing capability's), and the whole backend for what a sandboxed command meets.
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
  "--cap-add",
  "ALL",
];
const arch: SeccompArch | null =
  process.arch === "x64" || process.arch === "arm64" ? seccompArchOf(process.arch) : null;
const backend = createLinuxBackend();

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

const off = (): Uint8Array => buildSeccompFilter({ arch: arch ?? "x86_64", network: false });
const on = (): Uint8Array => buildSeccompFilter({ arch: arch ?? "x86_64", network: true });

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

// Each call in a forked child, so one that succeeds (a new namespace, a persona) changes nothing for
// the next. Arguments are harmless: without the filter each fails with its own errno or succeeds.
const DENIED_PROBE = `
import ctypes, json, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
nr = json.loads(sys.argv[1])
AT_FDCWD = -100
calls = [
    ("keyctl", 9999), ("add_key", 0, 0, 0, 0, 0), ("request_key", 0, 0, 0, 0),
    ("perf_event_open", 0, 0, -1, -1, 0), ("bpf", 9999, 0, 0), ("userfaultfd", 1 | 0x10),
    ("mount", 0, b"/nonexistent-conch", 0, 0, 0), ("umount2", b"/nonexistent-conch", 0),
    ("pivot_root", b"/nonexistent-conch", b"/nonexistent-conch"), ("setns", -1, 0),
    ("open_tree", -1, b"", 0), ("move_mount", -1, 0, -1, 0, 0), ("fsopen", 0, 0),
    ("mount_setattr", -1, 0, 0, 0, 0), ("name_to_handle_at", AT_FDCWD, b"/", 0, 0, 0),
    ("pidfd_getfd", -1, 0, 0), ("process_madvise", -1, 0, 0, 0, 0),
    ("unshare", 0x40000000), ("unshare", 0x10000000), ("clone", 0x10000000 | 17, 0, 0, 0, 0),
    ("clone3", 0, 0), ("personality", 0x0400000),
]
for name, *args in calls:
    pid = os.fork()
    if pid == 0:
        r = libc.syscall(ctypes.c_long(nr[name]), *[a if isinstance(a, bytes) else ctypes.c_long(a) for a in args])
        e = ctypes.get_errno()
        if name == "clone" and r == 0:
            os._exit(0)
        if name == "clone" and r > 0:
            os.waitpid(r, 0)
        os.write(1, f"{name} {'ok' if r >= 0 else e}\\n".encode())
        os._exit(0)
    os.waitpid(pid, 0)
`;

// Every socketpair type with network off: what it gives, and whether it can then send a datagram, or a
// descriptor (SCM_RIGHTS), to a datagram socket the host listens on, or connect to it.
const SOCKETPAIR_TYPES = `
import array, socket, sys
path = sys.argv[1]
for kind in range(1, 11):
    try:
        a, b = socket.socketpair(socket.AF_UNIX, kind)
    except OSError as e:
        print(kind, "socketpair", e.errno)
        continue
    out = [str(kind), "socketpair ok"]
    for name, attempt in [
        ("sendto", lambda: a.sendto(b"sendto %d" % kind, path)),
        ("sendmsg", lambda: a.sendmsg([b"sendmsg %d" % kind], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [0]))], 0, path)),
        ("connect", lambda: a.connect(path)),
    ]:
        try:
            attempt()
            out.append(name + " ok")
        except OSError as e:
            out.append("%s %d" % (name, e.errno))
    print(*out)
`;

// A datagram socket on the host: prints what it received (and how many descriptors came along) once its
// stdin closes.
const DGRAM_SERVER = `
import select, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
print("ready", flush=True)
got = []
while True:
    ready, _, _ = select.select([s, sys.stdin], [], [])
    if s in ready:
        data, anc, _, _ = s.recvmsg(100, socket.CMSG_SPACE(64))
        fds = sum(len(d) // 4 for level, kind, d in anc if kind == socket.SCM_RIGHTS)
        got.append("%s+%dfd" % (data.decode(), fds))
    if sys.stdin in ready and not sys.stdin.readline():
        break
print(", ".join(got) or "nothing", flush=True)
`;

describeWith("bwrap", "the seccomp filter under bwrap", () => {
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
    dir = mkdtempSync("/var/tmp/conch-seccomp-");
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

  it.runIf(arch === "x86_64")("kills a process that makes an x32 syscall", async () => {
    const killed = await runPython(on(), X32_GETPID);
    expect(killed).toEqual({ exitCode: 128 + 31, stdout: "", stderr: "" });
    // ENOSYS (38) without the filter: this kernel has no x32 support, so the call itself was harmless.
    expect(await runPython(undefined, X32_GETPID)).toEqual({
      exitCode: 0,
      stdout: "x32 -1 38\n",
      stderr: "",
    });
  });
  it("denies the kernel-attack-surface syscalls with EPERM (clone3 ENOSYS), which work without it", async () => {
    if (arch === null) throw new Error(`no seccomp table for ${process.arch}`);
    const { clone, clone3, unshare, personality } = ARCH_SYSCALLS[arch];
    const numbers: Record<string, number> = { clone, clone3, unshare, personality };
    for (const entry of DENIED_SYSCALLS) if (entry[arch] !== null) numbers[entry.name] = entry[arch];
    const names = [
      "keyctl add_key request_key perf_event_open bpf userfaultfd mount umount2 pivot_root setns open_tree",
      "move_mount fsopen mount_setattr name_to_handle_at pidfd_getfd process_madvise unshare unshare clone",
    ]
      .join(" ")
      .split(" ");
    const denied = await runPython(off(), DENIED_PROBE, JSON.stringify(numbers));
    expect(denied).toEqual({
      exitCode: 0,
      stdout: [...names.map((name) => `${name} 1`), "clone3 38", "personality 1", ""].join("\n"),
      stderr: "",
    });
    expect(await runPython(on(), DENIED_PROBE, JSON.stringify(numbers))).toEqual(denied);
    // Without the filter none of them is EPERM (bpf and perf may be, where the kernel restricts them;
    // pivot_root, move_mount and fsopen check CAP_SYS_ADMIN before their arguments, and bwrap keeps no
    // capability for a caller that is not root).
    const unfiltered = await runPython(undefined, DENIED_PROBE, JSON.stringify(numbers));
    const results = unfiltered.stdout.trim().split("\n");
    expect(results.length).toBe(names.length + 2);
    const capabilityFirst =
      process.getuid?.() === 0
        ? /^(bpf|perf_event_open) /
        : /^(bpf|perf_event_open|pivot_root|move_mount|fsopen) /;
    for (const line of results) {
      if (capabilityFirst.test(line)) continue;
      expect(line).not.toMatch(/ 1$/);
    }
    expect(results).toEqual(expect.arrayContaining(["unshare ok", "clone ok", "personality ok"]));
  });
});

describeWith("bwrap", "the whole backend under real bwrap", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync("/var/tmp/conch-seccomp-backend-");
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const inWorkspace = (network: boolean) =>
    rules({ writableRoots: [{ root: dir, readOnlySubpaths: [] }], network });
  const run = (argv: string[], network = false): Promise<Sandboxed> =>
    runSandboxed(backend, inWorkspace(network), dir, argv);

  async function withDgramServer(probe: (path: string) => Promise<Sandboxed>): Promise<[Sandboxed, string]> {
    const path = join(dir, `host-${Date.now()}.sock`);
    const server = spawn("python3", ["-c", DGRAM_SERVER, path], { stdio: ["pipe", "pipe", "inherit"] });
    let said = "";
    server.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      said += chunk;
    });
    await new Promise<void>((resolve) => {
      const check = (): void => (said.startsWith("ready\n") ? resolve() : void setTimeout(check, 5));
      check();
    });
    const result = await probe(path);
    server.stdin.end();
    await new Promise((resolve) => server.on("close", resolve));
    rmSync(path, { force: true });
    return [result, said.slice("ready\n".length).trim()];
  }

  it("with network off, no socketpair type reaches a host datagram socket, with data or descriptors", async () => {
    const [result, received] = await withDgramServer((path) =>
      run(["python3", "-c", SOCKETPAIR_TYPES, path]),
    );
    // A connected stream socket refuses an address (EISCONN, 106), a seqpacket one ignores it and sends
    // to its peer, inside the sandbox; neither connects to a datagram socket (EPROTOTYPE, 91).
    expect(result).toEqual({
      code: 0,
      output: [
        "1 socketpair ok sendto 106 sendmsg 106 connect 91",
        ...[2, 3, 4].map((kind) => `${kind} socketpair 1`),
        "5 socketpair ok sendto ok sendmsg ok connect 91",
        ...[6, 7, 8, 9, 10].map((kind) => `${kind} socketpair 1`),
        "",
      ].join("\n"),
    });
    expect(received).toBe("nothing");
  });

  it("with network on, the datagram pairs (SOCK_RAW among them) do reach it: the probe can see a leak", async () => {
    const [result, received] = await withDgramServer((path) =>
      run(["python3", "-c", SOCKETPAIR_TYPES, path], true),
    );
    expect(result.output).toContain("2 socketpair ok sendto ok sendmsg ok");
    expect(result.output).toContain("3 socketpair ok sendto ok sendmsg ok");
    expect(received).toBe("sendto 2+0fd, sendmsg 2+1fd, sendto 3+0fd, sendmsg 3+1fd");
  });

  it("sets no setuid or setgid bit, by chmod or at creation, nor a file capability", async () => {
    const script = `import os, errno
def attempt(name, fn):
    try:
        fn()
        print(name, "worked")
    except OSError as e:
        print(name, errno.errorcode[e.errno])
open("plain", "w").close()
attempt("chmod-u", lambda: os.chmod("plain", 0o4755))
attempt("chmod-g", lambda: os.chmod("plain", 0o2755))
attempt("create-u", lambda: os.close(os.open("made", os.O_CREAT | os.O_WRONLY, 0o4755)))
attempt("mknod-u", lambda: os.mknod("node", 0o100755 | 0o4000))
attempt("chmod", lambda: os.chmod("plain", 0o755))
attempt("create", lambda: os.close(os.open("fine", os.O_CREAT | os.O_WRONLY, 0o644)))
attempt("reopen", lambda: os.close(os.open("fine", os.O_WRONLY, 0o4755)))
attempt("filecap", lambda: os.setxattr("plain", "security.capability", bytes.fromhex("0000000200000000000000000000000000000000")))
`;
    const result = await run(["python3", "-c", script]);
    const said = Object.fromEntries(
      result.output
        .trim()
        .split("\n")
        .map((line) => line.split(" ")),
    );
    expect(said).toMatchObject({
      "chmod-u": "EPERM",
      "chmod-g": "EPERM",
      "create-u": "EPERM",
      "mknod-u": "EPERM",
      chmod: "worked",
      create: "worked",
      // Without O_CREAT the mode is not read: an ordinary open is never refused for it.
      reopen: "worked",
      // Without CAP_SETFCAP (bwrap drops every capability), root included.
      filecap: "EPERM",
    });
    // On the host: nothing with a setuid or setgid bit, and the refused file was never made.
    expect(existsSync(join(dir, "made"))).toBe(false);
    for (const name of readdirSync(dir)) expect(statSync(join(dir, name)).mode & 0o6000, name).toBe(0);
  });

  it("keeps ordinary programs working: node, python3, bash, git, forks and threads", async () => {
    const node = await run([
      process.execPath,
      "-e",
      `const { Worker } = require("node:worker_threads");
       const { execFileSync } = require("node:child_process");
       new Worker("require('node:worker_threads').parentPort.postMessage(6 * 7)", { eval: true })
         .on("message", (n) => console.log(n, execFileSync("sh", ["-c", "echo forked"]).toString().trim()));`,
    ]);
    expect(node).toEqual({ code: 0, output: "42 forked\n" });
    const python = await run([
      "python3",
      "-c",
      `import os, subprocess, threading
t = threading.Thread(target=lambda: print("thread"))
t.start(); t.join()
pid = os.fork()
if pid == 0:
    os._exit(7)
print("fork", os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
print(subprocess.run(["echo", "spawned"], capture_output=True, text=True).stdout.strip())`,
    ]);
    expect(python).toEqual({ code: 0, output: "thread\nfork 7\nspawned\n" });
    const bash = await run([
      "bash",
      "-c",
      "f() { echo $((6 * 7)); }; f; (echo sub) | cat; echo $(echo subst) &wait",
    ]);
    expect(bash).toEqual({ code: 0, output: "42\nsub\nsubst\n" });
    const git = await run([
      "bash",
      "-c",
      "git init -q repo && cd repo && echo x > f && git add f && git -c user.email=a@b -c user.name=a commit -qm x && git log --oneline | wc -l",
    ]);
    expect(git).toEqual({ code: 0, output: "1\n" });
  });

  it("allows setarch's harmless personalities and refuses those that weaken memory protection", async () => {
    const ok = await run(["bash", "-c", 'setarch "$(uname -m)" -R true && echo no-randomize']);
    expect(ok).toEqual({ code: 0, output: "no-randomize\n" });
    for (const flag of ["-X", "-Z"]) {
      const refused = await run(["bash", "-c", `setarch "$(uname -m)" ${flag} true`]);
      expect(refused.code, flag).not.toBe(0);
      expect(refused.output, flag).toMatch(/Operation not permitted/);
    }
  });
});
