// The host's kernel settings under real bwrap (issue 20, §1): as root the sandbox's uid 0 is the host's,
// and sysctls, /proc/sysrq-trigger and /proc/irq check only the uid. Every attempt opens a file for
// writing and closes it without writing a byte (the permission check is at open; nothing changes), and
// the host's values are compared afterwards. Nothing here ever writes a value to a host setting.
import { lstatSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { describeWith } from "@conch/test-config";
import { expect, it } from "vitest";
import { createLinuxBackend } from "../src/index.js";
import { rules, runSandboxed } from "./sandbox-helpers.js";

const backend = createLinuxBackend();
const isRoot = process.getuid?.() === 0;

// The sysctls the review opened as root, and their neighbours.
const SETTINGS = [
  "/proc/sys/kernel/core_pattern",
  "/proc/sys/kernel/hostname",
  "/proc/sys/kernel/randomize_va_space",
  "/proc/sys/fs/protected_symlinks",
  "/proc/sys/fs/suid_dumpable",
  "/proc/sys/vm/overcommit_memory",
  "/proc/sys/kernel/modprobe",
  "/proc/sys/kernel/panic",
  "/proc/sys/kernel/domainname",
  "/proc/sys/fs/binfmt_misc/register",
  "/proc/sys/net/ipv4/ip_forward",
  "/proc/sysrq-trigger",
];
// The same file by other names: /proc/self/root and /proc/1/root (bwrap, pid 1 of the sandbox's pid
// namespace) lead to the sandbox's own root.
const ALIASES = [
  "/proc/self/root/proc/sys/kernel/core_pattern",
  "/proc/1/root/proc/sys/kernel/core_pattern",
  "//proc/./sys/kernel/../kernel/core_pattern",
];

// O_WRONLY without O_TRUNC or O_CREAT: the open is the whole attempt.
const PROBE = [
  "import errno, os, sys",
  "for path in sys.argv[1:]:",
  "    try:",
  "        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)",
  "    except OSError as e:",
  "        print(path, errno.errorcode[e.errno], sep='\\t')",
  "    else:",
  "        os.close(fd)",
  "        print(path, 'OPENED', sep='\\t')",
].join("\n");

// chmod to the mode a path has: the permission check is the whole attempt, nothing changes.
const CHMOD = [
  "import errno, os, sys",
  "for path, mode in zip(sys.argv[1::2], sys.argv[2::2]):",
  "    try:",
  "        os.chmod(path, int(mode, 8))",
  "    except OSError as e:",
  "        print(path, errno.errorcode[e.errno], sep='\\t')",
  "    else:",
  "        print(path, 'CHANGED', sep='\\t')",
].join("\n");

/** The permission bits of each path, as the host sees them. */
function modes(paths: readonly string[]): Map<string, string> {
  return new Map(paths.map((path) => [path, (lstatSync(path).mode & 0o7777).toString(8)]));
}

/** What chmod of each path to the mode it has did inside the sandbox: CHANGED or the errno's name. */
async function chmodInside(paths: readonly string[], network = false): Promise<Map<string, string>> {
  const pairs = [...modes(paths)].flat();
  const outcome = await runSandboxed(backend, rules({ network }), "/", ["python3", "-c", CHMOD, ...pairs]);
  expect(outcome.code).toBe(0);
  const lines = outcome.output.split("\n").filter((line) => line !== "");
  return new Map(lines.map((line) => line.split("\t") as [string, string]));
}

/** The entries of /proc that are no process's own, and the files directly inside those directories. */
function globalProcEntries(): string[] {
  const paths: string[] = [];
  for (const name of readdirSync("/proc")) {
    const path = `/proc/${name}`;
    const info = lstatSync(path, { throwIfNoEntry: false });
    if (/^\d+$/.test(name) || info === undefined || info.isSymbolicLink()) continue;
    paths.push(path);
    if (!info.isDirectory()) continue;
    for (const inner of readdirSync(path, { withFileTypes: true }).slice(0, 5)) {
      if (inner.isFile()) paths.push(join(path, inner.name));
    }
  }
  return paths;
}

/** What opening each path for writing did inside the sandbox: OPENED or the errno's name. */
async function openForWriting(paths: readonly string[], network = false): Promise<Map<string, string>> {
  const outcome = await runSandboxed(backend, rules({ network }), "/", ["python3", "-c", PROBE, ...paths]);
  expect(outcome.code).toBe(0);
  const results = new Map<string, string>();
  for (const line of outcome.output.split("\n")) {
    if (line === "") continue;
    const [path, result] = line.split("\t") as [string, string];
    results.set(path, result);
  }
  expect([...results.keys()]).toEqual([...paths]);
  return results;
}

/** The errno opening `path` for writing must fail with inside: the mount's, or the mode's first. */
function expectedRefusal(path: string): string {
  const info = lstatSync(path, { throwIfNoEntry: false });
  if (info === undefined) return "ENOENT";
  return isRoot || (info.mode & 0o002) !== 0 ? "EROFS" : "EACCES";
}

/** Files a mode lets someone write, below `dir`, not following links or entering other file systems. */
function writableFiles(dir: string, device: number, out: string[] = []): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of names) {
    const path = join(dir, name);
    const info = lstatSync(path, { throwIfNoEntry: false });
    if (info === undefined || info.isSymbolicLink() || info.dev !== device) continue;
    if (info.isDirectory()) writableFiles(path, device, out);
    else if (info.isFile() && (info.mode & 0o222) !== 0) out.push(path);
  }
  return out;
}

/** Every file of /proc outside the per-process directories that its mode lets someone write. */
function globalProcWritable(): string[] {
  const device = lstatSync("/proc").dev;
  const paths: string[] = [];
  for (const name of readdirSync("/proc")) {
    const path = `/proc/${name}`;
    const info = lstatSync(path, { throwIfNoEntry: false });
    if (/^\d+$/.test(name) || info === undefined || info.isSymbolicLink()) continue;
    if (info.isDirectory()) writableFiles(path, device, paths);
    else if ((info.mode & 0o222) !== 0) paths.push(path);
  }
  return paths;
}

/** The host's readable values, to compare after the attempts. */
function hostValues(paths: readonly string[]): Map<string, string> {
  const values = new Map<string, string>();
  for (const path of paths) {
    try {
      values.set(path, readFileSync(path, "utf8"));
    } catch (error) {
      values.set(path, (error as NodeJS.ErrnoException).code ?? "error");
    }
  }
  return values;
}

describeWith("bwrap", "the host's kernel settings under real bwrap", () => {
  it("refuses opening any named sysctl or /proc/sysrq-trigger for writing, and the host's values stay", async () => {
    const before = hostValues(SETTINGS);
    const host = hostname();
    const results = await openForWriting([...SETTINGS, ...ALIASES]);
    for (const path of SETTINGS) expect([path, results.get(path)]).toEqual([path, expectedRefusal(path)]);
    const canonical = expectedRefusal("/proc/sys/kernel/core_pattern");
    for (const path of ALIASES) expect([path, results.get(path)]).toEqual([path, canonical]);
    // The attempt is not vacuous: the review's sysctls exist here.
    expect(canonical).not.toBe("ENOENT");
    expect(hostValues(SETTINGS)).toEqual(before);
    expect(hostname()).toBe(host);
  });

  it("refuses every writable file of /proc outside the per-process directories, /proc/sys whole", async () => {
    const paths = globalProcWritable();
    expect(paths).toContain("/proc/sys/kernel/core_pattern");
    expect(paths.filter((path) => path.startsWith("/proc/sys/")).length).toBeGreaterThan(100);
    const results = await openForWriting(paths);
    const opened = paths.filter((path) => results.get(path) === "OPENED");
    expect(opened).toEqual([]);
    // As root the read-only mount is what refuses, but for the sysctls of the sandbox's own namespaces:
    // its network namespace has fewer (net/core/bpf_jit_enable is the initial one's alone) and some
    // read-only there (net/core/rmem_default), its user namespace's limits (user/) need a capability.
    // As another uid the mode may refuse first, or not (kernel/pid_max belongs to the sandbox's pid
    // namespace on recent kernels).
    const unexpected = paths.flatMap((path) => {
      const result = results.get(path) as string;
      const own = /^\/proc\/sys\/(net|user)\//.test(path) && (result === "ENOENT" || result === "EACCES");
      const refused = own || result === "EROFS" || (!isRoot && result === "EACCES");
      return refused ? [] : [`${path} ${result}`];
    });
    expect(unexpected).toEqual([]);
  });

  it("refuses the host's network sysctls when the network is on (the host's own namespace)", async () => {
    const paths = ["/proc/sys/net/ipv4/ip_forward", "/proc/sys/net/ipv4/conf/all/forwarding"];
    const before = hostValues(paths);
    const results = await openForWriting(paths, true);
    for (const path of paths) expect([path, results.get(path)]).toEqual([path, expectedRefusal(path)]);
    expect(hostValues(paths)).toEqual(before);
  });

  it("keeps sysfs read-only: THP, power, cgroup release agents, module parameters", async () => {
    const device = lstatSync("/sys").dev;
    const candidates = [
      "/sys/kernel/mm/transparent_hugepage/enabled",
      "/sys/kernel/uevent_helper",
      "/sys/kernel/profiling",
      "/sys/power/state",
      ...readdirSync("/sys/fs/cgroup").flatMap((name) => [
        `/sys/fs/cgroup/${name}/release_agent`,
        `/sys/fs/cgroup/${name}/cgroup.procs`,
      ]),
      "/sys/fs/cgroup/cgroup.procs",
      ...writableFiles("/sys/module", device).filter((path) => path.includes("/parameters/")),
    ];
    const paths = candidates.filter((path) => lstatSync(path, { throwIfNoEntry: false })?.isFile());
    expect(paths.length).toBeGreaterThan(2);
    const results = await openForWriting(paths);
    for (const path of paths) expect([path, results.get(path)]).toEqual([path, expectedRefusal(path)]);
  });

  it("masks the kernel's internals that only the host's uid 0 could read", async () => {
    const paths = [
      "/proc/kcore",
      "/proc/timer_list",
      "/proc/slabinfo",
      "/proc/kpageflags",
      "/proc/keys",
    ].filter((path) => lstatSync(path, { throwIfNoEntry: false }) !== undefined);
    expect(paths).toContain("/proc/timer_list");
    const script = paths.map((path) => `head -c1 ${path} >/dev/null 2>&1 && echo "read ${path}"`).join("; ");
    const outcome = await runSandboxed(backend, rules({}), "/", ["sh", "-c", `${script}; echo done`]);
    expect(outcome.output).toBe("done\n");
    // What stays readable: the global files nothing masks.
    const cpuinfo = await runSandboxed(backend, rules({}), "/", ["head", "-c", "9", "/proc/cpuinfo"]);
    expect(cpuinfo.output).toBe(readFileSync("/proc/cpuinfo", "utf8").slice(0, 9));
  });

  it("gives the sandbox a UTS namespace of its own (the host's name) and a user namespace of its own", async () => {
    // `hostname` runs only in a UTS namespace that is not the host's, so not even a sandbox that kept
    // CAP_SYS_ADMIN could rename the host here.
    const script = [
      "readlink /proc/self/ns/uts /proc/self/ns/user; uname -n",
      `if [ "$(readlink /proc/self/ns/uts)" = "$1" ]; then echo shared; else hostname conch-sandboxed 2>/dev/null && uname -n || echo refused; fi`,
    ].join("; ");
    const outcome = await runSandboxed(backend, rules({}), "/", [
      "sh",
      "-c",
      script,
      "sh",
      readlinkSync("/proc/self/ns/uts"),
    ]);
    const [uts, user, name, rename] = outcome.output.split("\n");
    expect(uts).toMatch(/^uts:\[\d+\]$/);
    expect(uts).not.toBe(readlinkSync("/proc/self/ns/uts"));
    expect(user).toMatch(/^user:\[\d+\]$/);
    expect(user).not.toBe(readlinkSync("/proc/self/ns/user"));
    expect(name).toBe(hostname());
    expect(rename).toBe("refused");
    expect(hostname()).toBe(name);
  });

  it("keeps the modes of /proc's global entries: their owner's chmod would change them for the host", async () => {
    // proc keeps one mode per entry for every mount of /proc; as root the sandbox is that owner.
    const paths = globalProcEntries();
    expect(paths).toContain("/proc/cpuinfo");
    expect(paths).toContain("/proc/sys");
    const before = modes(paths);
    const results = await chmodInside(paths);
    const allowed = paths.filter((path) => results.get(path) !== "EROFS");
    expect(allowed.map((path) => `${path} ${results.get(path)}`)).toEqual([]);
    expect(modes(paths)).toEqual(before);
  });

  it("with the network on, the host network namespace's /proc/self/net keeps its modes and files", async () => {
    // A process's net directory is its network namespace's, the host's here: per-process by path only.
    const paths = ["/proc/self/net/arp", "/proc/self/net/dev", "/proc/self/net/tcp", "/proc/self/net/stat"]
      .map((path) => path.replace("/self/", `/${process.pid}/`))
      .filter((path) => lstatSync(path, { throwIfNoEntry: false }) !== undefined);
    expect(paths.length).toBeGreaterThan(2);
    const before = modes(paths);
    const pairs = [...before].flatMap(([path, mode]) => [path.replace(`/${process.pid}/`, "/self/"), mode]);
    const outcome = await runSandboxed(backend, rules({ network: true }), "/", [
      "python3",
      "-c",
      CHMOD,
      ...pairs,
    ]);
    expect(outcome.output.split("\n").filter((line) => !line.endsWith("\tEROFS") && line !== "")).toEqual([]);
    expect(outcome.output.split("\n").length).toBe(paths.length + 1);
    expect(modes(paths)).toEqual(before);
  });

  it("makes the command's own /proc files read-only too, and its descriptors still reopen", async () => {
    const outcome = await runSandboxed(backend, rules({}), "/", [
      "sh",
      "-c",
      'exec 3>/tmp/out; exec python3 -c "$1" /proc/self/oom_score_adj /proc/self/comm /proc/self/fd/3',
      "sh",
      PROBE,
    ]);
    expect(outcome.output).toBe(
      "/proc/self/oom_score_adj\tEROFS\n/proc/self/comm\tEROFS\n/proc/self/fd/3\tOPENED\n",
    );
  });
});
