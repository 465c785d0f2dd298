import { describe, expect, it } from "vitest";
import { assemble, type Instruction, MAX_INSTRUCTIONS } from "../src/seccomp/bpf.js";
import {
  buildSeccompFilter,
  SECCOMP_RET_ALLOW,
  SECCOMP_RET_ERRNO,
  SECCOMP_RET_KILL_PROCESS,
  type SeccompFilterOptions,
  seccompArchOf,
} from "../src/seccomp/filter.js";
import { ARCH_SYSCALLS, DENIED_SYSCALLS, SECCOMP_ARCHES, type SeccompArch } from "../src/seccomp/syscalls.js";

type Insn = readonly [code: number, jt: number, jf: number, k: number];

const LD = 0x20;
const AND = 0x54;
const JEQ = 0x15;
const JSET = 0x45;
const RET = 0x06;
const EPERM_RET = 0x00050001;

function decode(bytes: Uint8Array): Insn[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: Insn[] = [];
  for (let at = 0; at < bytes.length; at += 8) {
    out.push([
      view.getUint16(at, true),
      view.getUint8(at + 2),
      view.getUint8(at + 3),
      view.getUint32(at + 4, true),
    ]);
  }
  return out;
}

/** Runs the program the way the kernel does, on a seccomp_data built from the arguments. */
function evaluate(bytes: Uint8Array, arch: number, nr: number, args: readonly number[] = []): number {
  const data = new DataView(new ArrayBuffer(64));
  data.setInt32(0, nr, true);
  data.setUint32(4, arch, true);
  args.forEach((arg, i) => {
    data.setBigUint64(16 + 8 * i, BigInt(arg), true);
  });
  const program = decode(bytes);
  let acc = 0;
  for (let pc = 0; pc < program.length; pc++) {
    const [code, jt, jf, k] = program[pc] as Insn;
    if (code === LD) acc = data.getUint32(k, true);
    else if (code === AND) acc = (acc & k) >>> 0;
    else if (code === JEQ) pc += acc === k ? jt : jf;
    else if (code === JSET) pc += (acc & k) !== 0 ? jt : jf;
    else if (code === RET) return k;
    else throw new Error(`unexpected opcode ${code}`);
  }
  throw new Error("fell off the end of the program");
}

const ALL_CONFIGS: SeccompFilterOptions[] = SECCOMP_ARCHES.flatMap((arch) => [
  { arch, network: true },
  { arch, network: false },
]);

const X86 = 0xc000003e;
const ARM = 0xc00000b7;
const ALLOW: Insn = [RET, 0, 0, 0x7fff0000];
const DENY: Insn = [RET, 0, 0, EPERM_RET];

describe("buildSeccompFilter", () => {
  const denied = (arch: SeccompArch): number[] =>
    DENIED_SYSCALLS.flatMap((entry) => (entry[arch] === null ? [] : [entry[arch] as number]));

  it("encodes the x86_64 network-off program exactly", () => {
    const list = denied("x86_64");
    const program = decode(buildSeccompFilter({ arch: "x86_64", network: false }));
    expect(program.slice(0, 6)).toEqual([
      [LD, 0, 0, 4], // seccomp_data.arch
      [JEQ, 1, 0, X86], // AUDIT_ARCH_X86_64, else kill
      [RET, 0, 0, SECCOMP_RET_KILL_PROCESS],
      [LD, 0, 0, 0], // seccomp_data.nr
      [JSET, 0, 1, 0x40000000], // x32 ABI: kill
      [RET, 0, 0, SECCOMP_RET_KILL_PROCESS],
    ]);
    // Each listed syscall jumps to the EPERM right after the dispatch below (7 jumps and an allow).
    expect(program.slice(6, 6 + list.length)).toEqual(
      list.map((nr, i): Insn => [JEQ, list.length - i + 7, 0, nr]),
    );
    expect(program.slice(6 + list.length)).toEqual([
      [JEQ, 8, 0, 435], // clone3: ENOSYS
      [JEQ, 8, 0, 16], // ioctl
      [JEQ, 10, 0, 56], // clone
      [JEQ, 11, 0, 272], // unshare
      [JEQ, 12, 0, 135], // personality
      [JEQ, 14, 0, 41], // socket
      [JEQ, 19, 0, 53], // socketpair
      ALLOW,
      DENY, // the deny list's return
      [RET, 0, 0, 0x00050026], // errno ENOSYS
      [LD, 0, 0, 24], // ioctl request, low 32 bits
      [JEQ, 21, 0, 0x5412], // TIOCSTI
      [JEQ, 20, 19, 0x541c], // TIOCLINUX, else allow
      [LD, 0, 0, 16], // clone flags
      [JSET, 18, 17, 0x7e020000], // CLONE_NEW* but CLONE_NEWTIME (the exit signal's bits)
      [LD, 0, 0, 16], // unshare flags
      [JSET, 16, 15, 0x7e020080], // CLONE_NEW*
      [LD, 0, 0, 16], // personality
      [JEQ, 13, 0, 0xffffffff], // query
      [JSET, 13, 12, 0xfff9fff7], // anything but PER_LINUX32 | UNAME26 | ADDR_NO_RANDOMIZE
      [LD, 0, 0, 16], // socket domain
      [JEQ, 10, 0, 2], // AF_INET
      [JEQ, 9, 0, 10], // AF_INET6
      [JEQ, 0, 9, 16], // AF_NETLINK, else EPERM
      [LD, 0, 0, 32], // socket protocol
      [JEQ, 6, 7, 0], // NETLINK_ROUTE, else EPERM
      [LD, 0, 0, 16], // socketpair domain
      [JEQ, 0, 5, 1], // AF_UNIX, else EPERM
      [LD, 0, 0, 24], // socketpair type
      [AND, 0, 0, 0xfff7f7ff], // less SOCK_NONBLOCK | SOCK_CLOEXEC
      [JEQ, 1, 0, 1], // SOCK_STREAM
      [JEQ, 0, 1, 5], // SOCK_SEQPACKET, else EPERM
      ALLOW,
      DENY,
    ]);
  });

  it("encodes the aarch64 network-on program exactly", () => {
    const list = denied("aarch64");
    const program = decode(buildSeccompFilter({ arch: "aarch64", network: true }));
    expect(program.slice(0, 4)).toEqual([
      [LD, 0, 0, 4],
      [JEQ, 1, 0, ARM], // AUDIT_ARCH_AARCH64, else kill
      [RET, 0, 0, SECCOMP_RET_KILL_PROCESS],
      [LD, 0, 0, 0],
    ]);
    expect(program.slice(4, 4 + list.length)).toEqual(
      list.map((nr, i): Insn => [JEQ, list.length - i + 5, 0, nr]),
    );
    expect(program.slice(4 + list.length)).toEqual([
      [JEQ, 6, 0, 435], // clone3
      [JEQ, 6, 0, 29], // ioctl
      [JEQ, 8, 0, 220], // clone
      [JEQ, 9, 0, 97], // unshare
      [JEQ, 10, 0, 92], // personality
      ALLOW,
      DENY,
      [RET, 0, 0, 0x00050026],
      [LD, 0, 0, 24],
      [JEQ, 9, 0, 0x5412],
      [JEQ, 8, 7, 0x541c],
      [LD, 0, 0, 16],
      [JSET, 6, 5, 0x7e020000],
      [LD, 0, 0, 16],
      [JSET, 4, 3, 0x7e020080],
      [LD, 0, 0, 16],
      [JEQ, 1, 0, 0xffffffff],
      [JSET, 1, 0, 0xfff9fff7],
      ALLOW,
      DENY,
    ]);
  });

  it("lists each denied syscall once per architecture, x86-only ones as absent on aarch64", () => {
    for (const arch of SECCOMP_ARCHES) {
      const list = denied(arch);
      expect(new Set(list).size, arch).toBe(list.length);
    }
    expect(DENIED_SYSCALLS.filter((entry) => entry.aarch64 === null).map((entry) => entry.name)).toEqual([
      "iopl",
      "ioperm",
      "uselib",
      "modify_ldt",
    ]);
  });

  it.each(ALL_CONFIGS)(
    "checks the arch first, stays in range and ends in a return ($arch, network $network)",
    (options) => {
      const program = decode(buildSeccompFilter(options));
      expect(program.length).toBeLessThanOrEqual(MAX_INSTRUCTIONS);
      expect(program.slice(0, 2).map(([code, , , k]) => [code, k])).toEqual([
        [LD, 4],
        [JEQ, options.arch === "x86_64" ? X86 : ARM],
      ]);
      program.forEach(([code, jt, jf], pc) => {
        if (code === JEQ || code === JSET) {
          expect(pc + 1 + Math.max(jt, jf)).toBeLessThan(program.length);
        }
      });
      expect(program.at(-1)?.[0]).toBe(RET);
    },
  );

  describe("decisions, evaluated like the kernel does", () => {
    const filter = (network: boolean, arch: SeccompArch = "x86_64"): Uint8Array =>
      buildSeccompFilter({ arch, network });
    const AUDIT = { x86_64: X86, aarch64: ARM } as const;
    const ENOSYS_RET = SECCOMP_RET_ERRNO | 38;

    it("kills other architectures and the x32 ABI", () => {
      expect(evaluate(filter(true), 0x40000003, 0)).toBe(SECCOMP_RET_KILL_PROCESS); // AUDIT_ARCH_I386
      expect(evaluate(filter(true), X86, 0x40000000 | 41)).toBe(SECCOMP_RET_KILL_PROCESS);
      expect(evaluate(filter(true, "aarch64"), X86, 0)).toBe(SECCOMP_RET_KILL_PROCESS);
    });

    it.each(ALL_CONFIGS)("denies every listed syscall with EPERM ($arch, network $network)", (options) => {
      const bytes = buildSeccompFilter(options);
      for (const entry of DENIED_SYSCALLS) {
        const nr = entry[options.arch];
        if (nr !== null) expect(evaluate(bytes, AUDIT[options.arch], nr), entry.name).toBe(EPERM_RET);
      }
    });

    it("leaves the numbers x86-only denials have on x86_64 alone on aarch64", () => {
      // iopl, ioperm, uselib and modify_ldt's x86_64 numbers are getpid, getppid, rt_sigaction and
      // setpgid on aarch64.
      for (const nr of [172, 173, 134, 154])
        expect(evaluate(filter(false, "aarch64"), ARM, nr)).toBe(SECCOMP_RET_ALLOW);
    });

    it.each(SECCOMP_ARCHES)("fails clone3 with ENOSYS, so glibc falls back to clone (%s)", (arch) => {
      expect(evaluate(filter(false, arch), AUDIT[arch], 435, [0, 88])).toBe(ENOSYS_RET);
    });

    it.each(SECCOMP_ARCHES)("denies clone and unshare of any new namespace, nothing else (%s)", (arch) => {
      const { clone, unshare } = ARCH_SYSCALLS[arch];
      const bytes = filter(true, arch);
      const SIGCHLD = 17;
      // fork, vfork, and glibc's pthread_create flags.
      for (const flags of [SIGCHLD, 0x4000 | 0x100 | SIGCHLD, 0x3d0f00, 0x1_0000_0000 | SIGCHLD]) {
        expect(evaluate(bytes, AUDIT[arch], clone, [flags]), flags.toString(16)).toBe(SECCOMP_RET_ALLOW);
      }
      const namespaces = [0x20000, 0x2000000, 0x4000000, 0x8000000, 0x10000000, 0x20000000, 0x40000000];
      for (const flag of namespaces) {
        expect(evaluate(bytes, AUDIT[arch], clone, [flag | SIGCHLD]), flag.toString(16)).toBe(EPERM_RET);
        expect(evaluate(bytes, AUDIT[arch], unshare, [flag]), flag.toString(16)).toBe(EPERM_RET);
      }
      expect(evaluate(bytes, AUDIT[arch], unshare, [0x80])).toBe(EPERM_RET); // CLONE_NEWTIME
      // CLONE_FS, CLONE_FILES, CLONE_SYSVSEM: private copies, no namespace.
      for (const flags of [0x200, 0x400, 0x40000, 0x600]) {
        expect(evaluate(bytes, AUDIT[arch], unshare, [flags]), flags.toString(16)).toBe(SECCOMP_RET_ALLOW);
      }
    });

    it.each(SECCOMP_ARCHES)(
      "allows personality queries and PER_LINUX32, UNAME26, ADDR_NO_RANDOMIZE only (%s)",
      (arch) => {
        const { personality } = ARCH_SYSCALLS[arch];
        const bytes = filter(false, arch);
        for (const persona of [0, 0xffffffff, 0x8, 0x20000, 0x40000, 0x40008, 0x60008]) {
          expect(evaluate(bytes, AUDIT[arch], personality, [persona]), persona.toString(16)).toBe(
            SECCOMP_RET_ALLOW,
          );
        }
        // READ_IMPLIES_EXEC, MMAP_PAGE_ZERO, ADDR_COMPAT_LAYOUT, ADDR_LIMIT_3GB, PER_SVR4, ...|READ_IMPLIES_EXEC
        for (const persona of [0x400000, 0x100000, 0x200000, 0x8000000, 0x4100001, 0x440008, 0xfffffffe]) {
          expect(evaluate(bytes, AUDIT[arch], personality, [persona]), persona.toString(16)).toBe(EPERM_RET);
        }
      },
    );

    it("denies TIOCSTI and TIOCLINUX even with high bits set in the request, and allows other ioctls", () => {
      expect(evaluate(filter(true), X86, 16, [0, 0x5412])).toBe(EPERM_RET);
      expect(evaluate(filter(true), X86, 16, [0, 0x541c])).toBe(EPERM_RET);
      expect(evaluate(filter(true), X86, 16, [0, 0x1_0000_5412])).toBe(EPERM_RET);
      expect(evaluate(filter(true), X86, 16, [0, 0x5413])).toBe(SECCOMP_RET_ALLOW); // TIOCGWINSZ
    });

    it("with network off, allows only AF_INET, AF_INET6 and NETLINK_ROUTE sockets", () => {
      expect(evaluate(filter(false), X86, 41, [1])).toBe(EPERM_RET); // AF_UNIX
      expect(evaluate(filter(false), X86, 41, [0x1_0000_0001])).toBe(EPERM_RET); // high bits ignored
      expect(evaluate(filter(false), X86, 41, [40])).toBe(EPERM_RET); // AF_VSOCK
      expect(evaluate(filter(false), X86, 41, [17])).toBe(EPERM_RET); // AF_PACKET
      expect(evaluate(filter(false), X86, 41, [16, 3, 12])).toBe(EPERM_RET); // NETLINK_NETFILTER
      expect(evaluate(filter(false), X86, 41, [16, 3, 0])).toBe(SECCOMP_RET_ALLOW);
      expect(evaluate(filter(false), X86, 41, [2, 1, 0])).toBe(SECCOMP_RET_ALLOW);
      expect(evaluate(filter(false), X86, 41, [10, 2, 0])).toBe(SECCOMP_RET_ALLOW);
    });

    it.each(SECCOMP_ARCHES)(
      "with network off, allows only AF_UNIX stream and seqpacket socketpairs (%s)",
      (arch) => {
        const { socketpair } = ARCH_SYSCALLS[arch];
        const bytes = filter(false, arch);
        const NONBLOCK = 0x800;
        const CLOEXEC = 0x80000;
        for (let type = 0; type < 16; type++) {
          for (const flags of [0, NONBLOCK, CLOEXEC, NONBLOCK | CLOEXEC, 0x100, 0x10]) {
            const allowed = (type === 1 || type === 5) && (flags & ~(NONBLOCK | CLOEXEC)) === 0;
            const decision = evaluate(bytes, AUDIT[arch], socketpair, [1, type | flags]);
            expect(decision, `type ${type} flags ${flags.toString(16)}`).toBe(
              allowed ? SECCOMP_RET_ALLOW : EPERM_RET,
            );
          }
        }
        expect(evaluate(bytes, AUDIT[arch], socketpair, [0x1_0000_0001, 1])).toBe(SECCOMP_RET_ALLOW);
        for (const domain of [0, 2, 10, 16, 30, 40]) {
          expect(evaluate(bytes, AUDIT[arch], socketpair, [domain, 1]), `domain ${domain}`).toBe(EPERM_RET);
        }
      },
    );

    it("with network on, leaves socket and socketpair alone", () => {
      expect(evaluate(filter(true), X86, 41, [1])).toBe(SECCOMP_RET_ALLOW);
      expect(evaluate(filter(true), X86, 53, [1, 2])).toBe(SECCOMP_RET_ALLOW);
    });

    it("allows everything else", () => {
      // read, write, open, close, stat, mmap, execve, exit_group, wait4, futex, openat, statx.
      for (const nr of [0, 1, 2, 3, 4, 9, 42, 44, 46, 59, 61, 202, 231, 257, 332, 435 - 1]) {
        expect(evaluate(filter(false), X86, nr), String(nr)).toBe(SECCOMP_RET_ALLOW);
      }
      // aarch64: openat, close, read, write, execve, exit_group, wait4, futex, mmap, getpid.
      for (const nr of [56, 57, 63, 64, 221, 94, 260, 98, 222, 172]) {
        expect(evaluate(filter(false, "aarch64"), ARM, nr), String(nr)).toBe(SECCOMP_RET_ALLOW);
      }
    });
  });

  it("rejects an unknown arch, naming it and the supported ones", () => {
    expect(() => buildSeccompFilter({ arch: "riscv64" as "x86_64", network: false })).toThrow(
      new Error('Unsupported seccomp architecture "riscv64": supported are x86_64, aarch64'),
    );
    expect(() => seccompArchOf("ia32")).toThrow(
      new Error('Unsupported seccomp architecture "ia32": supported are x86_64, aarch64'),
    );
  });

  it("rejects a non-boolean network option", () => {
    expect(() => buildSeccompFilter({ arch: "x86_64", network: "no" as unknown as boolean })).toThrow(
      new Error('invalid options: network: expected a boolean, received "no"'),
    );
  });

  it("maps Node arch names", () => {
    expect(seccompArchOf("x64")).toBe("x86_64");
    expect(seccompArchOf("arm64")).toBe("aarch64");
  });
});

describe("assemble", () => {
  it("refuses undefined and duplicate labels, jumps past 255 and programs over BPF_MAXINSNS", () => {
    const ret: Instruction = { op: "ret", value: 0 };
    expect(() => assemble([{ op: "jeq", k: 1, jt: "nowhere", jf: "next" }, ret])).toThrow(
      new Error('BPF label "nowhere" is not defined'),
    );
    expect(() => assemble([{ op: "label", name: "a" }, { op: "label", name: "a" }, ret])).toThrow(
      new Error('BPF label "a" is defined twice'),
    );
    const far: Instruction[] = [
      { op: "jeq", k: 1, jt: "end", jf: "next" },
      ...Array<Instruction>(256).fill(ret),
      { op: "label", name: "end" },
      ret,
    ];
    expect(() => assemble(far)).toThrow(new Error('BPF jump to "end" at 0 needs offset 256, outside 0..255'));
    expect(() => assemble(Array<Instruction>(MAX_INSTRUCTIONS + 1).fill(ret))).toThrow(
      new Error("BPF program has 4097 instructions; the kernel accepts at most 4096"),
    );
  });
});
