// Ordinary git work runs in the sandbox (real bwrap, real git, the rules sandbox-core resolves), while
// nothing that makes the person's own git run a program can be planted: every attempt is checked on the
// host by a real `git commit` and `git status` afterwards, which would run a planted hook or program.
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { checkGitAfterCommand, createSandboxWorkspace, type GitRepair } from "@conch/sandbox-core";
import { describeWith } from "@conch/test-config";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createLinuxBackend } from "../src/index.js";
import { type Outcome, runSandboxed } from "./sandbox-helpers.js";

const backend = createLinuxBackend();

// Made when the file loads: the attempts' scripts below name these paths.
const base = mkdtempSync("/var/tmp/conch-git-work-");
const home = join(base, "home");
/** Where a planted program would leave its mark, outside every writable root. */
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

/** git on the host, as the person runs it later. */
function hostGit(cwd: string, ...args: string[]): string {
  return execFileSync("git", ["-c", "init.defaultBranch=main", ...args], {
    cwd,
    env: gitEnv(),
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/** A script that, run as a hook or a program, leaves `name` in `marks`: the escape this suite looks for. */
function planted(name: string): string {
  return `#!/bin/sh\ntouch ${join(marks, name)}\n`;
}

interface Ran extends Outcome {
  readonly repairs: GitRepair[];
}

/**
 * `script` in the sandbox of a workspace at `cwd` (rules found now, as for every command), then what it
 * left checked as Conch checks it after each command.
 */
async function sandboxed(cwd: string, script: string, extraRoots: string[] = []): Promise<Ran> {
  const workspace = createSandboxWorkspace(
    { mode: "workspace-write", writableRoots: extraRoots },
    { cwd, env: { HOME: home, PATH: process.env.PATH ?? "/usr/bin:/bin" } },
  );
  const rules = workspace.rules();
  const outcome = await runSandboxed(backend, rules, cwd, ["bash", "-c", script], gitEnv());
  const repairs = rules.gitWatch === undefined ? [] : checkGitAfterCommand(rules.gitWatch, gitEnv());
  return { ...outcome, repairs };
}

/** The person's next commit and status in `repo`, on the host: no planted program may have run. */
function personCommits(repo: string): void {
  hostGit(repo, "commit", "-q", "--allow-empty", "-m", "the person's commit");
  hostGit(repo, "status", "--short");
  hostGit(repo, "log", "-1", "--format=%s");
  expect(readdirSync(marks)).toEqual([]);
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

beforeAll(() => {
  mkdirSync(home);
  mkdirSync(marks);
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

describeWith("bwrap", "git in the sandbox: ordinary work, unasked", () => {
  it("commits, amends, branches, tags, stashes, merges, cherry-picks and rebases", async () => {
    const repo = newRepository("ordinary");
    const upstream = newRepository("upstream");
    writeFileSync(join(upstream, "up.txt"), "up\n");
    hostGit(upstream, "add", "up.txt");
    hostGit(upstream, "commit", "-q", "-m", "upstream work");
    const script = [
      "set -e",
      "echo two >> a.txt && git commit -qam second",
      "git commit -q --amend -m 'second, amended'",
      "git commit -q --allow-empty -m empty",
      "git branch feature && git tag v1",
      "git switch -q feature && echo f > f.txt && git add f.txt && git commit -qm 'feature work'",
      "git switch -q main && git merge -q --no-ff -m merged feature",
      "echo wip >> a.txt && git stash -q && git stash pop -q && git checkout -q a.txt",
      "git switch -q -c picks v1 && git cherry-pick feature >/dev/null",
      "git switch -q main && echo three >> a.txt && git commit -qam third",
      "git switch -q feature && git rebase -q main",
      // An interactive rebase whose todo an editor rewrites: squash the last two commits.
      "git switch -q main && echo four >> a.txt && git commit -qam fourth",
      "GIT_SEQUENCE_EDITOR='sed -i 2s/^pick/squash/' GIT_EDITOR=true git rebase -q -i HEAD~2 >/dev/null",
      `git fetch -q ${upstream} main:refs/remotes/up/main`,
      "git log -1 --format=%s FETCH_HEAD && git log -1 --format=%s up/main && git log -1 --format=%s",
    ].join("\n");
    const ran = await sandboxed(repo, script);
    expect(ran, ran.output).toMatchObject({ code: 0, repairs: [] });
    expect(ran.output).toBe("upstream work\nupstream work\nthird\n");
    // The host's git sees all of it.
    expect(hostGit(repo, "tag")).toBe("v1\n");
    expect(hostGit(repo, "branch", "--format=%(refname:short)").split("\n").sort()).toEqual([
      "",
      "feature",
      "main",
      "picks",
    ]);
    // feature, rebased onto main, which had merged its work already, is main's "third" of then.
    expect(hostGit(repo, "log", "-1", "--format=%s", "feature")).toBe("third\n");
    // main's last two commits squashed by the interactive rebase: one commit, both messages.
    expect(hostGit(repo, "log", "-1", "--format=%B", "main")).toBe("third\n\nfourth\n\n");
    personCommits(repo);
  });

  it("runs `git init` and commits, and a later commit in the same repository works the same", async () => {
    const fresh = join(base, "fresh");
    mkdirSync(fresh);
    const first = await sandboxed(
      fresh,
      "git init -q -b main && echo x > x && git add x && git commit -qm one && git log --format=%s",
    );
    expect(first, first.output).toMatchObject({ code: 0, output: "one\n", repairs: [] });
    const later = await sandboxed(fresh, "echo y >> x && git commit -qam two && git log --format=%s");
    expect(later, later.output).toMatchObject({ code: 0, output: "two\none\n", repairs: [] });
    personCommits(fresh);
  });

  it("works in a linked worktree whose git dirs lie outside the workspace", async () => {
    const main = newRepository("main-of-worktree");
    const worktree = join(base, "worktree");
    hostGit(main, "worktree", "add", "-q", "-b", "wt", worktree);
    const ran = await sandboxed(
      worktree,
      "echo w > w.txt && git add w.txt && git commit -qm 'in the worktree'",
    );
    expect(ran, ran.output).toMatchObject({ code: 0, repairs: [] });
    expect(hostGit(main, "log", "-1", "--format=%s", "wt")).toBe("in the worktree\n");
    // The main repository's control files are as read-only as the worktree's own.
    const attack = await sandboxed(
      worktree,
      `printf '${planted("wt-hook")}' > ${join(main, ".git", "hooks", "pre-commit")}; ` +
        `echo '[core] hooksPath=/x' >> ${join(main, ".git", "config")}`,
    );
    expect(attack.output).toMatch(/Read-only file system/);
    personCommits(main);
    personCommits(worktree);
  });
});

describeWith("bwrap", "git in the sandbox: nothing the person's git runs can be planted", () => {
  let repo: string;
  let evil: string;
  beforeAll(() => {
    repo = newRepository("attacked");
    // A hooks dir and a config the model prepared in the workspace, for a planted pointer to name.
    evil = join(repo, "evil");
    mkdirSync(join(evil, "hooks"), { recursive: true });
    writeFileSync(join(evil, "hooks", "pre-commit"), planted("evil-hooks"));
    chmodSync(join(evil, "hooks", "pre-commit"), 0o755);
    writeFileSync(join(evil, "config"), `[core]\n\thooksPath = ${join(evil, "hooks")}\n`);
  });

  it.each([
    ["a hook", `printf '${planted("hook")}' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit`],
    ["a hook by another path", `printf '${planted("hook2")}' > ./.git/hooks/../hooks/post-commit`],
    ["core.hooksPath in .git/config", "echo '[core] hooksPath=evil/hooks' >> .git/config"],
    ["git config", "git config core.hooksPath evil/hooks"],
    ["an alias", "git config alias.st '!touch x'"],
    ["replacing .git/config", "rm -f .git/config; cp evil/config .git/config"],
    ["replacing .git/hooks", "rm -rf .git/hooks; mkdir .git/hooks; cp evil/hooks/pre-commit .git/hooks/"],
    ["moving .git/hooks aside", "mv .git/hooks .git/hooks.old && cp -r evil/hooks .git/hooks"],
    ["moving .git aside", "mv .git .git-old && mkdir .git && cp -r .git-old/. .git/ && cp evil/config .git/"],
    ["a symlinked config", "ln -sf ../evil/config .git/config"],
  ])("%s: refused by the sandbox", async (_what, script) => {
    const ran = await sandboxed(repo, script);
    expect(ran.code, ran.output).not.toBe(0);
    expect(ran.output).toMatch(/Read-only file system|Device or resource busy|could not write config file/);
    expect(existsSync(join(repo, ".git-old"))).toBe(false);
    personCommits(repo);
  });

  it.each([
    ["a commondir naming another repository", "echo ../evil > .git/commondir", "commondir"],
    [
      "a config.worktree with a hooksPath",
      "printf '[core]\\n\\thooksPath = evil/hooks\\n' > .git/config.worktree",
      "config.worktree",
    ],
    [
      "an alternates file",
      "mkdir -p .git/objects/info && echo ../../evil > .git/objects/info/alternates",
      "objects/info/alternates",
    ],
    [
      "a remote in git's oldest format",
      "mkdir -p .git/remotes && echo 'URL: /x' > .git/remotes/origin",
      "remotes/origin",
    ],
  ])("%s: made, then moved aside, and said", async (_what, script, made) => {
    const ran = await sandboxed(repo, script);
    expect(ran.code, ran.output).toBe(0);
    const path = join(repo, ".git", made);
    expect(ran.repairs).toEqual([
      { path, movedTo: expect.stringMatching(/\.conch-moved-\d{8}T\d{6}$/), why: expect.any(String) },
    ]);
    expect(existsSync(path)).toBe(false);
    personCommits(repo);
    // Harmless where it is now: git never reads that name.
    rmSync(ran.repairs[0]?.movedTo as string, { recursive: true, force: true });
  });

  it("a config.worktree that sets nothing harmful stays; the next command cannot change it", async () => {
    const ran = await sandboxed(repo, "printf '[user]\\n\\tname = b\\n' > .git/config.worktree");
    expect(ran).toMatchObject({ code: 0, repairs: [] });
    const again = await sandboxed(repo, "echo '[core] hooksPath=evil/hooks' >> .git/config.worktree");
    expect(again.output).toMatch(/Read-only file system/);
    expect(readFileSync(join(repo, ".git", "config.worktree"), "utf8")).toBe("[user]\n\tname = b\n");
    rmSync(join(repo, ".git", "config.worktree"));
    personCommits(repo);
  });

  it("a repository the command made: its planted hook and config are moved aside, its commits kept", async () => {
    const made = join(base, "made");
    mkdirSync(made);
    const ran = await sandboxed(
      made,
      [
        "git init -q -b main && echo x > x && git add x && git commit -qm one",
        `printf '${planted("made-hook")}' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit`,
        "git config alias.st '!touch pwned'",
      ].join(" && "),
    );
    expect(ran.code, ran.output).toBe(0);
    expect(ran.repairs.map((repair) => repair.path).sort()).toEqual([
      join(made, ".git", "config"),
      join(made, ".git", "hooks", "pre-commit"),
    ]);
    expect(ran.repairs.find((repair) => repair.path.endsWith("config"))?.why).toMatch(/alias\.st/);
    expect(hostGit(made, "log", "--format=%s")).toBe("one\n");
    personCommits(made);
    // The alias went with the config: the person's `git st` is no command, and runs nothing.
    expect(() => hostGit(made, "st")).toThrow(/is not a git command/);
    expect(existsSync(join(made, "pwned"))).toBe(false);
  });

  it("a .git file the command made that points outside the writable roots is moved aside", async () => {
    const elsewhere = newRepository("elsewhere");
    const pointed = join(base, "pointed");
    mkdirSync(pointed);
    const ran = await sandboxed(pointed, `echo 'gitdir: ${join(elsewhere, ".git")}' > .git`);
    expect(ran.code).toBe(0);
    expect(ran.repairs).toEqual([expect.objectContaining({ path: join(pointed, ".git") })]);
    expect(existsSync(join(pointed, ".git"))).toBe(false);
  });

  it("exec lines added to a paused rebase's todo are disabled; the person's own stay", async () => {
    const paused = newRepository("paused");
    for (const n of ["2", "3"]) {
      writeFileSync(join(paused, "a.txt"), `${n}\n`);
      hostGit(paused, "commit", "-q", "-am", n);
    }
    // The person's own rebase, stopped at a `break`, with an exec line of their own.
    execFileSync("git", ["rebase", "-q", "-i", "HEAD~2"], {
      cwd: paused,
      env: { ...gitEnv(), GIT_SEQUENCE_EDITOR: "sed -i -e '1i break' -e '$a exec true'", GIT_EDITOR: "true" },
      stdio: "ignore",
    });
    const todo = join(paused, ".git", "rebase-merge", "git-rebase-todo");
    expect(readFileSync(todo, "utf8")).toMatch(/^exec true$/m);
    const ran = await sandboxed(
      paused,
      `printf 'exec touch ${join(marks, "exec")}\nx touch ${join(marks, "x")}\n' >> .git/rebase-merge/git-rebase-todo`,
    );
    expect(ran.code, ran.output).toBe(0);
    expect(ran.repairs).toEqual([expect.objectContaining({ path: todo, disabled: true })]);
    expect(readFileSync(todo, "utf8")).toMatch(/^exec true$/m);
    expect(readFileSync(todo, "utf8")).toMatch(/^# exec touch .*disabled by Conch/m);
    hostGit(paused, "rebase", "--continue");
    expect(readdirSync(marks)).toEqual([]);
    personCommits(paused);
  });

  it("a merge strategy that is not git's own, written into a paused rebase, is moved aside", async () => {
    const paused = newRepository("strategy");
    for (const name of ["b", "c"]) {
      writeFileSync(join(paused, name), `${name}\n`);
      hostGit(paused, "add", name);
      hostGit(paused, "commit", "-q", "-m", name);
    }
    // Dropping b makes c's pick a real merge, which runs the strategy.
    execFileSync("git", ["rebase", "-q", "-i", "HEAD~2"], {
      cwd: paused,
      env: {
        ...gitEnv(),
        GIT_SEQUENCE_EDITOR: "sed -i -e '1s/^pick/drop/' -e '1i break'",
        GIT_EDITOR: "true",
      },
      stdio: "ignore",
    });
    // A program in the workspace that the person's PATH finds (an activated virtualenv's bin, say).
    const ran = await sandboxed(
      paused,
      `mkdir -p bin && printf '${planted("strategy")}' > bin/git-merge-evil && chmod +x bin/git-merge-evil && ` +
        "echo evil > .git/rebase-merge/strategy",
    );
    expect(ran.repairs).toEqual([
      expect.objectContaining({ path: join(paused, ".git", "rebase-merge", "strategy") }),
    ]);
    execFileSync("git", ["rebase", "--continue"], {
      cwd: paused,
      env: { ...gitEnv(), PATH: `${join(paused, "bin")}:${gitEnv().PATH}` },
      stdio: "ignore",
    });
    expect(readdirSync(marks)).toEqual([]);
  });

  it("a directory on the way swapped for a link out of the workspace: Conch renames nothing there", async () => {
    const linked = newRepository("linked");
    const outside = join(base, "outside-info");
    mkdirSync(outside);
    writeFileSync(join(outside, "alternates"), "the person's own\n");
    const ran = await sandboxed(linked, `rm -rf .git/objects/info && ln -s ${outside} .git/objects/info`);
    expect(ran.code, ran.output).toBe(0);
    // The link itself is removed (git makes none); what it led to is not touched.
    expect(ran.repairs).toEqual([
      expect.objectContaining({ path: join(linked, ".git", "objects", "info", "alternates"), movedTo: null }),
      expect.objectContaining({ path: join(linked, ".git", "objects", "info"), removed: true }),
    ]);
    expect(readFileSync(join(outside, "alternates"), "utf8")).toBe("the person's own\n");
    expect(readdirSync(outside)).toEqual(["alternates"]);
  });
});
