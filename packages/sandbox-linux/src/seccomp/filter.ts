import { assemble, type Instruction } from "./bpf.js";
import { ARCH_SYSCALLS, SECCOMP_ARCHES, type SeccompArch } from "./syscalls.js";

export const SECCOMP_RET_KILL_PROCESS = 0x80000000;
export const SECCOMP_RET_ERRNO = 0x00050000;
export const SECCOMP_RET_ALLOW = 0x7fff0000;
const EPERM = 1;

// struct seccomp_data: int nr; u32 arch; u64 instruction_pointer; u64 args[6]. On little-endian the
// low 32 bits of args[i] sit at 16 + 8 * i.
const DATA_NR = 0;
const DATA_ARCH = 4;
const argLow = (index: number): number => 16 + 8 * index;

const TIOCSTI = 0x5412;
const TIOCLINUX = 0x541c;
const AF_INET = 2;
const AF_INET6 = 10;
const AF_NETLINK = 16;
const NETLINK_ROUTE = 0;
const SOCK_TYPE_MASK = 0xf;
const SOCK_DGRAM = 2;

export interface SeccompFilterOptions {
  readonly arch: SeccompArch;
  /** Whether the sandbox may use the network; false also cuts every way to host unix sockets. */
  readonly network: boolean;
}

/**
 * The seccomp program handed to `bwrap --seccomp FD`: raw `struct sock_filter` entries.
 *
 * Always EPERM: ptrace, process_vm_readv/writev, io_uring_setup/enter/register, and
 * ioctl(TIOCSTI | TIOCLINUX). The ioctl rule applies to every session, not only PTY ones: a
 * sandboxed process can reach a terminal through an inherited fd or /dev/tty either way, and no build
 * tool needs to fake keyboard input. Only the low 32 bits of the request are compared because the
 * kernel truncates it to `unsigned int` (comparing 64 bits let high bits slip past, CVE-2019-10063).
 *
 * Network off (bwrap's --unshare-net already leaves only a private loopback, and hides the host's
 * abstract unix sockets): socket() is allowed only for AF_INET, AF_INET6 (reaching nothing but that
 * loopback, so in-sandbox test servers keep working) and AF_NETLINK with NETLINK_ROUTE (getifaddrs);
 * AF_UNIX and every other family (AF_VSOCK, AF_PACKET, ...) get EPERM. Without socket(AF_UNIX) no
 * pathname socket on the host can be connected to. socketpair() stays allowed except for SOCK_DGRAM,
 * because a datagram socket can still connect() or sendto() a host path after the fact; stream and
 * seqpacket pairs refuse both (EISCONN / name ignored). Codex's Linux sandbox makes the opposite
 * choice (only AF_UNIX, and connect/bind/sendto/... denied outright) because it has no network
 * namespace; here the namespace stops IP, and AF_UNIX is the one family that reaches past it.
 *
 * Other architectures and x32 on x86_64 kill the process: the numbers above belong to one ABI, and
 * a fail-closed kill is clearer than EPERM from every syscall including exit.
 */
export function buildSeccompFilter(options: SeccompFilterOptions): Uint8Array {
  const { arch, network } = normalizeOptions(options);
  const nr = ARCH_SYSCALLS[arch];

  const program: Instruction[] = [
    { op: "load", offset: DATA_ARCH },
    { op: "jeq", k: nr.auditArch, jt: "next", jf: "kill" },
    { op: "load", offset: DATA_NR },
  ];
  if (nr.foreignAbiBit !== undefined) {
    program.push({ op: "jset", k: nr.foreignAbiBit, jt: "kill", jf: "next" });
  }
  for (const denied of [
    nr.ptrace,
    nr.processVmReadv,
    nr.processVmWritev,
    nr.ioUringSetup,
    nr.ioUringEnter,
    nr.ioUringRegister,
  ]) {
    program.push({ op: "jeq", k: denied, jt: "eperm", jf: "next" });
  }
  program.push({ op: "jeq", k: nr.ioctl, jt: "ioctl", jf: "next" });
  if (!network) {
    program.push(
      { op: "jeq", k: nr.socket, jt: "socket", jf: "next" },
      { op: "jeq", k: nr.socketpair, jt: "socketpair", jf: "next" },
    );
  }
  program.push(
    { op: "ret", value: SECCOMP_RET_ALLOW },
    { op: "label", name: "ioctl" },
    { op: "load", offset: argLow(1) },
    { op: "jeq", k: TIOCSTI, jt: "eperm", jf: "next" },
    { op: "jeq", k: TIOCLINUX, jt: "eperm", jf: "allow" },
  );
  if (!network) {
    program.push(
      { op: "label", name: "socket" },
      { op: "load", offset: argLow(0) },
      { op: "jeq", k: AF_INET, jt: "allow", jf: "next" },
      { op: "jeq", k: AF_INET6, jt: "allow", jf: "next" },
      { op: "jeq", k: AF_NETLINK, jt: "next", jf: "eperm" },
      { op: "load", offset: argLow(2) },
      { op: "jeq", k: NETLINK_ROUTE, jt: "allow", jf: "eperm" },
      { op: "label", name: "socketpair" },
      { op: "load", offset: argLow(1) },
      { op: "and", mask: SOCK_TYPE_MASK },
      { op: "jeq", k: SOCK_DGRAM, jt: "eperm", jf: "allow" },
    );
  }
  program.push(
    { op: "label", name: "allow" },
    { op: "ret", value: SECCOMP_RET_ALLOW },
    { op: "label", name: "eperm" },
    { op: "ret", value: SECCOMP_RET_ERRNO | EPERM },
    { op: "label", name: "kill" },
    { op: "ret", value: SECCOMP_RET_KILL_PROCESS },
  );
  return assemble(program);
}

function normalizeOptions(options: SeccompFilterOptions): SeccompFilterOptions {
  const { arch, network } = Object.assign(Object.create(null) as object, options) as SeccompFilterOptions;
  if (!(SECCOMP_ARCHES as readonly unknown[]).includes(arch)) {
    throw new Error(
      `Unsupported seccomp architecture ${JSON.stringify(arch)}: supported are ${SECCOMP_ARCHES.join(", ")}`,
    );
  }
  if (typeof network !== "boolean") {
    throw new Error(`Option "network" must be a boolean, received ${JSON.stringify(network)}`);
  }
  return { arch, network };
}

/** The seccomp architecture for a Node `process.arch` value. */
export function seccompArchOf(nodeArch: string): SeccompArch {
  if (nodeArch === "x64") return "x86_64";
  if (nodeArch === "arm64") return "aarch64";
  throw new Error(
    `Unsupported seccomp architecture ${JSON.stringify(nodeArch)}: supported are ${SECCOMP_ARCHES.join(", ")}`,
  );
}
