// The rules every Seatbelt profile of Conch starts from: Codex's base policy
// (codex-rs/sandboxing/src/seatbelt_base_policy.sbpl, itself after Chrome's renderer policy), entry by
// entry, with why each is there. Fixed text: no path of the machine is in it (paths are parameters).
// Where Conch differs from Codex the comment says so.

/** The base: closed by default, then what ordinary command-line tools need to start and run. */
export const BASE_POLICY: string = `; Closed by default: whatever is not allowed below is refused (EPERM), with the tag in the log.
; Child processes inherit the profile: they may start programs and fork, and signal and inspect only
; processes in this same sandbox (not the person's other processes, not Conch).
(allow process-exec)
(allow process-fork)
(allow signal (target same-sandbox))
(allow process-info* (target same-sandbox))
; /dev/null may be written (only as the character device it is), like /dev/zero; output through the
; descriptors a command was given needs no rule, and naming one (/dev/stdout, /dev/fd/N) reopens only
; what the process already holds.
(allow file-write-data
  (require-all
    (literal "/dev/null")
    (vnode-type CHARACTER-DEVICE)))
(allow file-write-data
  (require-all
    (literal "/dev/zero")
    (vnode-type CHARACTER-DEVICE)))
(allow file-write-data
  (literal "/dev/stdout")
  (literal "/dev/stderr")
  (regex #"^/dev/fd/[0-9]+$"))
; The sysctls programs read to learn the machine (CPU count and features, page size, OS version),
; processes by pid and group (kern.proc.pid., kern.proc.pgrp.: any pid's, so the command can learn what
; else runs, as on a host without a pid namespace), and the routing table: Codex's list as it is.
(allow sysctl-read
  (sysctl-name "hw.activecpu")
  (sysctl-name "hw.busfrequency_compat")
  (sysctl-name "hw.byteorder")
  (sysctl-name "hw.cacheconfig")
  (sysctl-name "hw.cachelinesize_compat")
  (sysctl-name "hw.cpufamily")
  (sysctl-name "hw.cpufrequency_compat")
  (sysctl-name "hw.cputype")
  (sysctl-name "hw.l1dcachesize_compat")
  (sysctl-name "hw.l1icachesize_compat")
  (sysctl-name "hw.l2cachesize_compat")
  (sysctl-name "hw.l3cachesize_compat")
  (sysctl-name "hw.logicalcpu_max")
  (sysctl-name "hw.machine")
  (sysctl-name "hw.model")
  (sysctl-name "hw.memsize")
  (sysctl-name "hw.ncpu")
  (sysctl-name "hw.nperflevels")
  (sysctl-name-prefix "hw.optional.arm.")
  (sysctl-name-prefix "hw.optional.armv8_")
  (sysctl-name "hw.packages")
  (sysctl-name "hw.pagesize_compat")
  (sysctl-name "hw.pagesize")
  (sysctl-name "hw.physicalcpu")
  (sysctl-name "hw.physicalcpu_max")
  (sysctl-name "hw.logicalcpu")
  (sysctl-name "hw.cpufrequency")
  (sysctl-name "hw.tbfrequency_compat")
  (sysctl-name "hw.vectorunit")
  (sysctl-name "machdep.cpu.brand_string")
  (sysctl-name "kern.argmax")
  (sysctl-name "kern.hostname")
  (sysctl-name "kern.maxfilesperproc")
  (sysctl-name "kern.maxproc")
  (sysctl-name "kern.osproductversion")
  (sysctl-name "kern.osrelease")
  (sysctl-name "kern.ostype")
  (sysctl-name "kern.osvariant_status")
  (sysctl-name "kern.osversion")
  (sysctl-name "kern.secure_kernel")
  (sysctl-name "kern.usrstack64")
  (sysctl-name "kern.version")
  (sysctl-name "sysctl.proc_cputype")
  (sysctl-name "vm.loadavg")
  (sysctl-name-prefix "hw.perflevel")
  (sysctl-name-prefix "kern.proc.pgrp.")
  (sysctl-name-prefix "kern.proc.pid.")
  (sysctl-name-prefix "net.routetable."))
; Java reads CPU information through a sysctl that counts as a write (it passes a buffer).
(allow sysctl-write
  (sysctl-name "kern.grade_cputype"))
; Power management's user client, which runtimes open to ask about sleep (Chrome, Codex).
(allow iokit-open
  (iokit-registry-entry-class "RootDomainUserClient"))
; Looking up users and groups (getpwuid: whoami, ls -l, git's author) goes through opendirectoryd.
(allow mach-lookup
  (global-name "com.apple.system.opendirectoryd.libinfo"))
; Python's multiprocessing (SemLock) uses POSIX semaphores; libomp (PyTorch) registers itself in
; shared memory under this one name.
(allow ipc-posix-sem)
(allow ipc-posix-shm-read-data
  ipc-posix-shm-write-create
  ipc-posix-shm-write-unlink
  (ipc-posix-name-regex #"^/__KMP_REGISTERED_LIB_[0-9]+$"))
(allow mach-lookup
  (global-name "com.apple.PowerManagement.control"))
; User preferences, read only (CFPreferences: many of Apple's tools read them at start).
(allow ipc-posix-shm-read* (ipc-posix-name-prefix "apple.cfprefs."))
(allow mach-lookup
  (global-name "com.apple.cfprefsd.daemon")
  (global-name "com.apple.cfprefsd.agent")
  (local-name "com.apple.cfprefsd.agent"))
(allow user-preference-read)
`;

/**
 * Terminals, after the reads and the deny of every terminal by its name (profile.ts: another of the
 * person's terminals could be read, and with it what they type): new pseudo-terminals (openpty: script,
 * expect, tmux), the terminal a session was given (opened by Conch before the sandbox, so it lacks the
 * sandbox's pty extension: only its ioctls are allowed by name, on the descriptor the process holds),
 * and /dev/tty, which names only the terminal the process already has.
 */
export const TTY_POLICY: string = `(allow pseudo-tty)
(allow file-read* file-write* file-ioctl (literal "/dev/ptmx"))
(allow file-read* file-write*
  (require-all
    (regex #"^/dev/ttys[0-9]+$")
    (extension "com.apple.sandbox.pty")))
(allow file-ioctl (regex #"^/dev/ttys[0-9]+$"))
(allow file-read* file-write* file-ioctl (literal "/dev/tty"))
`;

/**
 * What a network client needs besides its sockets (Codex's network policy): the AF_SYSTEM socket the
 * resolver and network framework open, TLS trust evaluation (trustd, ocspd: a client checks the
 * certificate itself, even through a CONNECT proxy), the network configuration and the routing table.
 * Unlike Codex, not com.apple.SecurityServer: through it `security find-generic-password` (and git's
 * osxkeychain helper) read the person's keychain, whose tokens the network would then carry. Codex
 * also makes the per-user cache directory writable here; Conch does not (writes stay in the roots).
 */
export const NETWORK_SERVICES_POLICY: string = `(allow system-socket
  (require-all
    (socket-domain AF_SYSTEM)
    (socket-protocol 2)))
(allow mach-lookup
  (global-name "com.apple.bsd.dirhelper")
  (global-name "com.apple.system.opendirectoryd.membership")
  (global-name "com.apple.networkd")
  (global-name "com.apple.ocspd")
  (global-name "com.apple.trustd.agent")
  (global-name "com.apple.SystemConfiguration.DNSConfiguration")
  (global-name "com.apple.SystemConfiguration.configd"))
(allow sysctl-read
  (sysctl-name-regex #"^net.routetable"))
`;
