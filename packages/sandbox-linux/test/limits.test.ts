// Limits on what one command consumes, for real: a memory hog, a fork bomb and a CPU quota in a cgroup of
// the command's own (where this user may make one: root here, cgroup v1 or v2), files bounded by
// RLIMIT_FSIZE in the workspace and in /tmp; each stopped with the limit named, nothing left running,
// the groups removed. As uid 65534 no cgroup can be made: the suite checks that this is said, and that
// the file limit still holds.
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmdirSync,
  rmSync,
  statfsSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import type { LocalSandboxBackend } from "@conch/sandbox-core";
import { cgroupEscapeScript, describeWith, type Need } from "@conch/test-config";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  createLandlockBackend,
  createLinuxBackend,
  describeLimits,
  type ResourceLimits,
} from "../src/index.js";
import { boundWorkspaceTmp, cgroupHierarchy } from "../src/limits/limits.js";
import { oneShot, rules, writableRoots } from "./sandbox-helpers.js";

const LIMITS: ResourceLimits = { memoryMb: 64, processes: 40, cpuPercent: 10, fileMb: 1 };
const TMPFS_MAGIC = 0x01021994;

const cases: [string, Need[], (limits: ResourceLimits) => LocalSandboxBackend][] = [
  ["bwrap", ["linux", "bwrap", "python3"], (limits) => createLinuxBackend({ sharedNetwork: false, limits })],
  ["landlock", ["linux", "landlock", "python3"], (limits) => createLandlockBackend({ limits })],
];

/** The command groups Conch has made and not removed, in every hierarchy it uses. */
function leftGroups(): string[] {
  const hierarchy = cgroupHierarchy();
  const parents =
    hierarchy.kind === "v2"
      ? [hierarchy.root]
      : hierarchy.kind === "v1"
        ? Object.values(hierarchy.roots)
        : [];
  return parents
    .filter((dir) => existsSync(dir))
    .flatMap((dir) => readdirSync(dir).filter((name) => name.startsWith(`${process.pid}-`)));
}

for (const [name, needs, make] of cases) {
  describeWith(needs, `limits under ${name}`, () => {
    let cwd: string;
    let tmp: string;
    const hierarchy = cgroupHierarchy();
    const run = (script: string) =>
      oneShot(
        make(LIMITS),
        cwd,
        script,
        rules({
          writableRoots: writableRoots(cwd),
          tmp: { kind: "private", source: tmp, targets: ["/tmp"] },
        }),
      );
    beforeAll(() => {
      cwd = mkdtempSync("/var/tmp/conch-limits-");
      tmp = mkdtempSync("/var/tmp/conch-limits-tmp-");
    });
    afterAll(() => {
      rmSync(cwd, { recursive: true, force: true });
      rmSync(tmp, { recursive: true, force: true });
    });

    it("a file past file_mb is cut, in the workspace and in the temporary directory, and named", async () => {
      for (const target of [join(cwd, "big.bin"), `"\${TMPDIR:-/tmp}/big.bin"`]) {
        const ran = await run(`exec dd if=/dev/zero of=${target} bs=1M count=5 status=none`);
        expect(ran.report).toContain(`limit file ${1024 * 1024}`);
        expect(ran.code === 153 || ran.code === null).toBe(true);
      }
      expect(statSync(join(cwd, "big.bin")).size).toBeLessThanOrEqual(1024 * 1024);
      expect(statSync(join(tmp, "big.bin")).size).toBeLessThanOrEqual(1024 * 1024);
      // Nor past it unseen: blocks reserved beyond a file's end (fallocate --keep-size) are refused.
      const reserved = await run("touch kept.bin && fallocate -n -l 8M kept.bin || echo refused-fallocate");
      expect(reserved.output).toContain("refused-fallocate");
      expect(statSync(join(cwd, "kept.bin")).blocks * 512).toBeLessThanOrEqual(1024 * 1024);
      // And an exit status of 153 (128 + SIGXFSZ) is no proof of a limit.
      expect((await run("exit 153")).report).not.toContain("limit");
    });

    // Many files of 512 KiB each (each under file_mb), 4 MiB in all, into /tmp.
    const FILLER =
      'for i in 1 2 3 4 5 6 7 8; do dd if=/dev/zero of="${TMPDIR:-/tmp}/f$i" bs=512K count=1 status=none || break; done; echo filled';
    if (process.getuid?.() === 0) {
      it("a disk filler in the workspace's /tmp stops at tmp_mb (a tmpfs of that size), and is named", async () => {
        const source = mkdtempSync("/var/tmp/conch-limits-tmpfs-");
        try {
          // As the workspace's setup does, before the sandbox holds the directory.
          expect(boundWorkspaceTmp(source, 2)).toBeNull();
          const ran = await oneShot(
            make({ tmpMb: 2, fileMb: 1 }),
            cwd,
            FILLER,
            rules({ writableRoots: writableRoots(cwd), tmp: { kind: "private", source, targets: ["/tmp"] } }),
          );
          expect(ran.output).toContain("No space left on device");
          expect(ran.report).toContain(`limit tmp ${2 * 1024 * 1024}`);
          expect(statfsSync(source).type).toBe(TMPFS_MAGIC);
          // The host's disk got none of it; the files stay for the workspace's next command.
          expect(readdirSync(source).length).toBeGreaterThan(0);
          // A command that leaves /tmp with room is not said to have reached anything.
          const next = await oneShot(
            make({ tmpMb: 2, fileMb: 1 }),
            cwd,
            'rm -f "${TMPDIR:-/tmp}"/f*; echo ok > "${TMPDIR:-/tmp}/small"',
            rules({ writableRoots: writableRoots(cwd), tmp: { kind: "private", source, targets: ["/tmp"] } }),
          );
          expect(next.report).not.toContain("limit tmp");
        } finally {
          spawnSync("umount", [source]);
          rmSync(source, { recursive: true, force: true });
        }
      });
      it("the bound is mounted by the system's mount, never one a command could put on PATH", () => {
        const source = mkdtempSync("/var/tmp/conch-limits-tmpfs-");
        const bin = mkdtempSync("/var/tmp/conch-limits-bin-");
        const marker = join(bin, "ran");
        writeFileSync(join(bin, "mount"), `#!/bin/sh\ntouch ${marker}\n`, { mode: 0o755 });
        const path = process.env.PATH;
        process.env.PATH = `${bin}:${path ?? ""}`;
        try {
          expect(boundWorkspaceTmp(source, 3)).toBeNull();
          expect(existsSync(marker)).toBe(false);
          expect(statfsSync(source).type).toBe(TMPFS_MAGIC);
        } finally {
          process.env.PATH = path;
          spawnSync("/usr/bin/umount", [source]);
          rmSync(source, { recursive: true, force: true });
          rmSync(bin, { recursive: true, force: true });
        }
      });
    } else {
      it("another user's persistent /tmp is not bounded as a whole, and that is said", () => {
        const source = mkdtempSync("/var/tmp/conch-limits-tmpfs-");
        try {
          expect(boundWorkspaceTmp(source, 2)).toMatch(/^only root can mount the bound/);
          expect(describeLimits({ tmpMb: 2 }).join("\n")).toContain(
            "workspace-write's persistent /tmp is NOT bounded as a whole for a user other than root",
          );
        } finally {
          rmSync(source, { recursive: true, force: true });
        }
      });
    }
    if (name === "bwrap") {
      it("read-only mode's fresh /tmp stops at tmp_mb, and is named", async () => {
        const ran = await oneShot(
          make({ tmpMb: 2, fileMb: 1 }),
          cwd,
          FILLER,
          rules({ writableRoots: [], tmp: { kind: "empty", targets: ["/tmp"] } }),
        );
        expect(ran.output).toContain("No space left on device");
        expect(ran.report).toContain(`limit tmp ${2 * 1024 * 1024}`);
      });
    }

    const expected = process.env.CONCH_EXPECT_CGROUPS;
    if (expected !== undefined) {
      it("the command groups go where this machine's setup says (CONCH_EXPECT_CGROUPS)", () => {
        const how = hierarchy.kind === "none" ? hierarchy.why : describeLimits(LIMITS)[0];
        expect(`${hierarchy.kind}: ${how}`).toMatch(new RegExp(`^${expected.split("-")[0]}: `));
      });
    }

    if (hierarchy.kind === "none") {
      it("without a cgroup this user may make, says that memory, processes and CPU are not limited", async () => {
        expect(describeLimits(LIMITS)[0]).toMatch(
          /^limits: memory 64 MB, 40 processes, CPU 10% of a core do NOT hold here: /,
        );
        const ran = await run("echo still runs");
        expect(ran.output).toContain("still runs");
      });
      return;
    }

    it("a group its helper never removed (killed first) is swept after a minute, a live one never", async () => {
      const parent = hierarchy.kind === "v2" ? hierarchy.root : hierarchy.roots.pids;
      mkdirSync(parent, { recursive: true });
      const stale = join(parent, `${process.pid}-${(Date.now() - 120_000).toString(36)}-0000stale`);
      const fresh = join(parent, `${process.pid}-${Date.now().toString(36)}-0000fresh`);
      mkdirSync(stale);
      mkdirSync(fresh);
      try {
        await run("true");
        expect(existsSync(stale)).toBe(false);
        expect(existsSync(fresh)).toBe(true);
      } finally {
        for (const dir of [stale, fresh]) if (existsSync(dir)) rmdirSync(dir);
      }
    });

    it("a memory hog is killed at memory_mb, and the limit named", async () => {
      const ran = await run("python3 -c 'a = bytearray(400 * 1024 * 1024); print(\"survived\")'");
      expect(ran.output).not.toContain("survived");
      expect(ran.report).toContain(`limit memory ${64 * 1024 * 1024}`);
      expect(leftGroups()).toEqual([]);
    });

    it("a command cannot loosen its own group's limit or leave the group (its files are this user's)", async () => {
      const ran = await run(cgroupEscapeScript(400));
      expect(ran.output).not.toMatch(/LOOSENED|MOVED|survived/);
      expect(ran.output).toMatch(/tried [1-9]/);
      expect(ran.report).toContain(`limit memory ${64 * 1024 * 1024}`);
    });

    it("a fork bomb stops at processes, the limit is named and nothing is left running", async () => {
      const ran = await run("bomb() { bomb | bomb & }; bomb; sleep 1; echo after");
      expect(ran.report).toContain("limit processes 40");
      expect(leftGroups()).toEqual([]);
    });

    it("the command runs in its own group with the CPU quota of cpu_percent", async () => {
      const ran = await run(
        "g=$(grep -E ':(cpu|cpu,cpuacct|cpuacct,cpu):|^0::' /proc/self/cgroup | head -1 | cut -d: -f3); " +
          'cat "/sys/fs/cgroup/cpu$g/cpu.cfs_quota_us" 2>/dev/null || cut -d" " -f1 "/sys/fs/cgroup$g/cpu.max"',
      );
      expect(ran.output.trim()).toBe("10000");
      expect(describeLimits(LIMITS)[0]).toContain("per command, in a cgroup of its own");
    });
  });
}
