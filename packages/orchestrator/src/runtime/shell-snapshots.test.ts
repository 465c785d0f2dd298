import { spawnSync } from "node:child_process";
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import type { ShellRun, ShellRunner } from "@conch/shell-detect";
import { describeWith } from "@conch/test-config";
import { afterEach, beforeEach, expect, it } from "vitest";
import { ShellSnapshots } from "./shell-snapshots.js";

const BASH = { type: "bash", path: "/bin/bash" } as const;

let base: string;
let home: string;
let runs: number;
// The real shell, on the host, counted: each run is a login shell (or the check that the snapshot loads).
const run: ShellRunner = async (argv, options): Promise<ShellRun> => {
  runs += 1;
  const [file = "", ...args] = argv;
  const result = spawnSync(file, args, { cwd: options.cwd, env: options.env, encoding: "utf8" });
  return {
    outcome: "exited",
    code: result.status,
    signal: result.signal,
    stdout: result.stdout,
    stderr: result.stderr,
  };
};

function snapshots(env: Record<string, string> = {}): ShellSnapshots {
  return new ShellSnapshots({
    dir: join(base, "snapshots"),
    workDir: base,
    env: { HOME: home, PATH: process.env.PATH ?? "/usr/bin:/bin", ...env },
    keep: () => true,
    ttlMs: 3_600_000,
  });
}

async function historyFile(source: ShellSnapshots): Promise<string | undefined> {
  const use = await source.use(BASH, ":", { run, writableRoots: [] });
  if (!use.ok) throw new Error(use.reason);
  return use.names.historyFile;
}

function profile(text: string, mtimeS: number): void {
  writeFileSync(join(home, ".profile"), text);
  utimesSync(join(home, ".profile"), mtimeS, mtimeS);
}

beforeEach(() => {
  base = mkdtempSync("/var/tmp/conch-snapshot-records-");
  home = join(base, "home");
  mkdirSync(home);
  runs = 0;
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

describeWith("bash", "ShellSnapshots across processes", () => {
  it("a later process uses the capture an earlier one recorded, and captures again once a startup file changes", async () => {
    profile("HISTFILE=/var/tmp/first-hist\n", 1_000_000);
    expect(await historyFile(snapshots())).toBe("/var/tmp/first-hist");
    expect(runs).toBe(2);
    expect(await historyFile(snapshots())).toBe("/var/tmp/first-hist");
    expect(runs).toBe(2);
    profile("HISTFILE=/var/tmp/second-hist\n", 2_000_000);
    expect(await historyFile(snapshots())).toBe("/var/tmp/second-hist");
    expect(runs).toBe(4);
    expect(await historyFile(snapshots())).toBe("/var/tmp/second-hist");
    expect(runs).toBe(4);
  });

  it("another environment captures its own; a record another user could have written is not used", async () => {
    profile("HISTFILE=/var/tmp/hist\n", 1_000_000);
    await historyFile(snapshots());
    expect(runs).toBe(2);
    await historyFile(snapshots({ ZDOTDIR: home }));
    expect(runs).toBe(4);
    const dir = join(base, "snapshots");
    for (const name of readdirSync(dir).filter((entry) => entry.startsWith("record-"))) {
      chmodSync(join(dir, name), 0o666);
    }
    expect(await historyFile(snapshots())).toBe("/var/tmp/hist");
    expect(runs).toBe(6);
  });

  it("records only the exported paths that move a credential, never a secret that starts with /", async () => {
    profile(
      "export KUBECONFIG=/var/tmp/kube PLAIN_DIR=/var/tmp/plain SIGNING_SECRET=/aZ3kQ9xW+secret\n",
      1_000_000,
    );
    const use = await snapshots().use(BASH, ":", { run, writableRoots: [] });
    expect(use.ok && use.names.exportedPaths).toEqual({ KUBECONFIG: "/var/tmp/kube" });
    const dir = join(base, "snapshots");
    const records = readdirSync(dir).filter((entry) => entry.startsWith("record-"));
    expect(records).toHaveLength(1);
    const text = readFileSync(join(dir, records[0] ?? ""), "utf8");
    expect(text).toContain('"KUBECONFIG":"/var/tmp/kube"');
    expect(text).not.toContain("aZ3kQ9xW");
  });
});
