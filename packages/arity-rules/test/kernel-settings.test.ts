// Issue 20, §1: a command that changes a setting of the running kernel is asked about. Classification
// only: nothing here runs what it classifies.
import { describe, expect, it } from "vitest";
import { DANGEROUS_REASONS, dangerousCommandMatch } from "../src/index.js";

const bash = (script: string): string[] => ["bash", "-lc", script];

const KERNEL_SETTING: readonly (readonly string[])[] = [
  ["sysctl", "-w", "kernel.core_pattern=|/tmp/x"],
  ["sysctl", "kernel.randomize_va_space=0"],
  ["sysctl", "-q", "fs.suid_dumpable=2"],
  ["sysctl", "-qw", "vm.overcommit_memory=1"],
  ["sysctl", "--write", "kernel.hostname=x"],
  ["sysctl", "--wr", "kernel.hostname=x"],
  ["sysctl", "-p"],
  ["sysctl", "-p", "/etc/sysctl.d/99-x.conf"],
  ["sysctl", "-p/tmp/x.conf"],
  ["sysctl", "-f", "x.conf"],
  ["sysctl", "--load=x.conf"],
  ["sysctl", "--load", "x.conf"],
  ["sysctl", "--system"],
  ["sysctl", "--sys"],
  ["sysctl", "--", "kernel.panic=1"],
  ["/usr/sbin/sysctl", "-w", "kernel.modprobe=/tmp/x"],
  ["sudo", "sysctl", "-w", "net.ipv4.ip_forward=1"],
  ["env", "LC_ALL=C", "timeout", "5", "sysctl", "-p"],
  bash("sysctl -w kernel.domainname=x"),
  bash("echo '|/tmp/x' > /proc/sys/kernel/core_pattern"),
  bash("echo 0 >> /proc/sys/kernel/randomize_va_space"),
  bash("echo 1 >| /proc/sys/vm/overcommit_memory"),
  bash("echo 1 &> /proc/sys/fs/protected_symlinks"),
  bash("echo 2 1<> /proc/sys/fs/suid_dumpable"),
  bash("exec 3>/proc/sys/kernel/hostname"),
  bash("echo b > /proc/sysrq-trigger"),
  bash("echo f > /proc/irq/24/smp_affinity"),
  bash("echo ':x:M::x::/tmp/i:' > /proc/sys/fs/binfmt_misc/register"),
  bash("echo never > /sys/kernel/mm/transparent_hugepage/enabled"),
  bash("echo /tmp/x > /sys/fs/cgroup/memory/release_agent"),
  bash("echo x > /proc/self/root/proc/sys/kernel/core_pattern"),
  bash("echo x > /proc/1/root/sys/power/state"),
  bash("echo x > //proc/./sys/kernel/../kernel/core_pattern"),
  bash("echo x > /proc/sys"),
  bash("{ echo 1; } > /proc/sys/kernel/panic"),
  bash("cd /tmp && echo 1 > /proc/sys/net/ipv4/ip_forward"),
  bash("sh -c 'echo 1 > /proc/sys/kernel/panic'"),
  bash("echo $(echo 1 > /proc/sys/kernel/panic)"),
  bash("echo 1 | tee /proc/sys/vm/overcommit_memory"),
  bash("echo 1 | sudo tee -a /proc/sys/vm/overcommit_memory >/dev/null"),
  ["tee", "--append", "/sys/power/state"],
  ["cp", "pattern", "/proc/sys/kernel/core_pattern"],
  ["cp", "-t", "/proc/sys/kernel", "core_pattern"],
  ["cp", "-vt/proc/sys/kernel", "core_pattern"],
  ["mv", "--target-directory=/sys/kernel", "uevent_helper"],
  ["install", "-m", "644", "helper", "/sys/kernel/uevent_helper"],
  ["ln", "-sf", "x", "/proc/sys/kernel/x"],
  ["truncate", "-s", "0", "/proc/sys/kernel/core_pattern"],
  // The links of /proc and /dev, walked as the kernel walks them: a root's `..` is the root, a thread
  // has a root of its own, /dev/fd is /proc/self/fd, and `..` out of a descriptor or a cwd is anywhere.
  bash("echo x > /proc/self/root/../proc/sys/kernel/core_pattern"),
  bash("echo x > /proc/1/task/1/root/proc/sys/kernel/core_pattern"),
  bash("echo x > /proc/self/task/7/root/sys/power/state"),
  bash("echo x > /proc/thread-self/root/../proc/sysrq-trigger"),
  bash("echo x > /dev/fd/../../sysrq-trigger"),
  bash("exec 3</proc/sys; echo x > /proc/self/fd/3/../sysrq-trigger"),
  bash("echo x > /proc/self/cwd/../../../proc/sys/kernel/panic"),
  bash("echo x > /proc/1/task/1/cwd/../sysrq-trigger"),
  bash("echo 1 > /proc/self/net/ipv4/x"),
  bash("echo 1 > /proc/self/task/7/net/x"),
  ["tee", "/proc/1/root/../sys/kernel/uevent_helper"],
  // bash expands globs and braces in a redirection's target, and writes the file when they make one word.
  bash("echo x > /proc/sys/kernel/core_patter?"),
  bash("echo x > /proc/sys/kernel/core_pat*"),
  bash("echo x > /proc/s[y]s/kernel/core_pattern"),
  bash("echo x > /*/sys/kernel/core_pattern"),
  bash("echo x > /s?s/power/state"),
  bash("echo x > /proc/sysrq-trigge[r]"),
  bash("echo x > /proc/sys/kernel/core_patter{n..n}"),
  bash("shopt -s extglob; echo x > /proc/sys/kernel/@(core_pattern)"),
  bash('echo x > "/proc/sys/kernel/"core_patter?'),
  bash('echo x > $"/proc/sys/kernel/core_pattern"'),
  bash("echo x > /proc/*/root/proc/sys/kernel/core_pattern"),
  bash("echo x > /proc/self/root/../p?oc/sys/kernel/core_pattern"),
  bash("echo x | tee /*/sys/kernel/core_pattern"),
  ["cp", "x", "/p*/sys/kernel/core_pattern"],
  // Programs that write the file an option or a later operand names.
  ["sort", "-o", "/proc/sys/kernel/core_pattern", "pattern"],
  ["sort", "-uo/proc/sys/kernel/core_pattern", "pattern"],
  ["sort", "--output=/proc/sys/kernel/core_pattern", "pattern"],
  ["uniq", "pattern", "/proc/sys/kernel/core_pattern"],
  ["curl", "-sSo", "/proc/sys/kernel/core_pattern", "http://127.0.0.1/x"],
  ["curl", "--output", "/sys/kernel/uevent_helper", "http://127.0.0.1/x"],
  ["wget", "-qO", "/proc/sys/kernel/core_pattern", "http://127.0.0.1/x"],
  ["wget", "--output-document=/proc/sys/kernel/modprobe", "http://127.0.0.1/x"],
  ["systemd-sysctl"],
  ["/usr/lib/systemd/systemd-sysctl", "99-x.conf"],
  ["sudo", "/lib/systemd/systemd-sysctl", "--prefix", "kernel"],
];

const NOT_KERNEL_SETTING: readonly (readonly string[])[] = [
  ["sysctl", "-a"],
  ["sysctl", "kernel.hostname"],
  ["sysctl", "-n", "vm.overcommit_memory"],
  ["sysctl", "-a", "-r", "x=y"],
  ["sysctl", "--pattern", "x=y", "-a"],
  ["cat", "/proc/sys/kernel/core_pattern"],
  ["cp", "/proc/sys/kernel/hostname", "hostname.txt"],
  ["rsync", "-t", "/sys/x", "copy"],
  ["tee", "out.txt"],
  bash("cat /proc/sys/kernel/hostname > out.txt"),
  bash("grep . /sys/class/net/lo/mtu 2>/dev/null"),
  bash("echo 1000 > /proc/self/oom_score_adj"),
  bash("echo x > /proc/thread-self/comm"),
  bash("echo x > /proc/$$/comm"),
  bash("echo x > /proc/self/fd/1"),
  bash("echo x > /system/x"),
  bash("echo x > /processes"),
  bash("echo x > proc/sys/kernel/x"),
  bash("echo x > /proc/net/../comm"),
  bash("echo x > /proc/self/task/7/comm"),
  bash("echo x > /dev/fd/2"),
  bash("echo x > /proc/self/cwd/out.txt"),
  bash("echo x > /tmp/*.log"),
  bash("echo x > /home/*/notes.txt"),
  bash("echo x > out-[0-9].txt"),
  bash('echo x > "$out"'),
  bash("cp x /tmp/*"),
  ["sort", "-o", "sorted.txt", "/proc/sys/kernel/hostname"],
  ["uniq", "/proc/sys/kernel/hostname", "out.txt"],
  ["curl", "-o", "out.txt", "http://127.0.0.1/proc/sys/x"],
  ["wget", "-O", "-", "http://127.0.0.1/x"],
  ["systemd-sysctl", "--cat-config"],
  ["systemd-sysctl", "--tldr"],
  ["systemd-sysctl", "--version"],
];

describe("kernel settings (dangerousCommandMatch)", () => {
  for (const argv of KERNEL_SETTING) {
    it(`${JSON.stringify(argv)} changes a kernel setting`, async () => {
      const match = await dangerousCommandMatch(argv);
      expect(match?.kind).toBe("kernel-setting");
      expect(match?.reason).toBe(DANGEROUS_REASONS["kernel-setting"]);
    });
  }

  for (const argv of NOT_KERNEL_SETTING) {
    it(`${JSON.stringify(argv)} does not`, async () => {
      expect(await dangerousCommandMatch(argv)).toBeNull();
    });
  }

  it("names the command and the redirection that writes", async () => {
    expect(await dangerousCommandMatch(bash("true; echo 0 >> /proc/sys/kernel/randomize_va_space"))).toEqual({
      kind: "kernel-setting",
      argv: ["echo", "0", ">>", "/proc/sys/kernel/randomize_va_space"],
      reason: DANGEROUS_REASONS["kernel-setting"],
    });
    expect(await dangerousCommandMatch(["sudo", "sysctl", "-w", "kernel.panic=1"])).toEqual({
      kind: "kernel-setting",
      argv: ["sysctl", "-w", "kernel.panic=1"],
      reason: DANGEROUS_REASONS["kernel-setting"],
    });
  });
});
