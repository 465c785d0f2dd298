// The harness the git escape suites share: a base directory under /var/tmp (outside the sandbox's private
// /tmp), a home, a marks directory a planted program would write to, the person's host git, and one
// sandboxed command under the rules sandbox-core resolves, with the check Conch runs after it.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  checkGitAfterCommand,
  createSandboxWorkspace,
  type GitRepair,
  type LocalSandboxBackend,
} from "@conch/sandbox-core";
import { afterAll, beforeAll, beforeEach } from "vitest";
import { createLinuxBackend } from "../src/index.js";
import { type Outcome, runSandboxed } from "./sandbox-helpers.js";

interface Ran extends Outcome {
  readonly repairs: GitRepair[];
  /** What the check threw, which it must never do. */
  readonly threw?: string;
}

export interface GitHarness {
  readonly backend: LocalSandboxBackend;
  readonly base: string;
  readonly home: string;
  readonly marks: string;
  gitEnv(): Record<string, string>;
  hostGit(cwd: string, ...args: string[]): string;
  tryHostGit(cwd: string, ...args: string[]): void;
  planted(name: string): string;
  sandboxed(cwd: string, script: string): Promise<Ran>;
  newRepository(name: string): string;
  marked(): string[];
}

/** The harness for a suite whose files live under `prefix` (made when the suite's file loads). */
export function gitHarness(prefix: string): GitHarness {
  const backend = createLinuxBackend();
  const base = mkdtempSync(prefix);
  const home = join(base, "home");
  const marks = join(base, "marks");
  const IDENTITY = {
    GIT_AUTHOR_NAME: "a",
    GIT_AUTHOR_EMAIL: "a@example.com",
    GIT_COMMITTER_NAME: "a",
    GIT_COMMITTER_EMAIL: "a@example.com",
  };
  function gitEnv(): Record<string, string> {
    return { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, GIT_CONFIG_NOSYSTEM: "1", ...IDENTITY };
  }
  function hostGit(cwd: string, ...args: string[]): string {
    return execFileSync("git", ["-c", "init.defaultBranch=main", ...args], {
      cwd,
      env: gitEnv(),
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 20000,
    });
  }
  /** Like hostGit, but a failing git is fine: only whether a program ran matters. */
  function tryHostGit(cwd: string, ...args: string[]): void {
    try {
      hostGit(cwd, ...args);
    } catch {
      // ignore
    }
  }
  function planted(name: string): string {
    return `#!/bin/sh\ntouch ${join(marks, name)}\n`;
  }
  async function sandboxed(cwd: string, script: string): Promise<Ran> {
    const workspace = createSandboxWorkspace(
      { mode: "workspace-write", writableRoots: [] },
      { cwd, env: { HOME: home, PATH: process.env.PATH ?? "/usr/bin:/bin" } },
    );
    const rules = workspace.rules();
    const outcome = await runSandboxed(backend, rules, cwd, ["bash", "-c", script], gitEnv());
    try {
      const repairs = rules.gitWatch === undefined ? [] : checkGitAfterCommand(rules.gitWatch, gitEnv());
      return { ...outcome, repairs };
    } catch (error) {
      return { ...outcome, repairs: [], threw: String(error) };
    }
  }
  function newRepository(name: string): string {
    const repo = join(base, name);
    mkdirSync(repo);
    hostGit(repo, "init", "-q");
    writeFileSync(join(repo, "a.txt"), "one\n");
    hostGit(repo, "add", "a.txt");
    hostGit(repo, "commit", "-q", "-m", "first");
    return repo;
  }
  const marked = (): string[] => readdirSync(marks);

  beforeAll(() => {
    mkdirSync(home);
    mkdirSync(marks);
  });
  beforeEach(() => {
    for (const name of readdirSync(marks)) rmSync(join(marks, name));
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));
  return {
    backend,
    base,
    home,
    marks,
    gitEnv,
    hostGit,
    tryHostGit,
    planted,
    sandboxed,
    newRepository,
    marked,
  };
}
