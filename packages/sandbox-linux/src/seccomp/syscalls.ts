// Syscall numbers per architecture, checked against the kernel's UAPI headers
// (arch/x86/entry/syscalls/syscall_64.tbl and include/uapi/asm-generic/unistd.h, which arm64 uses).

export const SECCOMP_ARCHES = ["x86_64", "aarch64"] as const;
export type SeccompArch = (typeof SECCOMP_ARCHES)[number];

export interface ArchSyscalls {
  /** AUDIT_ARCH_* as reported in `seccomp_data.arch`. */
  readonly auditArch: number;
  /** Syscall-number bit that selects a second ABI sharing `auditArch` (x32 on x86_64). */
  readonly foreignAbiBit: number | undefined;
  readonly ioctl: number;
  readonly socket: number;
  readonly socketpair: number;
  readonly ptrace: number;
  readonly processVmReadv: number;
  readonly processVmWritev: number;
  readonly ioUringSetup: number;
  readonly ioUringEnter: number;
  readonly ioUringRegister: number;
}

export const ARCH_SYSCALLS: Readonly<Record<SeccompArch, ArchSyscalls>> = {
  x86_64: {
    auditArch: 0xc000003e,
    foreignAbiBit: 0x40000000,
    ioctl: 16,
    socket: 41,
    socketpair: 53,
    ptrace: 101,
    processVmReadv: 310,
    processVmWritev: 311,
    ioUringSetup: 425,
    ioUringEnter: 426,
    ioUringRegister: 427,
  },
  aarch64: {
    auditArch: 0xc00000b7,
    foreignAbiBit: undefined,
    ioctl: 29,
    socket: 198,
    socketpair: 199,
    ptrace: 117,
    processVmReadv: 270,
    processVmWritev: 271,
    ioUringSetup: 425,
    ioUringEnter: 426,
    ioUringRegister: 427,
  },
};
