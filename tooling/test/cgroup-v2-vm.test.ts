// Limits under cgroup v2, for real: this machine mounts cgroup v1, so the suites that stop a memory hog,
// a fork bomb and a CPU hog run again inside a Debian kernel booted with cgroup v2 alone
// (tooling/vm/linux-vm.mjs: qemu, this machine's files shared read-only). Four setups, each the way a
// host hands cgroups to Conch, checked by the same suites (told where the groups must go by
// CONCH_EXPECT_CGROUPS) and by what the machine's cgroup files say afterwards:
// - root at the top of the hierarchy (a systemd host's service);
// - root at the top of a container's cgroup namespace, whose processes must first leave for a leaf;
// - uid 65534 in a cgroup delegated to it (what `systemd-run --user --scope -p Delegate=yes` gives);
// - uid 65534 in a cgroup it does not own: nothing limited, and `conch sandbox --check` says why.
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { describeWith } from "../test-config/src/index.js";
import { runInVm } from "../vm/linux-vm.mjs";

const ROOT = join(import.meta.dirname, "..", "..");
const VITEST = `${ROOT}/node_modules/vitest/vitest.mjs`;
// Emulated, the machine runs about ten times slower than this one (a fork bomb's refused forks, which
// bash retries with growing pauses, take 15-60 s there): the suites' own bounds are raised to match.
const VITEST_RUN = `node ${VITEST} run --configLoader runner --reporter verbose --testTimeout 300000 --hookTimeout 300000`;
const CLI_SUITE = `cd ${ROOT}/apps/cli && ${VITEST_RUN} test/security/limits.test.ts`;
const LINUX_SUITE = `cd ${ROOT}/packages/sandbox-linux && ${VITEST_RUN} test/limits.test.ts`;
const NOBODY = "setpriv --reuid=65534 --regid=65534 --clear-groups --";

// Each phase's output and exit code go to /job/NAME.out and /job/NAME.exit.
const JOB = `
NOBODY="${NOBODY}"
export NO_COLOR=1 FORCE_COLOR=0
# Bounded: a phase that hangs is cut off and named by its exit code (124), the machine's log kept.
phase() { name=$1; shift; timeout -k 10 900 "$@" > /job/$name.out 2>&1; echo $? > /job/$name.exit; dmesg | tail -n 40 > /job/$name.dmesg; }
G=/sys/fs/cgroup
dirs() { find "$1" -mindepth 1 -maxdepth 1 -type d -printf '%f\n'; }

# 1. root, at the top of the hierarchy (this shell is in the root group).
export CONCH_EXPECT_CGROUPS=v2-top
phase top-linux sh -c '${LINUX_SUITE}'
phase top-cli sh -c '${CLI_SUITE}'
find $G/conch -mindepth 1 -type d > /job/top-left.txt

# 2. root at the top of a container's cgroup namespace, in the namespace's root group with others.
mkdir $G/ctr
echo $$ > $G/ctr/cgroup.procs
sleep 600 & echo $! > /job/ns-neighbour.pid
export CONCH_EXPECT_CGROUPS=v2-namespace
phase ns-cli unshare --cgroup --mount sh -c 'umount /sys/fs/cgroup && mount -t cgroup2 cgroup2 /sys/fs/cgroup && cat /proc/self/cgroup > /job/ns-self.txt && ${CLI_SUITE}'
cat $G/ctr/cgroup.procs > /job/ns-ctr-procs.txt
cat $G/ctr/conch-host/cgroup.procs > /job/ns-host-procs.txt
cat $G/ctr/cgroup.subtree_control > /job/ns-subtree.txt
kill $(cat /job/ns-neighbour.pid)
echo $$ > $G/cgroup.procs

# 3. uid 65534 in a group delegated to it, as systemd does (the group, cgroup.procs, cgroup.threads and
#    cgroup.subtree_control are the user's; its limits are not), alone in it.
mkdir $G/nobody.scope
chown 65534:65534 $G/nobody.scope $G/nobody.scope/cgroup.procs $G/nobody.scope/cgroup.threads $G/nobody.scope/cgroup.subtree_control
echo 512M > $G/nobody.scope/memory.max
mkdir -p /var/tmp/nobody-home && chown 65534:65534 /var/tmp/nobody-home
export CONCH_EXPECT_CGROUPS=v2-delegated HOME=/var/tmp/nobody-home XDG_CACHE_HOME=/var/tmp/nobody-home/.cache
phase delegated-cli sh -c 'echo $$ > /sys/fs/cgroup/nobody.scope/cgroup.procs && exec ${NOBODY} sh -c "${CLI_SUITE}"'
# A later process of that user starts in its leaf (the group now hands controllers down, so holds none).
phase delegated-linux sh -c 'echo $$ > /sys/fs/cgroup/nobody.scope/conch-host/cgroup.procs && exec ${NOBODY} sh -c "${LINUX_SUITE}"'
cat $G/nobody.scope/memory.max > /job/delegated-memory-max.txt
dirs $G/nobody.scope > /job/delegated-children.txt
find $G/nobody.scope/conch -mindepth 1 -type d > /job/delegated-left.txt
cat $G/nobody.scope/conch-host/cgroup.procs > /job/delegated-host-procs.txt

# 4. uid 65534 in a group it does not own.
mkdir $G/other.scope
export CONCH_EXPECT_CGROUPS=none
phase undelegated-cli sh -c 'echo $$ > /sys/fs/cgroup/other.scope/cgroup.procs && exec ${NOBODY} sh -c "${CLI_SUITE}"'
dirs $G/other.scope > /job/undelegated-children.txt
mkdir -p /var/tmp/nobody-home/.config/conch
echo 'limits = { memory_mb = 64, processes = 40 }' > /var/tmp/nobody-home/.config/conch/config.toml
chown -R 65534:65534 /var/tmp/nobody-home
CHECK="cd /var/tmp/nobody-home && XDG_CONFIG_HOME=/var/tmp/nobody-home/.config node ${ROOT}/apps/cli/dist/bin.js sandbox --check"
sh -c 'echo $$ > /sys/fs/cgroup/other.scope/cgroup.procs && exec '"$NOBODY"' sh -c "$0"' "$CHECK" > /job/undelegated-check.txt 2>&1

# 5. uid 65534 in a delegated group that also holds another user's process (root's): not moved.
mkdir $G/shared.scope
chown 65534:65534 $G/shared.scope $G/shared.scope/cgroup.procs $G/shared.scope/cgroup.threads $G/shared.scope/cgroup.subtree_control
sh -c 'echo $$ > /sys/fs/cgroup/shared.scope/cgroup.procs && exec sleep 600' & ROOTS=$!
sleep 1
sh -c 'echo $$ > /sys/fs/cgroup/shared.scope/cgroup.procs && exec '"$NOBODY"' sh -c "$0"' "$CHECK" > /job/shared-check.txt 2>&1
dirs $G/shared.scope > /job/shared-children.txt
# The same where this user cannot see root's process (/proc mounted hidepid=2): still not moved.
cat > /tmp/hidden.sh <<'HIDDEN'
echo $$ > /sys/fs/cgroup/shared.scope/cgroup.procs
mount -t proc -o hidepid=2 proc /proc
exec setpriv --reuid=65534 --regid=65534 --clear-groups -- sh -c "ls /proc/$2 >/dev/null 2>&1 && echo visible; $1"
HIDDEN
unshare -m sh /tmp/hidden.sh "$CHECK" "$ROOTS" > /job/shared-hidden-check.txt 2>&1
dirs $G/shared.scope > /job/shared-hidden-children.txt
kill $ROOTS

# 6. uid 65534 in a delegated group given memory and pids but not cpu: cpu_percent said not to hold.
mkdir $G/nocpu.slice && echo "+memory +pids" > $G/nocpu.slice/cgroup.subtree_control
mkdir $G/nocpu.slice/nobody.scope
chown 65534:65534 $G/nocpu.slice/nobody.scope $G/nocpu.slice/nobody.scope/cgroup.procs $G/nocpu.slice/nobody.scope/cgroup.threads $G/nocpu.slice/nobody.scope/cgroup.subtree_control
mkdir -p /var/tmp/nobody-cpu/.config/conch /var/tmp/nobody-cpu/ws
echo 'limits = { memory_mb = 64, cpu_percent = 10 }' > /var/tmp/nobody-cpu/.config/conch/config.toml
chown -R 65534:65534 /var/tmp/nobody-cpu
CPUCHECK="cd /var/tmp/nobody-cpu/ws && HOME=/var/tmp/nobody-cpu XDG_CONFIG_HOME=/var/tmp/nobody-cpu/.config node ${ROOT}/apps/cli/dist/bin.js sandbox --check"
sh -c 'echo $$ > /sys/fs/cgroup/nocpu.slice/nobody.scope/cgroup.procs && exec '"$NOBODY"' sh -c "$0"' "$CPUCHECK" > /job/nocpu-check.txt 2>&1

# 7. root, where the limits hold but a command's group cannot be made (no more groups allowed under
#    conch): the command is refused, not run unlimited.
echo 0 > $G/conch/cgroup.max.descendants
mkdir -p /var/tmp/root-closed/home/.config/conch /var/tmp/root-closed/ws
echo 'limits = { memory_mb = 64 }' > /var/tmp/root-closed/home/.config/conch/config.toml
(cd /var/tmp/root-closed/ws && HOME=/var/tmp/root-closed/home XDG_CONFIG_HOME=/var/tmp/root-closed/home/.config XDG_STATE_HOME=/var/tmp/root-closed/home/.local/state node ${ROOT}/apps/cli/dist/bin.js tool call --approver deny shell_command '{"command":"touch ran"}') > /job/closed.txt 2>&1
ls /var/tmp/root-closed/ws > /job/closed-ws.txt
echo max > $G/conch/cgroup.max.descendants
echo finished
`;

type Run = { exitCode: number | null; output: string; console: string; files: Record<string, string> };

// .ci/run's second pass (Node 24) sets CONCH_VM_RAN: the kernel's side is the same, and the machine
// takes ten minutes; said as a skipped test with the reason, never silently.
const ran = process.env.CONCH_VM_RAN;
const describeVm =
  ran === undefined
    ? describeWith
    : (_needs: unknown, name: string) =>
        describe(name, () => it.skip(`ran already in this CI run (${ran})`, () => {}));

describeVm(["linux", "qemu"], "limits under cgroup v2 (in a virtual machine)", () => {
  let run: Run;
  beforeAll(async () => {
    run = (await runInVm(JOB, { timeoutMs: 40 * 60_000 })) as Run;
    if (run.exitCode === null) throw new Error(`the machine never finished; its console:\n${run.console}`);
  }, 45 * 60_000);

  /** A phase's suite passed, every test of it run. */
  function passed(phase: string): void {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the terminal's colour codes.
    const output = (run.files[`${phase}.out`] ?? "").replace(/\x1b\[[0-9;]*m/g, "");
    expect(`${phase}: exit ${run.files[`${phase}.exit`]?.trim()}\n${output}`).toMatch(/^[^\n]*: exit 0\n/);
    expect(output).toMatch(/Tests\s+\S*\d+ passed/);
    expect(output).not.toMatch(/skipped|todo/);
  }

  it("as root at the top of the hierarchy: a memory hog, a fork bomb and a CPU quota held, nothing left", () => {
    passed("top-linux");
    passed("top-cli");
    expect(run.files["top-left.txt"]?.trim()).toBe("");
  });

  it("as root in a container's cgroup namespace: its processes moved into a leaf, then limits held", () => {
    passed("ns-cli");
    expect(run.files["ns-self.txt"]?.trim()).toBe("0::/");
    // The namespace's root group holds no process now, and hands memory and pids down.
    expect(run.files["ns-ctr-procs.txt"]?.trim()).toBe("");
    expect(run.files["ns-subtree.txt"]).toMatch(/\bmemory\b.*\bpids\b|\bpids\b.*\bmemory\b/);
    // The container's other process was moved into conch-host with Conch, not killed.
    const neighbour = run.files["ns-neighbour.pid"]?.trim() ?? "?";
    expect(run.files["ns-host-procs.txt"]?.split("\n")).toContain(neighbour);
  });

  it("as uid 65534 in a delegated cgroup: limits held inside it, its own limit untouched", () => {
    passed("delegated-cli");
    passed("delegated-linux");
    expect(run.files["delegated-memory-max.txt"]?.trim()).toBe(String(512 * 1024 * 1024));
    expect(run.files["delegated-children.txt"]?.split("\n").filter(Boolean).sort()).toEqual([
      "conch",
      "conch-host",
    ]);
    expect(run.files["delegated-left.txt"]?.trim()).toBe("");
  });

  it("as uid 65534 in a cgroup not delegated to it: nothing made, and --check says why", () => {
    passed("undelegated-cli");
    expect(run.files["undelegated-children.txt"]?.trim()).toBe("");
    expect(run.files["undelegated-check.txt"]).toContain(
      "limits: memory 64 MB, 40 processes do NOT hold here: /sys/fs/cgroup (cgroup v2) is not writable by this user, and this process's cgroup (/other.scope) is not delegated to it: start Conch in a delegated scope of its own (systemd-run --user --scope -p Delegate=yes conch …), or as root",
    );
  });

  it("as uid 65534 in a delegated cgroup holding another user's process: not moved, and said", () => {
    expect(run.files["shared-check.txt"]).toMatch(
      /limits: memory 64 MB, 40 processes do NOT hold here: this process's delegated cgroup \(\/shared\.scope\) also holds another user's processes \(pid \d+\), which Conch will not move/,
    );
    expect(run.files["shared-children.txt"]?.trim()).toBe("");
    // Where root's process cannot be seen by this user, it is still there, and still not moved.
    expect(run.files["shared-hidden-check.txt"]).not.toContain("visible");
    expect(run.files["shared-hidden-check.txt"]).toMatch(
      /do NOT hold here: this process's delegated cgroup \(\/shared\.scope\) also holds another user's processes/,
    );
    expect(run.files["shared-hidden-children.txt"]?.trim()).toBe("");
  });

  it("as uid 65534 in a delegated cgroup without the cpu controller: cpu_percent said not to hold", () => {
    expect(run.files["nocpu-check.txt"]).toContain(
      "limits: CPU 10% of a core does NOT hold here: the cgroup Conch uses (/sys/fs/cgroup/nocpu.slice/nobody.scope) was given no cpu controller (systemd: Delegate=memory pids cpu)",
    );
    expect(run.files["nocpu-check.txt"]).toMatch(
      /limits: memory 64 MB, \d+ processes per command, in a cgroup of its own \(v2, in this user's delegated cgroup \/nocpu\.slice\/nobody\.scope/,
    );
  });

  it("as root, where the limits hold but the command's group cannot be made: refused, not run unlimited", () => {
    expect(run.files["closed.txt"]).toContain("the command's cgroup for its limits could not be made");
    expect(run.files["closed-ws.txt"]?.trim()).toBe("");
    expect(run.output).toContain("finished");
  });
});
