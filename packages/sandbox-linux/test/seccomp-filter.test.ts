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
import { SECCOMP_ARCHES } from "../src/seccomp/syscalls.js";

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

function encode(program: readonly Insn[]): Uint8Array {
  const bytes = new Uint8Array(program.length * 8);
  const view = new DataView(bytes.buffer);
  program.forEach(([code, jt, jf, k], i) => {
    view.setUint16(i * 8, code, true);
    view.setUint8(i * 8 + 2, jt);
    view.setUint8(i * 8 + 3, jf);
    view.setUint32(i * 8 + 4, k, true);
  });
  return bytes;
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

describe("buildSeccompFilter", () => {
  it("encodes the x86_64 network-on program exactly", () => {
    const expected: Insn[] = [
      [LD, 0, 0, 4], // seccomp_data.arch
      [JEQ, 0, 15, 0xc000003e], // AUDIT_ARCH_X86_64, else kill
      [LD, 0, 0, 0], // seccomp_data.nr
      [JSET, 13, 0, 0x40000000], // x32 ABI: kill
      [JEQ, 11, 0, 101], // ptrace
      [JEQ, 10, 0, 310], // process_vm_readv
      [JEQ, 9, 0, 311], // process_vm_writev
      [JEQ, 8, 0, 425], // io_uring_setup
      [JEQ, 7, 0, 426], // io_uring_enter
      [JEQ, 6, 0, 427], // io_uring_register
      [JEQ, 1, 0, 16], // ioctl
      [RET, 0, 0, 0x7fff0000], // allow
      [LD, 0, 0, 24], // ioctl request, low 32 bits
      [JEQ, 2, 0, 0x5412], // TIOCSTI
      [JEQ, 1, 0, 0x541c], // TIOCLINUX
      [RET, 0, 0, 0x7fff0000], // allow
      [RET, 0, 0, 0x00050001], // errno EPERM
      [RET, 0, 0, 0x80000000], // kill process
    ];
    expect(buildSeccompFilter({ arch: "x86_64", network: true })).toEqual(encode(expected));
  });

  it("encodes the aarch64 network-off program exactly", () => {
    const expected: Insn[] = [
      [LD, 0, 0, 4], // seccomp_data.arch
      [JEQ, 0, 25, 0xc00000b7], // AUDIT_ARCH_AARCH64, else kill
      [LD, 0, 0, 0], // seccomp_data.nr
      [JEQ, 22, 0, 117], // ptrace
      [JEQ, 21, 0, 270], // process_vm_readv
      [JEQ, 20, 0, 271], // process_vm_writev
      [JEQ, 19, 0, 425], // io_uring_setup
      [JEQ, 18, 0, 426], // io_uring_enter
      [JEQ, 17, 0, 427], // io_uring_register
      [JEQ, 3, 0, 29], // ioctl
      [JEQ, 5, 0, 198], // socket
      [JEQ, 10, 0, 199], // socketpair
      [RET, 0, 0, 0x7fff0000], // allow
      [LD, 0, 0, 24], // ioctl request
      [JEQ, 11, 0, 0x5412], // TIOCSTI
      [JEQ, 10, 9, 0x541c], // TIOCLINUX, else allow
      [LD, 0, 0, 16], // socket domain
      [JEQ, 7, 0, 2], // AF_INET
      [JEQ, 6, 0, 10], // AF_INET6
      [JEQ, 0, 6, 16], // AF_NETLINK, else EPERM
      [LD, 0, 0, 32], // socket protocol
      [JEQ, 3, 4, 0], // NETLINK_ROUTE, else EPERM
      [LD, 0, 0, 24], // socketpair type
      [AND, 0, 0, 0xf], // SOCK_TYPE_MASK
      [JEQ, 1, 0, 2], // SOCK_DGRAM, else allow
      [RET, 0, 0, 0x7fff0000], // allow
      [RET, 0, 0, 0x00050001], // errno EPERM
      [RET, 0, 0, 0x80000000], // kill process
    ];
    expect(buildSeccompFilter({ arch: "aarch64", network: false })).toEqual(encode(expected));
  });

  it.each(ALL_CONFIGS)(
    "checks the arch first, stays in range and ends in a return ($arch, network $network)",
    (options) => {
      const program = decode(buildSeccompFilter(options));
      expect(program.length).toBeLessThanOrEqual(MAX_INSTRUCTIONS);
      expect(program.slice(0, 2).map(([code, , , k]) => [code, k])).toEqual([
        [LD, 4],
        [JEQ, options.arch === "x86_64" ? 0xc000003e : 0xc00000b7],
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
    const X86 = 0xc000003e;
    const filter = (network: boolean): Uint8Array => buildSeccompFilter({ arch: "x86_64", network });

    it("kills other architectures and the x32 ABI", () => {
      expect(evaluate(filter(true), 0x40000003, 0)).toBe(SECCOMP_RET_KILL_PROCESS); // AUDIT_ARCH_I386
      expect(evaluate(filter(true), X86, 0x40000000 | 41)).toBe(SECCOMP_RET_KILL_PROCESS);
    });

    it("denies ptrace, process_vm_* and io_uring_* with EPERM in both network modes", () => {
      for (const network of [true, false]) {
        for (const nr of [101, 310, 311, 425, 426, 427]) {
          expect(evaluate(filter(network), X86, nr)).toBe(SECCOMP_RET_ERRNO | 1);
        }
      }
    });

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

    it("with network off, allows stream and seqpacket socketpairs but not datagram ones", () => {
      expect(evaluate(filter(false), X86, 53, [1, 1])).toBe(SECCOMP_RET_ALLOW);
      expect(evaluate(filter(false), X86, 53, [1, 5 | 0x80000])).toBe(SECCOMP_RET_ALLOW); // SEQPACKET|CLOEXEC
      expect(evaluate(filter(false), X86, 53, [1, 2 | 0x800])).toBe(EPERM_RET); // DGRAM|NONBLOCK
    });

    it("with network on, leaves socket and socketpair alone", () => {
      expect(evaluate(filter(true), X86, 41, [1])).toBe(SECCOMP_RET_ALLOW);
      expect(evaluate(filter(true), X86, 53, [1, 2])).toBe(SECCOMP_RET_ALLOW);
    });

    it("allows everything else", () => {
      for (const nr of [0, 1, 2, 42, 44, 46, 59, 231, 257, 435]) {
        expect(evaluate(filter(false), X86, nr)).toBe(SECCOMP_RET_ALLOW);
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
      new Error('Option "network" must be a boolean, received "no"'),
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
