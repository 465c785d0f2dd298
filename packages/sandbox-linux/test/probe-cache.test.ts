// A successful probe kept for the next process: used only while what it depends on is the same, and
// never to choose a launcher this process would not have tried, or from a file another user could write.
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeWith } from "@conch/test-config";
import { afterEach, beforeEach, expect, it } from "vitest";
import { findProgram } from "../src/bwrap/find-program.js";
import { probeKey, readCachedProbe, writeCachedProbe } from "../src/bwrap/probe-cache.js";
import { createLinuxBackend } from "../src/index.js";
import { rules, runSandboxed, writableRoots } from "./sandbox-helpers.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "conch-probe-cache-"));
  chmodSync(dir, 0o700);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describeWith(["bwrap", "bash"], "the bwrap probe cache", () => {
  const bash = findProgram("bash", process.env) as string;
  const bwrap = findProgram("bwrap", process.env) as string;
  const programs = { bwrap, shell: bash, unshare: null };
  const expected = { bwrap, shell: bash, launchers: [[]] };

  it("is written by a backend's successful probe and read back under the same key", async () => {
    const file = join(dir, "probe.json");
    const backend = createLinuxBackend({ probeCache: file });
    expect(await backend.available()).toEqual({ available: true });
    const written = JSON.parse(readFileSync(file, "utf8")) as {
      probe: { bwrap: string; launcher: string[] };
    };
    expect(written.probe.bwrap).toBe(bwrap);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it("is not used when a program changed, or when it names another program or launcher", () => {
    const file = join(dir, "probe.json");
    const key = probeKey(programs);
    writeCachedProbe(file, key, { bwrap, shell: bash, launcher: [] });
    expect(readCachedProbe(file, key, expected)).toEqual({ bwrap, shell: bash, launcher: [] });
    // Another bwrap (a copy has another inode): another key.
    const copy = join(dir, "bwrap");
    copyFileSync(bwrap, copy);
    chmodSync(copy, 0o755);
    expect(probeKey({ ...programs, bwrap: copy })).not.toBe(key);
    expect(readCachedProbe(file, key, { ...expected, bwrap: copy })).toBeNull();
    // A launcher this process would not try (a root caller's without its private mount namespace).
    const unshare = "/usr/bin/unshare";
    const rootLaunchers = [[unshare, "--mount", "--propagation", "private", "--"]];
    writeCachedProbe(file, key, { bwrap, shell: bash, launcher: [] });
    expect(readCachedProbe(file, key, { ...expected, launchers: rootLaunchers })).toBeNull();
    writeCachedProbe(file, key, { bwrap, shell: bash, launcher: [unshare, "--propagation", "shared", "--"] });
    expect(readCachedProbe(file, key, { ...expected, launchers: rootLaunchers })).toBeNull();
  });

  it("is not used when another user could have written it, when it is a day old, or when it is garbage", () => {
    const file = join(dir, "probe.json");
    const key = probeKey(programs);
    writeCachedProbe(file, key, { bwrap, shell: bash, launcher: [] });
    chmodSync(file, 0o620);
    expect(readCachedProbe(file, key, expected)).toBeNull();
    chmodSync(file, 0o600);
    chmodSync(dir, 0o777);
    expect(readCachedProbe(file, key, expected)).toBeNull();
    chmodSync(dir, 0o700);
    expect(readCachedProbe(file, key, expected)).not.toBeNull();
    const old = new Date(Date.now() - 25 * 60 * 60 * 1000);
    utimesSync(file, old, old);
    expect(readCachedProbe(file, key, expected)).toBeNull();
    writeFileSync(file, "{not json", { mode: 0o600 });
    expect(readCachedProbe(file, key, expected)).toBeNull();
    mkdirSync(join(dir, "sub"));
    expect(readCachedProbe(join(dir, "sub"), key, expected)).toBeNull();
  });

  it("a cached success does not let a command run where bwrap cannot sandbox: bwrap itself still fails", async () => {
    // A cache that claims a bwrap works which refuses every sandbox: the command does not run.
    const fake = join(dir, "fake-bwrap");
    writeFileSync(fake, `#!/bin/sh\necho "bwrap: setting up uid map: Permission denied" >&2\nexit 1\n`);
    chmodSync(fake, 0o755);
    const file = join(dir, "probe.json");
    // As the backend keys it: a root caller's bwrap starts from unshare, which the key names too.
    const unshare = process.getuid?.() === 0 ? findProgram("unshare", process.env) : null;
    const launcher = unshare === null ? [] : [unshare, "--mount", "--propagation", "private", "--"];
    writeCachedProbe(file, probeKey({ ...programs, bwrap: fake, unshare }), {
      bwrap: fake,
      shell: bash,
      launcher,
    });
    const backend = createLinuxBackend({ bwrap: fake, probeCache: file });
    expect(await backend.available()).toEqual({ available: true });
    const work = mkdtempSync("/var/tmp/conch-probe-cache-work-");
    try {
      const marker = join(work, "ran");
      const sandboxRules = rules({ writableRoots: writableRoots(work) });
      const result = await runSandboxed(backend, sandboxRules, work, ["touch", marker]);
      expect(result.code).not.toBe(0);
      expect(result.output).toContain("bwrap: setting up uid map");
      expect(existsSync(marker)).toBe(false);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });

  it("refuses a relative probeCache path, naming the option", () => {
    expect(() => createLinuxBackend({ probeCache: "probe.json" })).toThrow(
      'invalid options: probeCache: expected an absolute path, received "probe.json"',
    );
  });
});
