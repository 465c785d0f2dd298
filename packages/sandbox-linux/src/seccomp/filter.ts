import { expectedReceived } from "@conch/protocol";
import { assemble, type Instruction } from "./bpf.js";
import {
  ARCH_SYSCALLS,
  CREATE_SYSCALLS,
  DENIED_SYSCALLS,
  HOST_SYSCALLS,
  OPENAT2,
  SECCOMP_ARCHES,
  type SeccompArch,
} from "./syscalls.js";

export const SECCOMP_RET_KILL_PROCESS = 0x80000000;
export const SECCOMP_RET_ERRNO = 0x00050000;
export const SECCOMP_RET_ALLOW = 0x7fff0000;
const EPERM = 1;
const ENOSYS = 38;
const EOPNOTSUPP = 95;
const FALLOC_FL_KEEP_SIZE = 0x01;
const FALLOC_FL_PUNCH_HOLE = 0x02;

// struct seccomp_data: int nr; u32 arch; u64 instruction_pointer; u64 args[6]. On little-endian the
// low 32 bits of args[i] sit at 16 + 8 * i.
const DATA_NR = 0;
const DATA_ARCH = 4;
const argLow = (index: number): number => 16 + 8 * index;

const TIOCSTI = 0x5412;
const TIOCLINUX = 0x541c;
const AF_UNIX = 1;
const AF_INET = 2;
const AF_INET6 = 10;
const AF_NETLINK = 16;
const NETLINK_ROUTE = 0;
const SOCK_STREAM = 1;
const SOCK_SEQPACKET = 5;
/** SOCK_NONBLOCK | SOCK_CLOEXEC: the only flags the kernel accepts beside the type. */
const SOCK_FLAGS = 0x800 | 0x80000;
/** CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET. */
const CLONE_NEW_NAMESPACES =
  0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000;
/** CLONE_NEWTIME shares its bit with clone()'s exit signal, so only unshare() is checked for it. */
const CLONE_NEWTIME = 0x00000080;
const PERSONALITY_QUERY = 0xffffffff;
/** S_ISUID | S_ISGID. */
const SETUID_SETGID = 0o6000;
/** O_CREAT | __O_TMPFILE (the same bits on x86_64 and aarch64): open flags under which the mode is read. */
const CREATE_FLAGS = 0o100 | 0o20000000;
/** PER_LINUX32 | UNAME26 | ADDR_NO_RANDOMIZE: what `setarch`/`linux32`, old builds and rr ask for. */
const HARMLESS_PERSONALITY = 0x0008 | 0x0020000 | 0x0040000;

export interface SeccompFilterOptions {
  readonly arch: SeccompArch;
  /** Whether the sandbox may use the network; false also cuts every way to host unix sockets. */
  readonly network: boolean;
  /**
   * Without the network: whether IP sockets may still be made (default true), because a network
   * namespace of the command's own (bwrap's) leaves them nothing but a private loopback. False where no
   * such namespace exists (the Landlock backend): AF_INET and AF_INET6 get EPERM too.
   */
  readonly ipSockets?: boolean;
  /**
   * The command shares the host's pid namespace and its files' owners (the Landlock backend): it may not
   * act on another process (prlimit, setpriority, sched_set*, ioprio_set with a pid other than 0), change
   * an owner or an extended attribute, or set a setuid or setgid bit; `root`: no chmod at all (uid 0
   * owns the host's files, and Landlock does not cover a file's mode).
   */
  readonly hostProcesses?: { readonly root: boolean };
  /**
   * The command's files belong to a host user others may run programs of (bwrap maps the caller's uid,
   * root's too): no setuid or setgid bit, by chmod or at creation (open, openat, creat, mknod with such
   * a mode; openat2 ENOSYS), which would hand whoever runs the file the owner's uid. (A file capability
   * needs CAP_SETFCAP, which bwrap drops.) Implied by `hostProcesses`, which also refuses owner and
   * extended attribute changes.
   */
  readonly hostFiles?: boolean;
  /**
   * A file size limit holds (RLIMIT_FSIZE): fallocate with FALLOC_FL_KEEP_SIZE, which reserves blocks
   * past a file's end without growing it (and so past the limit), is refused with EOPNOTSUPP (callers
   * fall back to writing). Punching holes stays allowed.
   */
  readonly fileLimit?: boolean;
}

/**
 * The seccomp program handed to `bwrap --seccomp FD`: raw `struct sock_filter` entries.
 *
 * Always EPERM: the syscalls of `DENIED_SYSCALLS` (ptrace and its kin, io_uring, keyrings, mounts,
 * kernel modules, bpf, perf events, userfaultfd, ...); `unshare` and `clone` asking for any new
 * namespace (bwrap's --disable-userns already refuses user namespaces; this also covers the others and
 * a kernel without that knob); `personality` with anything but PER_LINUX32, UNAME26 and
 * ADDR_NO_RANDOMIZE (READ_IMPLIES_EXEC and MMAP_PAGE_ZERO weaken memory protections exploits rely on);
 * and ioctl(TIOCSTI | TIOCLINUX), which push keystrokes into a terminal. The ioctl rule applies to
 * every session, not only PTY ones: a sandboxed process can reach a terminal through /dev/tty either
 * way. Only the low 32 bits of an argument are compared because the kernel truncates these to `int`
 * (comparing 64 bits let high bits slip past, CVE-2019-10063).
 *
 * `clone3` fails with ENOSYS: its flags sit in a struct seccomp cannot read, and on ENOSYS glibc falls
 * back to `clone`, whose flags are checked (as Docker and Flatpak do).
 *
 * Network off (bwrap's --unshare-net already leaves only a private loopback, and hides the host's
 * abstract unix sockets): socket() is allowed only for AF_INET, AF_INET6 (reaching nothing but that
 * loopback, so in-sandbox test servers keep working) and AF_NETLINK with NETLINK_ROUTE (getifaddrs);
 * AF_UNIX and every other family (AF_VSOCK, AF_PACKET, ...) get EPERM. Without socket(AF_UNIX) no
 * pathname socket on the host can be connected to. socketpair() is allowed only for AF_UNIX
 * SOCK_STREAM and SOCK_SEQPACKET: a datagram socket (SOCK_DGRAM, and SOCK_RAW, which the kernel turns
 * into one) can still sendto() a host path, while a connected stream pair refuses connect (EISCONN) and
 * a seqpacket one ignores a destination address. Codex's Linux sandbox makes the opposite choice (only
 * AF_UNIX, and connect/bind/sendto/... denied outright) because it has no network namespace; here the
 * namespace stops IP, and AF_UNIX is the one family that reaches past it.
 *
 * Other architectures and x32 on x86_64 kill the process: the numbers above belong to one ABI, and
 * a fail-closed kill is clearer than EPERM from every syscall including exit.
 *
 * Every jump stays short whatever the length of the deny list (classic BPF jumps at most 255
 * instructions): the deny list jumps to the return right after it, and each argument check has its
 * own returns.
 */
export function buildSeccompFilter(options: SeccompFilterOptions): Uint8Array {
  const {
    arch,
    network,
    ipSockets = true,
    hostProcesses,
    hostFiles: files,
    fileLimit = false,
  } = normalizeOptions(options);
  const hostFiles = hostProcesses !== undefined || files === true;
  // chmod at all (a root caller under Landlock), or only its setuid and setgid bits.
  const modeTarget = (arg: number): string => (hostProcesses?.root === true ? "listed" : `mode${arg}`);
  const nr = ARCH_SYSCALLS[arch];

  const program: Instruction[] = [
    { op: "load", offset: DATA_ARCH },
    { op: "jeq", k: nr.auditArch, jt: "arch", jf: "next" },
    { op: "ret", value: SECCOMP_RET_KILL_PROCESS },
    { op: "label", name: "arch" },
    { op: "load", offset: DATA_NR },
  ];
  if (nr.foreignAbiBit !== undefined) {
    program.push(
      { op: "jset", k: nr.foreignAbiBit, jt: "next", jf: "native" },
      { op: "ret", value: SECCOMP_RET_KILL_PROCESS },
      { op: "label", name: "native" },
    );
  }
  for (const denied of DENIED_SYSCALLS) {
    const number = denied[arch];
    if (number !== null) program.push({ op: "jeq", k: number, jt: "listed", jf: "next" });
  }
  program.push(
    { op: "jeq", k: nr.clone3, jt: "enosys", jf: "next" },
    { op: "jeq", k: nr.ioctl, jt: "ioctl", jf: "next" },
    { op: "jeq", k: nr.clone, jt: "clone", jf: "next" },
    { op: "jeq", k: nr.unshare, jt: "unshare", jf: "next" },
    { op: "jeq", k: nr.personality, jt: "personality", jf: "next" },
  );
  if (!network) {
    program.push(
      { op: "jeq", k: nr.socket, jt: "socket", jf: "next" },
      { op: "jeq", k: nr.socketpair, jt: "socketpair", jf: "next" },
    );
  }
  if (fileLimit) program.push({ op: "jeq", k: nr.fallocate, jt: "fallocate", jf: "next" });
  if (hostProcesses !== undefined) {
    for (const call of HOST_SYSCALLS.pidArg) {
      const number = call[arch];
      if (number !== null) program.push({ op: "jeq", k: number, jt: `pid${call.arg}`, jf: "next" });
    }
  }
  if (hostFiles) {
    // Owners and extended attributes too where the host's users and files are the command's (Landlock):
    // bwrap maps one uid and drops every capability, and `sed -i` copies a file's ACL (an attribute).
    for (const call of HOST_SYSCALLS.denied) {
      const number = call[arch];
      if (number !== null && hostProcesses !== undefined) {
        program.push({ op: "jeq", k: number, jt: "listed", jf: "next" });
      }
    }
    for (const call of HOST_SYSCALLS.mode) {
      const number = call[arch];
      if (number !== null) program.push({ op: "jeq", k: number, jt: modeTarget(call.arg), jf: "next" });
    }
    for (const call of CREATE_SYSCALLS) {
      const number = call[arch];
      const target = call.flags === undefined ? `mode${call.arg}` : `create${call.flags}`;
      if (number !== null) program.push({ op: "jeq", k: number, jt: target, jf: "next" });
    }
    const openat2 = OPENAT2[arch];
    if (openat2 !== null) program.push({ op: "jeq", k: openat2, jt: "enosys", jf: "next" });
  }
  program.push(
    { op: "ret", value: SECCOMP_RET_ALLOW },
    // The deny list's own return, so its jumps stay short however long it grows.
    { op: "label", name: "listed" },
    { op: "ret", value: SECCOMP_RET_ERRNO | EPERM },
    { op: "label", name: "enosys" },
    { op: "ret", value: SECCOMP_RET_ERRNO | ENOSYS },

    { op: "label", name: "ioctl" },
    { op: "load", offset: argLow(1) },
    { op: "jeq", k: TIOCSTI, jt: "eperm", jf: "next" },
    { op: "jeq", k: TIOCLINUX, jt: "eperm", jf: "allow" },

    { op: "label", name: "clone" },
    { op: "load", offset: argLow(0) },
    { op: "jset", k: CLONE_NEW_NAMESPACES, jt: "eperm", jf: "allow" },

    { op: "label", name: "unshare" },
    { op: "load", offset: argLow(0) },
    { op: "jset", k: CLONE_NEW_NAMESPACES | CLONE_NEWTIME, jt: "eperm", jf: "allow" },

    { op: "label", name: "personality" },
    { op: "load", offset: argLow(0) },
    { op: "jeq", k: PERSONALITY_QUERY, jt: "allow", jf: "next" },
    { op: "jset", k: ~HARMLESS_PERSONALITY, jt: "eperm", jf: "allow" },
  );
  if (!network) {
    program.push(
      { op: "label", name: "socket" },
      { op: "load", offset: argLow(0) },
      ...(ipSockets
        ? ([
            { op: "jeq", k: AF_INET, jt: "allow", jf: "next" },
            { op: "jeq", k: AF_INET6, jt: "allow", jf: "next" },
          ] as const)
        : []),
      { op: "jeq", k: AF_NETLINK, jt: "next", jf: "eperm" },
      { op: "load", offset: argLow(2) },
      { op: "jeq", k: NETLINK_ROUTE, jt: "allow", jf: "eperm" },

      { op: "label", name: "socketpair" },
      { op: "load", offset: argLow(0) },
      { op: "jeq", k: AF_UNIX, jt: "next", jf: "eperm" },
      { op: "load", offset: argLow(1) },
      { op: "and", mask: ~SOCK_FLAGS },
      { op: "jeq", k: SOCK_STREAM, jt: "allow", jf: "next" },
      { op: "jeq", k: SOCK_SEQPACKET, jt: "allow", jf: "eperm" },
    );
  }
  if (fileLimit) {
    program.push(
      { op: "label", name: "fallocate" },
      { op: "load", offset: argLow(1) },
      { op: "and", mask: FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE },
      { op: "jeq", k: FALLOC_FL_KEEP_SIZE, jt: "eopnotsupp", jf: "allow" },
      { op: "label", name: "eopnotsupp" },
      { op: "ret", value: SECCOMP_RET_ERRNO | EOPNOTSUPP },
    );
  }
  if (hostProcesses !== undefined) {
    program.push(
      // Another process's: any pid but 0 (this process), in the low 32 bits the kernel reads.
      { op: "label", name: "pid0" },
      { op: "load", offset: argLow(0) },
      { op: "jeq", k: 0, jt: "allow", jf: "eperm" },
      { op: "label", name: "pid1" },
      { op: "load", offset: argLow(1) },
      { op: "jeq", k: 0, jt: "allow", jf: "eperm" },
    );
  }
  if (hostFiles) {
    program.push(
      { op: "label", name: "mode1" },
      { op: "load", offset: argLow(1) },
      { op: "jset", k: SETUID_SETGID, jt: "eperm", jf: "allow" },
      { op: "label", name: "mode2" },
      { op: "load", offset: argLow(2) },
      { op: "jset", k: SETUID_SETGID, jt: "eperm", jf: "allow" },
      // open(path, flags, mode) and openat(dir, path, flags, mode): the mode counts only when creating.
      { op: "label", name: "create1" },
      { op: "load", offset: argLow(1) },
      { op: "jset", k: CREATE_FLAGS, jt: "next", jf: "allow" },
      { op: "load", offset: argLow(2) },
      { op: "jset", k: SETUID_SETGID, jt: "eperm", jf: "allow" },
      { op: "label", name: "create2" },
      { op: "load", offset: argLow(2) },
      { op: "jset", k: CREATE_FLAGS, jt: "next", jf: "allow" },
      { op: "load", offset: argLow(3) },
      { op: "jset", k: SETUID_SETGID, jt: "eperm", jf: "allow" },
    );
  }
  program.push(
    { op: "label", name: "allow" },
    { op: "ret", value: SECCOMP_RET_ALLOW },
    { op: "label", name: "eperm" },
    { op: "ret", value: SECCOMP_RET_ERRNO | EPERM },
  );
  return assemble(program);
}

function normalizeOptions(options: SeccompFilterOptions): SeccompFilterOptions {
  const { arch, network, ipSockets, hostProcesses, hostFiles, fileLimit } = Object.assign(
    Object.create(null) as object,
    options,
  ) as SeccompFilterOptions;
  if (!(SECCOMP_ARCHES as readonly unknown[]).includes(arch)) {
    throw new Error(
      `Unsupported seccomp architecture ${JSON.stringify(arch)}: supported are ${SECCOMP_ARCHES.join(", ")}`,
    );
  }
  if (typeof network !== "boolean") {
    throw new Error(`invalid options: ${expectedReceived("network", "a boolean", network)}`);
  }
  if (ipSockets !== undefined && typeof ipSockets !== "boolean") {
    throw new Error(`invalid options: ${expectedReceived("ipSockets", "a boolean", ipSockets)}`);
  }
  if (
    hostProcesses !== undefined &&
    (typeof hostProcesses !== "object" || hostProcesses === null || typeof hostProcesses.root !== "boolean")
  ) {
    throw new Error(
      `invalid options: ${expectedReceived("hostProcesses", "{ root: boolean }", hostProcesses)}`,
    );
  }
  if (hostFiles !== undefined && typeof hostFiles !== "boolean") {
    throw new Error(`invalid options: ${expectedReceived("hostFiles", "a boolean", hostFiles)}`);
  }
  return {
    arch,
    network,
    ...(ipSockets === undefined ? {} : { ipSockets }),
    ...(hostProcesses === undefined ? {} : { hostProcesses }),
    ...(hostFiles === undefined ? {} : { hostFiles }),
    ...(fileLimit === undefined ? {} : { fileLimit: fileLimit === true }),
  };
}

/** The seccomp architecture for a Node `process.arch` value. */
export function seccompArchOf(nodeArch: string): SeccompArch {
  if (nodeArch === "x64") return "x86_64";
  if (nodeArch === "arm64") return "aarch64";
  throw new Error(
    `Unsupported seccomp architecture ${JSON.stringify(nodeArch)}: supported are ${SECCOMP_ARCHES.join(", ")}`,
  );
}
