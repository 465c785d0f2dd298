// Limits through the real conch: the user config's `limits`, a memory hog, a fork bomb and a file past
// its limit, each stopped with a text that names the limit; `conch sandbox --check` says which hold.
// Root may make cgroups here (memory and processes limited); uid 65534 may not (said, and files are
// still bounded).
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { cgroupEscapeScript, describeWith } from "@conch/test-config";
import { afterEach, beforeEach, expect, it } from "vitest";
import { conch, replay, toolCall, userConfig, type Workspace, workspace } from "./harness.js";

let ws: Workspace;
beforeEach(() => {
  ws = workspace();
  userConfig(ws, ["limits = { memory_mb = 64, processes = 40, file_mb = 1 }"]);
});
afterEach(() => ws.cleanup());

// Where a command's cgroup should go, when the machine's setup says (tooling/test/cgroup-v2-vm.test.ts
// runs this suite on cgroup v2 machines: "v2-top", "v2-namespace", "v2-delegated", "none"); otherwise
// root may make cgroups and another user may not, as on this cgroup v1 machine.
const EXPECTED = process.env.CONCH_EXPECT_CGROUPS;
const HOW: Record<string, string> = {
  "v2-top": "(v2, at the top of the hierarchy)",
  "v2-namespace": "(v2, at the top of this container's cgroup namespace",
  "v2-delegated": "(v2, in this user's delegated cgroup",
};

/** Whether this user may make cgroups where Conch makes them. */
function cgroupsWritable(): boolean {
  if (EXPECTED !== undefined) return EXPECTED !== "none";
  return process.getuid?.() === 0 && existsSync("/sys/fs/cgroup");
}

/** The `conch` groups holding command groups, anywhere in the hierarchies (a delegated one is deeper). */
function conchParents(dir = "/sys/fs/cgroup", depth = 0): string[] {
  if (depth > 4 || !existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) =>
      entry.name === "conch" ? [join(dir, entry.name)] : conchParents(join(dir, entry.name), depth + 1),
    );
}

describeWith(["linux", "bwrap", "python3"], "limits on what a command consumes", () => {
  it("conch sandbox --check says which limits hold here", () => {
    const run = conch(ws, ["sandbox", "--check"]);
    expect(run.stdout).toContain("conch sandbox: bwrap runs commands here");
    expect(run.stdout).toContain("limits: files of at most 1 MB (RLIMIT_FSIZE)");
    expect(run.stdout).toMatch(
      cgroupsWritable()
        ? /limits: memory 64 MB, 40 processes per command, in a cgroup of its own \(v[12]\b/
        : /limits: memory 64 MB, 40 processes do NOT hold here: /,
    );
    const how = HOW[EXPECTED ?? ""];
    if (how !== undefined) expect(run.stdout).toContain(how);
  });

  it("a file past file_mb is stopped, in the workspace and in /tmp, and the limit named", () => {
    for (const target of ["big.bin", "/tmp/big.bin"]) {
      const call = toolCall(ws, "shell_command", {
        command: `exec head -c 8388608 /dev/zero > ${target}`,
      });
      expect(call.text).toContain(
        "The command reached its file size limit of 1 MB (limits.file_mb): no file can grow past it.",
      );
    }
    expect(statSync(join(ws.cwd, "big.bin")).size).toBeLessThanOrEqual(1024 * 1024);
  });

  it("a session's command past a limit: its exit says which (a terminal and pipes)", () => {
    // Said from the cgroup's counters (memory, processes), which this user may not make as uid 65534;
    // a file past file_mb is named only for one-shots (the helper inside bwrap sees the command die).
    if (!cgroupsWritable()) return;
    for (const tty of [true, false]) {
      const bomb = toolCall(ws, "exec_command", {
        cmd: "bomb() { bomb | bomb & }; bomb; sleep 1; echo after",
        tty,
        yield_time_ms: 10_000,
      });
      expect(bomb.text).toContain("Process exited with code");
      expect(bomb.text).toContain("The command reached its process limit of 40 (limits.processes)");
    }
  });

  it("a memory hog and a fork bomb are stopped at their limits, said, and nothing is left", () => {
    if (!cgroupsWritable()) {
      // No cgroup for this user: said by --check (above); the command is not limited, so not tried.
      expect(conch(ws, ["sandbox", "--check"]).stdout).toContain("do NOT hold here");
      return;
    }
    const hog = toolCall(ws, "shell_command", {
      command: "python3 -c 'a = bytearray(300 * 1024 * 1024); print(\"survived\")'",
    });
    expect(hog.text).not.toContain("survived");
    expect(hog.text).toContain(
      "Killed: the command reached its memory limit of 64 MB (limits.memory_mb in the user's Conch config).",
    );
    const bomb = toolCall(ws, "shell_command", {
      command: "bomb() { bomb | bomb & }; bomb; sleep 1; echo after",
    });
    expect(bomb.text).toContain("The command reached its process limit of 40 (limits.processes)");
    // The command groups are gone: none is left of a Conch process that has ended (groups are named
    // PID-RANDOM; those of processes still running, other suites' commands, are theirs).
    const parents = conchParents();
    expect(parents.length).toBeGreaterThan(0);
    for (const parent of parents) {
      const orphans = readdirSync(parent, { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .filter((entry) => !existsSync(`/proc/${entry.name.split("-")[0]}`));
      expect(orphans.map((entry) => entry.name)).toEqual([]);
    }
  });

  it("a command cannot loosen its own limit or leave its group", () => {
    if (!cgroupsWritable()) return;
    // Its own group's limit files, and every group's cgroup.procs it can see (its parent, conch-host,
    // the hierarchy's top): a write to any of them would free it.
    const hog = toolCall(ws, "shell_command", { command: cgroupEscapeScript(300) });
    expect(hog.text).not.toMatch(/LOOSENED|MOVED|survived/);
    expect(hog.text).toMatch(/tried [1-9]/);
    expect(hog.text).toContain("Killed: the command reached its memory limit of 64 MB");
  });

  it("a disk filler in /tmp stops at tmp_mb, said (as root: a tmpfs of that size); another user is told", async () => {
    userConfig(ws, ["limits = { tmp_mb = 2, file_mb = 1 }"]);
    if (process.getuid?.() !== 0) {
      expect(conch(ws, ["sandbox", "--check"]).stdout).toContain(
        "workspace-write's persistent /tmp is NOT bounded as a whole for a user other than root",
      );
      return;
    }
    try {
      // Every command of one process keeps its /tmp (the mount comes before the sandbox holds it).
      const calls = replay(ws);
      for (const word of ["one", "two"]) {
        const echoed = await calls.call("shell_command", {
          command: `echo ${word} > /tmp/${word}; cat /tmp/${word}`,
        });
        expect(echoed.text).toContain(word);
      }
      expect((await calls.call("exec_command", { cmd: "ls /tmp", yield_time_ms: 5000 })).text).toContain(
        "two",
      );
      expect(await calls.close()).toBe(0);
      const fill = toolCall(ws, "shell_command", {
        command:
          "for i in 1 2 3 4 5 6 7 8; do head -c 524288 /dev/zero > /tmp/f$i || break; done; echo filled",
      });
      expect(fill.text).toContain("No space left on device");
      expect(fill.text).toContain(
        "/tmp is full: it holds at most 2 MB (limits.tmp_mb); remove what is no longer needed from it, or write large files in the workspace.",
      );
    } finally {
      // The bound is a mount on the workspace's /tmp directory in the state dir: undone before cleanup.
      for (const line of readFileSync("/proc/self/mountinfo", "utf8").split("\n")) {
        const point = line.split(" ")[4];
        if (point?.startsWith(`${ws.base}/`)) spawnSync("umount", [point]);
      }
    }
  });
});
