import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveSandboxPolicy, type SandboxError } from "../src/index.js";
import { protectedPathsOf } from "../src/policy/protected-paths.js";

// Fixtures live outside /tmp when possible: /tmp is itself a writable root and would absorb them.
const BASE_PARENT = existsSync("/var/tmp") ? "/var/tmp" : realpathSync(".");
let base: string;

function git(cwd: string, ...args: string[]): void {
  execFileSync(
    "git",
    ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main", ...args],
    {
      cwd,
      stdio: "ignore",
    },
  );
}

function dir(...parts: string[]): string {
  const path = join(base, ...parts);
  mkdirSync(path, { recursive: true });
  return path;
}

function repo(...parts: string[]): string {
  const path = dir(...parts);
  git(path, "init", "-q");
  git(path, "commit", "-q", "--allow-empty", "-m", "init");
  return path;
}

const TMP = { root: realpathSync("/tmp"), readOnlySubpaths: [], blockedMissing: [] };
const ww = (extra: Record<string, unknown> = {}) => ({ mode: "workspace-write" as const, ...extra });

beforeAll(() => {
  base = realpathSync(mkdtempSync(join(BASE_PARENT, "conch-sandbox-core-")));
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe("resolveSandboxPolicy: workspace-write", () => {
  it("makes cwd and /tmp writable and blocks a missing .conch in cwd", () => {
    const cwd = dir("plain");
    expect(resolveSandboxPolicy(ww(), { cwd, env: {} })).toEqual({
      mode: "workspace-write",
      readableRoots: ["/"],
      writableRoots: [{ root: cwd, readOnlySubpaths: [], blockedMissing: [join(cwd, ".conch")] }, TMP],
      network: false,
    });
  });

  it("protects .git, .conch and .agents that exist, and turns the network on only when asked", () => {
    const cwd = repo("protected");
    dir("protected", ".conch");
    writeFileSync(join(cwd, ".agents"), "x");
    const rules = resolveSandboxPolicy(ww({ networkAccess: true }), { cwd, env: {} });
    expect(rules.writableRoots).toEqual([
      {
        root: cwd,
        readOnlySubpaths: [join(cwd, ".agents"), join(cwd, ".conch"), join(cwd, ".git")],
        blockedMissing: [],
      },
      TMP,
    ]);
    expect(rules.network).toBe(true);
    expect(resolveSandboxPolicy(ww({ networkAccess: false }), { cwd, env: {} }).network).toBe(false);
  });

  it("adds $TMPDIR and extra roots (relative to cwd), canonical, skipping missing ones and files", () => {
    const cwd = dir("extras", "cwd");
    const tmpdir = dir("extras", "tmpdir");
    const extra = dir("extras", "extra");
    symlinkSync(extra, join(base, "extras", "link"));
    writeFileSync(join(base, "extras", "file"), "x");
    const rules = resolveSandboxPolicy(ww({ writableRoots: ["../link", "../missing", "../file", extra] }), {
      cwd,
      env: { TMPDIR: tmpdir },
    });
    expect(rules.writableRoots).toEqual([
      { root: cwd, readOnlySubpaths: [], blockedMissing: [join(cwd, ".conch")] },
      TMP,
      { root: tmpdir, readOnlySubpaths: [], blockedMissing: [] },
      { root: extra, readOnlySubpaths: [], blockedMissing: [] },
    ]);
    expect(resolveSandboxPolicy(ww(), { cwd, env: { TMPDIR: "relative" } }).writableRoots).toHaveLength(2);
    expect(
      resolveSandboxPolicy(ww(), { cwd, env: { TMPDIR: join(base, "nope") } }).writableRoots,
    ).toHaveLength(2);
  });

  it("canonicalises a symlinked cwd", () => {
    const real = dir("real-cwd");
    symlinkSync(real, join(base, "cwd-link"));
    expect(resolveSandboxPolicy(ww(), { cwd: join(base, "cwd-link"), env: {} }).writableRoots[0]).toEqual({
      root: real,
      readOnlySubpaths: [],
      blockedMissing: [join(real, ".conch")],
    });
  });

  it("merges nested roots into the outer one and keeps their protected paths", () => {
    const outer = dir("nested");
    const cwd = repo("nested", "inner");
    const rules = resolveSandboxPolicy(ww({ writableRoots: [outer, outer] }), { cwd, env: {} });
    expect(rules.writableRoots).toEqual([
      TMP,
      { root: outer, readOnlySubpaths: [join(cwd, ".git")], blockedMissing: [join(cwd, ".conch")] },
    ]);
  });

  it("drops a root at or inside a protected path: protection wins", () => {
    const cwd = repo("inside-git");
    const rules = resolveSandboxPolicy(ww({ writableRoots: [".git", ".git/hooks"] }), { cwd, env: {} });
    expect(rules.writableRoots).toEqual([
      { root: cwd, readOnlySubpaths: [join(cwd, ".git")], blockedMissing: [join(cwd, ".conch")] },
      TMP,
    ]);
  });

  it("follows a worktree's gitdir file to its gitdir and common dir", () => {
    const main = repo("wt", "main");
    git(main, "worktree", "add", "-q", join(base, "wt", "feature"));
    const feature = join(base, "wt", "feature");
    expect(protectedPathsOf(feature)).toEqual([
      join(feature, ".git"),
      join(main, ".git", "worktrees", "feature"),
      join(main, ".git"),
    ]);
    // The main repository is not a root itself, only inside one: without the gitdir file its .git
    // (hooks, config) would be writable.
    const rules = resolveSandboxPolicy(ww({ writableRoots: [join(base, "wt")] }), { cwd: feature, env: {} });
    expect(rules.writableRoots).toEqual([
      TMP,
      {
        root: join(base, "wt"),
        readOnlySubpaths: [join(feature, ".git"), join(main, ".git")],
        blockedMissing: [join(feature, ".conch")],
      },
    ]);
    // Outside every writable root the gitdir is read-only anyway and is not listed.
    expect(resolveSandboxPolicy(ww(), { cwd: feature, env: {} }).writableRoots[0]).toEqual({
      root: feature,
      readOnlySubpaths: [join(feature, ".git")],
      blockedMissing: [join(feature, ".conch")],
    });
  });

  it("resolves a relative gitdir against the .git file's directory (submodule style)", () => {
    const store = dir("rel", "store.git");
    const work = dir("rel", "work");
    writeFileSync(join(work, ".git"), "gitdir: ../store.git\n");
    expect(protectedPathsOf(work)).toEqual([join(work, ".git"), store]);
    writeFileSync(join(work, ".git"), "gitdir: ../missing.git\n");
    expect(protectedPathsOf(work)).toEqual([join(work, ".git")]);
  });
});

describe("resolveSandboxPolicy: other modes", () => {
  it("read-only: nothing writable, no network", () => {
    expect(resolveSandboxPolicy({ mode: "read-only" }, { cwd: base, env: {} })).toEqual({
      mode: "read-only",
      readableRoots: ["/"],
      writableRoots: [],
      network: false,
    });
  });

  it.each(["danger-full-access", "external-sandbox"] as const)(
    "%s: everything writable, network on",
    (mode) => {
      expect(resolveSandboxPolicy({ mode }, { cwd: base, env: {} })).toEqual({
        mode,
        readableRoots: ["/"],
        writableRoots: [{ root: "/", readOnlySubpaths: [], blockedMissing: [] }],
        network: true,
      });
    },
  );

  it("rejects a cwd that does not exist", () => {
    const cwd = join(base, "absent");
    expect(() => resolveSandboxPolicy({ mode: "read-only" }, { cwd })).toThrow(
      expect.objectContaining({
        code: "CWD_NOT_FOUND",
        message: `cwd is not an existing directory: ${cwd}`,
      }) as SandboxError,
    );
  });
});
