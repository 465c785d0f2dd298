// Syscall numbers per architecture, checked against the kernel's tables
// (arch/x86/entry/syscalls/syscall_64.tbl, and include/uapi/asm-generic/unistd.h, which arm64 uses).

export const SECCOMP_ARCHES = ["x86_64", "aarch64"] as const;
export type SeccompArch = (typeof SECCOMP_ARCHES)[number];

/** The syscalls the filter looks at the arguments of, and what identifies the architecture. */
export interface ArchSyscalls {
  /** AUDIT_ARCH_* as reported in `seccomp_data.arch`. */
  readonly auditArch: number;
  /** Syscall-number bit that selects a second ABI sharing `auditArch` (x32 on x86_64). */
  readonly foreignAbiBit: number | undefined;
  readonly ioctl: number;
  readonly socket: number;
  readonly socketpair: number;
  readonly clone: number;
  readonly clone3: number;
  readonly unshare: number;
  readonly personality: number;
  readonly fallocate: number;
}

export const ARCH_SYSCALLS: Readonly<Record<SeccompArch, ArchSyscalls>> = {
  x86_64: {
    auditArch: 0xc000003e,
    foreignAbiBit: 0x40000000,
    ioctl: 16,
    socket: 41,
    socketpair: 53,
    clone: 56,
    clone3: 435,
    unshare: 272,
    personality: 135,
    fallocate: 285,
  },
  aarch64: {
    auditArch: 0xc00000b7,
    foreignAbiBit: undefined,
    ioctl: 29,
    socket: 198,
    socketpair: 199,
    clone: 220,
    clone3: 435,
    unshare: 97,
    personality: 92,
    fallocate: 47,
  },
};

/** A syscall denied with EPERM whatever its arguments; `null` where the architecture has no such call. */
export interface DeniedSyscall {
  readonly name: string;
  readonly x86_64: number;
  readonly aarch64: number | null;
}

/**
 * Denied with EPERM in every sandbox. None has a use in building, testing or running code that is worth
 * its kernel attack surface or what it reaches outside the sandbox; most need a capability the sandbox
 * does not hold anyway, and are listed so a kernel bug in their permission checks stays out of reach.
 */
export const DENIED_SYSCALLS: readonly DeniedSyscall[] = [
  // Another process's memory, registers and descriptors (the reaper bwrap runs beside the command).
  { name: "ptrace", x86_64: 101, aarch64: 117 },
  { name: "process_vm_readv", x86_64: 310, aarch64: 270 },
  { name: "process_vm_writev", x86_64: 311, aarch64: 271 },
  { name: "pidfd_getfd", x86_64: 438, aarch64: 438 }, // copies a descriptor out of another process
  { name: "process_madvise", x86_64: 440, aarch64: 440 }, // changes another process's memory
  { name: "kcmp", x86_64: 312, aarch64: 272 }, // compares kernel objects of other processes
  // io_uring performs I/O the seccomp filter never sees (connect, openat, ... by ring entry).
  { name: "io_uring_setup", x86_64: 425, aarch64: 425 },
  { name: "io_uring_enter", x86_64: 426, aarch64: 426 },
  { name: "io_uring_register", x86_64: 427, aarch64: 427 },
  // Kernel keyrings hold the user's keys (Kerberos, ecryptfs, ...) and are shared across namespaces.
  { name: "add_key", x86_64: 248, aarch64: 217 },
  { name: "request_key", x86_64: 249, aarch64: 218 },
  { name: "keyctl", x86_64: 250, aarch64: 219 },
  // Mounts could uncover what the sandbox's mounts hide or make read-only.
  { name: "mount", x86_64: 165, aarch64: 40 },
  { name: "umount2", x86_64: 166, aarch64: 39 },
  { name: "pivot_root", x86_64: 155, aarch64: 41 },
  { name: "open_tree", x86_64: 428, aarch64: 428 }, // the new mount API, same reach as mount
  { name: "move_mount", x86_64: 429, aarch64: 429 },
  { name: "fsopen", x86_64: 430, aarch64: 430 },
  { name: "fsconfig", x86_64: 431, aarch64: 431 },
  { name: "fsmount", x86_64: 432, aarch64: 432 },
  { name: "fspick", x86_64: 433, aarch64: 433 },
  { name: "mount_setattr", x86_64: 442, aarch64: 442 }, // could clear a mount's read-only flag
  { name: "open_tree_attr", x86_64: 467, aarch64: 467 },
  // Joins another process's namespaces.
  { name: "setns", x86_64: 308, aarch64: 268 },
  // Opens any file by handle, past every mount and path check (the "shocker" container escape).
  { name: "name_to_handle_at", x86_64: 303, aarch64: 264 },
  { name: "open_by_handle_at", x86_64: 304, aarch64: 265 },
  // Loads code into the kernel or replaces it.
  { name: "init_module", x86_64: 175, aarch64: 105 },
  { name: "finit_module", x86_64: 313, aarch64: 273 },
  { name: "delete_module", x86_64: 176, aarch64: 106 },
  { name: "kexec_load", x86_64: 246, aarch64: 104 },
  { name: "kexec_file_load", x86_64: 320, aarch64: 294 },
  { name: "bpf", x86_64: 321, aarch64: 280 }, // eBPF verifier bugs are a steady source of kernel exploits
  // Frequent kernel-exploit helpers: perf events leak kernel addresses, userfaultfd stalls kernel copies.
  { name: "perf_event_open", x86_64: 298, aarch64: 241 },
  { name: "userfaultfd", x86_64: 323, aarch64: 282 },
  // Whole-machine state: disks, quotas, power, the kernel log, process accounting, terminals.
  { name: "quotactl", x86_64: 179, aarch64: 60 },
  { name: "quotactl_fd", x86_64: 443, aarch64: 443 },
  { name: "swapon", x86_64: 167, aarch64: 224 },
  { name: "swapoff", x86_64: 168, aarch64: 225 },
  { name: "reboot", x86_64: 169, aarch64: 142 },
  { name: "syslog", x86_64: 103, aarch64: 116 }, // the kernel log leaks kernel addresses
  { name: "acct", x86_64: 163, aarch64: 89 },
  { name: "lookup_dcookie", x86_64: 212, aarch64: 18 }, // names any dentry by cookie
  { name: "vhangup", x86_64: 153, aarch64: 58 }, // hangs up the controlling terminal, which a PTY shares
  // x86 only: I/O port access, and a.out library loading with a long exploit history.
  { name: "iopl", x86_64: 172, aarch64: null },
  { name: "ioperm", x86_64: 173, aarch64: null },
  { name: "uselib", x86_64: 134, aarch64: null },
  // Old attack surface no build tool needs: LDT segments (16-bit code, a long line of kernel bugs) and
  // moving another process's pages between NUMA nodes (Docker's default profile denies both).
  { name: "modify_ldt", x86_64: 154, aarch64: null },
  { name: "move_pages", x86_64: 279, aarch64: 239 },
];

/**
 * What a command without a pid namespace of its own (the Landlock backend) could do to the host's
 * processes and files that Landlock does not cover, by argument position. `pidArg`: calls that act on
 * another process when that argument is not 0 (its own); `denied`: changes of owner and extended
 * attributes, refused outright; `mode`: chmod's mode argument (setuid and setgid bits refused; a root
 * caller's chmod refused outright, since uid 0 owns the host's files).
 */
export const HOST_SYSCALLS: {
  readonly pidArg: readonly (DeniedSyscall & { readonly arg: number })[];
  readonly denied: readonly DeniedSyscall[];
  readonly mode: readonly (DeniedSyscall & { readonly arg: number })[];
} = {
  pidArg: [
    { name: "prlimit64", x86_64: 302, aarch64: 261, arg: 0 },
    { name: "sched_setparam", x86_64: 142, aarch64: 118, arg: 0 },
    { name: "sched_setscheduler", x86_64: 144, aarch64: 119, arg: 0 },
    { name: "sched_setaffinity", x86_64: 203, aarch64: 122, arg: 0 },
    { name: "sched_setattr", x86_64: 314, aarch64: 274, arg: 0 },
    { name: "setpriority", x86_64: 141, aarch64: 140, arg: 1 },
    { name: "ioprio_set", x86_64: 251, aarch64: 30, arg: 1 },
  ],
  denied: [
    { name: "chown", x86_64: 92, aarch64: null },
    { name: "fchown", x86_64: 93, aarch64: 55 },
    { name: "lchown", x86_64: 94, aarch64: null },
    { name: "fchownat", x86_64: 260, aarch64: 54 },
    { name: "setxattr", x86_64: 188, aarch64: 5 },
    { name: "lsetxattr", x86_64: 189, aarch64: 6 },
    { name: "fsetxattr", x86_64: 190, aarch64: 7 },
    { name: "removexattr", x86_64: 197, aarch64: 14 },
    { name: "lremovexattr", x86_64: 198, aarch64: 15 },
    { name: "fremovexattr", x86_64: 199, aarch64: 16 },
    { name: "setxattrat", x86_64: 463, aarch64: 463 },
    { name: "removexattrat", x86_64: 466, aarch64: 466 },
  ],
  mode: [
    { name: "chmod", x86_64: 90, aarch64: null, arg: 1 },
    { name: "fchmod", x86_64: 91, aarch64: 52, arg: 1 },
    { name: "fchmodat", x86_64: 268, aarch64: 53, arg: 2 },
    { name: "fchmodat2", x86_64: 452, aarch64: 452, arg: 2 },
  ],
};

/**
 * Calls that create a file with a mode (`arg`: its position): creat and mknod always, open and openat
 * only with O_CREAT or O_TMPFILE (`flags`: that argument's position; otherwise the mode is not read and
 * may be anything). A setuid or setgid bit given at creation is as good as one set by chmod.
 */
export const CREATE_SYSCALLS: readonly (DeniedSyscall & { readonly arg: number; readonly flags?: number })[] =
  [
    { name: "open", x86_64: 2, aarch64: null, arg: 2, flags: 1 },
    { name: "openat", x86_64: 257, aarch64: 56, arg: 3, flags: 2 },
    { name: "creat", x86_64: 85, aarch64: null, arg: 1 },
    { name: "mknod", x86_64: 133, aarch64: null, arg: 1 },
    { name: "mknodat", x86_64: 259, aarch64: 33, arg: 2 },
  ];

/** openat2: its mode sits in a struct seccomp cannot read; ENOSYS, and callers fall back to openat. */
export const OPENAT2: DeniedSyscall = { name: "openat2", x86_64: 437, aarch64: 437 };
