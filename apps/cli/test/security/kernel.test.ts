// Issue 10, items 8, 9 and 10 and the syscall filter, end to end: a tool call through the real CLI, in
// real bwrap, trying what a hostile command would. (sandbox-linux's own tests try every variant one by
// one; these check that the CLI's path gets the same sandbox.)
import { spawn, spawnSync } from "node:child_process";
import { lstatSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { hostname } from "node:os";
import { join } from "node:path";
import { describeWith, itWith } from "@conch/test-config";
import { afterEach, beforeEach, expect, it } from "vitest";
import { BIN, toolCall, userConfig, type Workspace, workspace } from "./harness.js";

let ws: Workspace;
beforeEach(() => {
  ws = workspace();
});
afterEach(() => ws.cleanup());

describeWith("bwrap", "the kernel surface a sandboxed command sees", () => {
  it("a root caller keeps no capability inside (item 9)", () => {
    const call = toolCall(ws, "shell_command", {
      command: "grep -E '^Cap(Eff|Prm|Amb|Bnd)' /proc/self/status",
    });
    expect(call.text).toContain("CapEff:\t0000000000000000");
    expect(call.text).toContain("CapPrm:\t0000000000000000");
    expect(call.text).toContain("CapBnd:\t0000000000000000");
  });

  it("descriptors the caller inherited do not reach the command (item 10)", async () => {
    const leaked = join(ws.base, "leaked.txt");
    writeFileSync(leaked, "");
    const args = JSON.stringify({
      command: "ls /proc/self/fd | tr '\\n' ' '; echo; echo pwned >&200; echo pwned >&201",
    });
    // The calling shell leaves 200 and 201 open (no close-on-exec), as an IDE or an MCP client might.
    const script = 'exec 200>>"$1" 201>>"$1"; shift; exec "$@"';
    const child = spawn(
      "bash",
      ["-c", script, "bash", leaked, process.execPath, BIN, "tool", "call", "--json", "shell_command", args],
      { cwd: ws.cwd, env: ws.env, stdio: ["ignore", "pipe", "pipe"] },
    );
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    await new Promise((resolve) => child.once("close", resolve));
    const text = (JSON.parse(stdout) as { text: string }).text;
    // 0, 1, 2, and the descriptor `ls` opened to read the directory.
    expect(text).toMatch(/Output:\n0 1 2 3 \n/);
    expect(text).toContain("Bad file descriptor");
    expect(readFileSync(leaked, "utf8")).toBe("");
  });

  itWith("python3", "with network off no unix socket on the host can be reached (item 8)", async () => {
    const stream = join(ws.outside, "stream.sock");
    const dgram = join(ws.outside, "dgram.sock");
    let connections = 0;
    const server: Server = createServer((socket) => {
      connections += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(stream, resolve));
    // A host datagram socket (docker.sock's kind of neighbour, or journald's), counting what arrives.
    const receiver = spawn("python3", [
      "-c",
      [
        "import socket, sys",
        "s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.bind(sys.argv[1]); s.settimeout(0.5)",
        "print('ready', flush=True)",
        "n = 0",
        "while True:",
        "    try: s.recv(64); n += 1",
        "    except socket.timeout:",
        "        if sys.stdin.readline() == '': break",
        "print(n, flush=True)",
      ].join("\n"),
      dgram,
    ]);
    let received = "";
    receiver.stdout.on("data", (chunk: Buffer) => {
      received += chunk.toString();
    });
    await new Promise<void>((resolve) => receiver.stdout.once("data", () => resolve()));
    try {
      const probe = [
        "import socket, array",
        `targets = (${JSON.stringify(stream)}, ${JSON.stringify(dgram)})`,
        "for path in targets:",
        "    for kind in (socket.SOCK_STREAM, socket.SOCK_DGRAM, socket.SOCK_SEQPACKET):",
        "        try:",
        "            s = socket.socket(socket.AF_UNIX, kind); s.connect(path); print('connected', path, kind)",
        "        except OSError as e: print('refused', kind, e.errno)",
        "for kind in range(1, 11):",
        "    try:",
        "        a, b = socket.socketpair(socket.AF_UNIX, kind)",
        "    except OSError as e:",
        "        print('refused pair', kind, e.errno); continue",
        "    for send in (lambda: a.sendto(b'x', targets[1]),",
        "                 lambda: a.sendmsg([b'x'], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array('i', [0]))], 0, targets[1])):",
        "        try: send()",
        "        except OSError as e: print('refused send', kind, e.errno)",
      ].join("\n");
      const call = toolCall(ws, "shell", { command: ["python3", "-c", probe] });
      expect(call.text).not.toContain("connected");
      expect(call.text).toContain("refused pair 2 1");
      expect(call.text).toContain("refused pair 3 1");
    } finally {
      receiver.stdin.end();
      await new Promise((resolve) => receiver.once("close", resolve));
      await new Promise((resolve) => server.close(resolve));
    }
    expect(connections).toBe(0);
    expect(received).toBe("ready\n0\n");
  });

  it("no new namespaces, mounts, keyrings or BPF inside", () => {
    const call = toolCall(ws, "shell_command", {
      command: [
        "unshare -U true && echo userns-ok",
        "unshare -n true && echo netns-ok",
        "mount -t tmpfs none /tmp && echo mount-ok",
        "umount /proc && echo umount-ok",
        "keyctl show @u >/dev/null 2>&1 && echo keyctl-ok",
        "echo done",
      ].join("; "),
    });
    expect(call.text).toContain("done");
    for (const ok of ["userns-ok", "netns-ok", "mount-ok", "umount-ok", "keyctl-ok"])
      expect(call.text).not.toContain(ok);
  });
});

// Issue 20, §1: as root the sandbox's uid 0 is the host's, and sysctls check only the uid. Each attempt
// opens a file for writing and closes it without writing a byte (the permission check is at open, and
// nothing changes); the host's values are compared afterwards. Nothing here writes a host setting.
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
  "/proc/irq/default_smp_affinity",
];
// O_WRONLY without O_TRUNC or O_CREAT: the open is the whole attempt.
const OPEN_FOR_WRITING = [
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

/** Each path's outcome in the model text: OPENED or the errno's name. */
function outcomes(text: string): Record<string, string> {
  const found: Record<string, string> = {};
  for (const [, path, result] of text.matchAll(/^(\/\S+)\t(\S+)$/gm))
    found[path as string] = result as string;
  return found;
}

/** The refusal opening `path` for writing meets inside: the read-only mount, or for another uid the mode. */
function refusal(path: string): string {
  const info = lstatSync(path, { throwIfNoEntry: false });
  if (info === undefined) return "ENOENT";
  return process.getuid?.() === 0 || (info.mode & 0o002) !== 0 ? "EROFS" : "EACCES";
}

function hostValues(paths: readonly string[]): Record<string, string> {
  return Object.fromEntries(
    paths.map((path) => {
      try {
        return [path, readFileSync(path, "utf8")];
      } catch (error) {
        return [path, (error as NodeJS.ErrnoException).code ?? "error"];
      }
    }),
  );
}

describeWith("bwrap", "the host's kernel settings through the CLI (issue 20, §1)", () => {
  itWith(
    "python3",
    "no sysctl, /proc/sysrq-trigger or /proc/irq file opens for writing; the host's stay",
    () => {
      const before = hostValues(SETTINGS);
      const host = hostname();
      const call = toolCall(ws, "shell", { command: ["python3", "-c", OPEN_FOR_WRITING, ...SETTINGS] });
      expect(outcomes(call.text)).toEqual(Object.fromEntries(SETTINGS.map((path) => [path, refusal(path)])));
      expect(refusal("/proc/sys/kernel/core_pattern")).not.toBe("ENOENT");
      expect(hostValues(SETTINGS)).toEqual(before);
      expect(hostname()).toBe(host);
    },
  );

  itWith("python3", "with the network on, the host's own network sysctls stay read-only", () => {
    userConfig(ws, ["network_access = true"]);
    const paths = ["/proc/sys/net/ipv4/ip_forward", "/proc/sys/net/ipv4/conf/all/forwarding"];
    const before = hostValues(paths);
    const netns = toolCall(ws, "shell_command", { command: "readlink /proc/self/ns/net" });
    expect(netns.text).toContain(`\n${readlinkSync("/proc/self/ns/net")}\n`);
    const call = toolCall(ws, "shell", { command: ["python3", "-c", OPEN_FOR_WRITING, ...paths] });
    expect(outcomes(call.text)).toEqual(Object.fromEntries(paths.map((path) => [path, refusal(path)])));
    expect(hostValues(paths)).toEqual(before);
  });

  itWith(
    "python3",
    "with the network on, the host network namespace's /proc/self/net keeps its modes",
    () => {
      // proc keeps one mode per entry for every mount of /proc, and a process's net directory is its
      // network namespace's: a root caller's chmod here was the host's. chmod to the mode each has, so
      // the attempt changes nothing even where it is let through.
      userConfig(ws, ["network_access = true"]);
      const names = ["arp", "dev", "tcp", "unix"].filter((name) =>
        lstatSync(`/proc/self/net/${name}`, { throwIfNoEntry: false }),
      );
      const mode = (name: string): string => (lstatSync(`/proc/self/net/${name}`).mode & 0o7777).toString(8);
      const before = names.map(mode);
      const script = names.map((name, index) => `chmod ${before[index]} /proc/self/net/${name}`).join("; ");
      const call = toolCall(ws, "shell_command", { command: `readlink /proc/self/ns/net; ${script}` });
      expect(call.text).toContain(`\n${readlinkSync("/proc/self/ns/net")}\n`);
      for (const name of names) {
        expect(call.text).toContain(
          `chmod: changing permissions of '/proc/self/net/${name}': Read-only file system`,
        );
      }
      expect(names.map(mode)).toEqual(before);
    },
  );

  it("a shell's redirection into /proc/sys is refused, and `hostname` renames at most the sandbox", () => {
    const host = hostname();
    const hostUts = readlinkSync("/proc/self/ns/uts");
    // `: >` opens with O_TRUNC, which procfs ignores; it writes nothing. `hostname` runs only in a UTS
    // namespace that is not the host's, so not even a sandbox that kept its capabilities renames the host.
    const asked = toolCall(ws, "shell_command", { command: ": > /proc/sys/kernel/hostname" });
    // A kernel setting is asked about; the deny approver refuses (nobody was asked), and nothing ran.
    expect([asked.text, asked.result.rejection]).toEqual([
      "refused: conch runs with --approver deny, which refuses whatever needs a yes without asking anyone; the command did not run",
      "not-approved",
    ]);
    // Approved, it still runs in the sandbox.
    const command = {
      command: [
        ": > /proc/sys/kernel/hostname && echo truncated",
        "readlink /proc/self/ns/uts",
        `if [ "$(readlink /proc/self/ns/uts)" = "${hostUts}" ]; then echo shared; else hostname conch-sandboxed || echo refused; fi`,
        "uname -n",
      ].join("; "),
    };
    const call = toolCall(ws, "shell_command", command, { approver: "approve" });
    expect(call.text).toContain("/proc/sys/kernel/hostname: Read-only file system");
    expect(call.text).not.toContain("truncated");
    expect(call.text).not.toContain("shared");
    expect(call.text).toContain("refused");
    expect(call.text).toMatch(new RegExp(`\\nuts:\\[\\d+\\]\\n[^]*\\n${host}\\n`));
    expect(call.text).not.toContain(hostUts);
    expect(hostname()).toBe(host);
  });

  it.runIf(process.getuid?.() === 0)(
    "as root without CAP_SYS_ADMIN (a container's root) the sandbox still starts, /proc/sys read-only",
    () => {
      // A root without CAP_SYS_ADMIN cannot make a mount namespace alone; the sandbox makes it in a user
      // namespace of its own, as bwrap does.
      const args = JSON.stringify({
        command: ["python3", "-c", OPEN_FOR_WRITING, "/proc/sys/kernel/core_pattern"],
      });
      const run = spawnSync(
        "setpriv",
        [
          "--bounding-set",
          "-sys_admin",
          "--inh-caps",
          "-sys_admin",
          process.execPath,
          BIN,
          "tool",
          "call",
          "--json",
          "--approver",
          "deny",
          "shell",
          args,
        ],
        { cwd: ws.cwd, env: ws.env, encoding: "utf8", timeout: 60_000 },
      );
      expect([run.status, run.stderr]).toEqual([0, ""]);
      const text = (JSON.parse(run.stdout) as { text: string }).text;
      expect(outcomes(text)).toEqual({ "/proc/sys/kernel/core_pattern": "EROFS" });
    },
  );

  it.runIf(process.getuid?.() === 0)(
    "a /proc, /sys or cgroup2 mounted inside the workspace (a chroot's) stays read-only in the sandbox",
    () => {
      // In a private mount namespace of the host's, as in a chroot a build made in the workspace.
      const chroot = join(ws.cwd, "chroot");
      const script = [
        `mkdir -p ${chroot}/proc ${chroot}/sys ${chroot}/cgroup`,
        `mount -t proc proc ${chroot}/proc`,
        `mount -t sysfs sysfs ${chroot}/sys`,
        `mount -t cgroup2 cgroup2 ${chroot}/cgroup`,
        `mkdir -p ${chroot}/dev`,
        `mount -t devtmpfs devtmpfs ${chroot}/dev`,
        'exec "$@"',
      ].join(" && ");
      const files = [
        `${chroot}/proc/sys/kernel/core_pattern`,
        `${chroot}/proc/sys/kernel/hostname`,
        `${chroot}/sys/kernel/mm/transparent_hugepage/enabled`,
        `${chroot}/cgroup/cgroup.procs`,
        `${chroot}/cgroup/cgroup.subtree_control`,
      ];
      const before = hostValues(["/proc/sys/kernel/core_pattern", "/proc/sys/kernel/hostname"]);
      // A disk of this machine (sysfs names every block device; devtmpfs has a node for each).
      const disk = readdirSync("/sys/block").sort()[0];
      const devices = [`${chroot}/dev/null`, ...(disk === undefined ? [] : [`${chroot}/dev/${disk}`])];
      const args = JSON.stringify({ command: ["python3", "-c", OPEN_FOR_WRITING, ...files, ...devices] });
      const run = spawnSync(
        "unshare",
        [
          "-m",
          "--propagation",
          "private",
          "sh",
          "-c",
          script,
          "sh",
          process.execPath,
          BIN,
          "tool",
          "call",
          "--json",
          "--approver",
          "deny",
          "shell",
          args,
        ],
        { cwd: ws.cwd, env: ws.env, encoding: "utf8", timeout: 60_000 },
      );
      expect([run.status, run.stderr]).toEqual([0, ""]);
      const text = (JSON.parse(run.stdout) as { text: string }).text;
      // The host's devices are no device in the sandbox: bwrap binds everything nodev but its own /dev.
      expect(outcomes(text)).toEqual({
        ...Object.fromEntries(files.map((path) => [path, "EROFS"])),
        ...Object.fromEntries(devices.map((path) => [path, "EACCES"])),
      });
      expect(hostValues(["/proc/sys/kernel/core_pattern", "/proc/sys/kernel/hostname"])).toEqual(before);
    },
  );

  it.runIf(process.getuid?.() === 0)(
    "a file system the host mounted in /proc/sys (binfmt_misc's register runs programs as root) is hidden",
    () => {
      // In a private mount namespace of the host's, never the host's own: binfmt_misc mounted there, and
      // the CLI started in it, as on a host whose systemd mounts it.
      const script = [
        "mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc || exit 90",
        "test -e /proc/sys/fs/binfmt_misc/register || exit 91",
        'exec "$@"',
      ].join(" && ");
      const args = JSON.stringify({
        command:
          "ls -A /proc/sys/fs/binfmt_misc | wc -l; : > /proc/sys/fs/binfmt_misc/register; : > /proc/sys/fs/binfmt_misc/x",
      });
      const run = spawnSync(
        "unshare",
        [
          "-m",
          "--propagation",
          "private",
          "sh",
          "-c",
          script,
          "sh",
          process.execPath,
          BIN,
          "tool",
          "call",
          "--json",
          "--approver",
          "approve",
          "shell_command",
          args,
        ],
        { cwd: ws.cwd, env: ws.env, encoding: "utf8", timeout: 60_000 },
      );
      expect([run.status, run.stderr]).toEqual([0, ""]);
      const text = (JSON.parse(run.stdout) as { text: string }).text;
      // The sandbox's /proc is a fresh one, read-only: the host's binfmt_misc is not mounted in it.
      expect(text).toMatch(/Output:\n0\n/);
      expect(text).toContain("/proc/sys/fs/binfmt_misc/register: No such file or directory");
      expect(text).toContain("/proc/sys/fs/binfmt_misc/x: No such file or directory");
    },
  );
});
