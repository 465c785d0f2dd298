// The second review's attempts (each escaped before its fix): nested repositories the index names,
// gitfiles read as git reads them, links staged where the walk did not look, git am's options, and a
// check made to run out of budget or time. Each is checked on the host by the person's real git.
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { checkGitAfterCommand, createSandboxWorkspace } from "@conch/sandbox-core";
import { describeWith } from "@conch/test-config";
import { expect, it } from "vitest";
import { gitHarness } from "./git-harness.js";
import { runSandboxed } from "./sandbox-helpers.js";

const { backend, base, home, marks, gitEnv, hostGit, tryHostGit, planted, sandboxed, newRepository, marked } =
  gitHarness("/var/tmp/conch-git-escapes-2-");

const fsm = (repo: string, name: string): string =>
  `printf '${planted(name)}' > ${join(repo, ".fsm")} && chmod +x ${join(repo, ".fsm")}`;
const pause = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

describeWith("bwrap", "git in the sandbox: the second review's escapes stay closed", () => {
  it("R1: a pre-existing embedded nested repository (gitlink): its config is writable", async () => {
    const repo = newRepository("r1");
    hostGit(repo, "init", "-q", "sub");
    hostGit(join(repo, "sub"), "commit", "-q", "--allow-empty", "-m", "s");
    hostGit(repo, "add", "sub");
    hostGit(repo, "commit", "-q", "-m", "add sub");
    const ran = await sandboxed(
      repo,
      `${fsm(repo, "R1")} && git -C sub config core.fsmonitor ${join(repo, ".fsm")} && echo wrote`,
    );
    tryHostGit(repo, "status", "--short");
    expect({ out: ran.output, repairs: ran.repairs, marks: marked() }).toEqual({
      out: expect.anything(),
      repairs: expect.anything(),
      marks: [],
    });
  });

  it("R2: an uninitialised submodule (gitlink, empty dir): a .git dir made in it", async () => {
    const repo = newRepository("r2");
    const sha = hostGit(repo, "rev-parse", "HEAD").trim();
    hostGit(repo, "update-index", "--add", "--cacheinfo", `160000,${sha},sub`);
    hostGit(repo, "commit", "-q", "-m", "gitlink");
    mkdirSync(join(repo, "sub"));
    const ran = await sandboxed(
      repo,
      [
        "set -e",
        fsm(repo, "R2"),
        "git init -q -b main sub && git -C sub commit -q --allow-empty -m s",
        `git -C sub config core.fsmonitor ${join(repo, ".fsm")}`,
      ].join("\n"),
    );
    expect(ran.code, ran.output).toBe(0);
    tryHostGit(repo, "status", "--short");
    expect({ repairs: ran.repairs, marks: marked() }).toEqual({ repairs: expect.anything(), marks: [] });
  });

  it("R3: an initialised submodule: its directory renamed away (the bound .git file moves with it)", async () => {
    const upstream = newRepository("r3-up");
    const repo = newRepository("r3");
    hostGit(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", upstream, "sub");
    hostGit(repo, "commit", "-q", "-m", "sub");
    const ran = await sandboxed(
      repo,
      [
        "set -e",
        fsm(repo, "R3"),
        "mv sub sub-old",
        "git init -q -b main sub && git -C sub commit -q --allow-empty -m s",
        `git -C sub config core.fsmonitor ${join(repo, ".fsm")}`,
      ].join("\n"),
    );
    tryHostGit(repo, "status", "--short");
    expect({ out: ran.output, repairs: ran.repairs, marks: marked() }).toEqual({
      out: expect.anything(),
      repairs: expect.anything(),
      marks: [],
    });
  });

  for (const [id, ending] of [
    ["R4a", " \\n"],
    ["R4b", "\\r\\n"],
  ] as const) {
    it(`${id}: a new gitlink whose .git file names its git dir with a trailing ${JSON.stringify(ending)}`, async () => {
      const repo = newRepository(id.toLowerCase());
      const dir = ending.startsWith(" ") ? "gd " : "gd";
      const ran = await sandboxed(
        repo,
        [
          "set -e",
          fsm(repo, id),
          "git init -q -b main sub && git -C sub commit -q --allow-empty -m s",
          `git -C sub config core.fsmonitor ${join(repo, ".fsm")}`,
          "git add sub 2>/dev/null",
          `mv sub/.git '${dir}' && printf 'gitdir: ../${dir.trim()}${ending}' > sub/.git`,
        ].join("\n"),
      );
      expect(ran.code, ran.output).toBe(0);
      tryHostGit(repo, "status", "--short");
      expect({ repairs: ran.repairs, marks: marked() }).toEqual({ repairs: expect.anything(), marks: [] });
    });
  }

  it("R5: two commands: a nested repository made in the first, added as a gitlink in the second (old ctime)", async () => {
    const repo = newRepository("r5");
    const first = await sandboxed(
      repo,
      [
        "set -e",
        fsm(repo, "R5"),
        "git init -q -b main sub && git -C sub commit -q --allow-empty -m s",
        `git -C sub config core.fsmonitor ${join(repo, ".fsm")}`,
      ].join("\n"),
    );
    expect(first.code, first.output).toBe(0);
    await pause(200);
    const second = await sandboxed(repo, "git add sub 2>/dev/null");
    expect(second.code, second.output).toBe(0);
    tryHostGit(repo, "status", "--short");
    expect({ first: first.repairs, second: second.repairs, marks: marked() }).toEqual({
      first: expect.anything(),
      second: expect.anything(),
      marks: [],
    });
  });

  it("R6: two commands: a link made outside .git, its directory moved in as .git/worktrees", async () => {
    const repo = newRepository("r6");
    const victim = join(base, "victim-R6");
    mkdirSync(victim);
    writeFileSync(join(victim, "precious.txt"), "the person's\n");
    const first = await sandboxed(repo, `mkdir stage && ln -s ${victim} stage/evil`);
    expect(first.code, first.output).toBe(0);
    await pause(200);
    const second = await sandboxed(repo, "mv stage .git/worktrees; ls -la .git/worktrees");
    expect(second.code, second.output).toBe(0);
    tryHostGit(repo, "gc", "-q");
    expect(readdirSync(victim)).toEqual(["precious.txt"]);
  });

  it("R7: two commands: links staged outside .git, moved in as .git/logs: the person's commit writes out", async () => {
    const repo = newRepository("r7");
    const victim = join(base, "victim-R7");
    mkdirSync(victim);
    writeFileSync(join(victim, "profile"), "# the person's\n");
    const first = await sandboxed(
      repo,
      `mkdir -p stage/refs/heads && ln -s ${join(victim, "profile")} stage/HEAD && ln -s ${join(victim, "profile")} stage/refs/heads/main`,
    );
    expect(first.code, first.output).toBe(0);
    await pause(200);
    const second = await sandboxed(repo, "rm -rf .git/logs && mv stage .git/logs; ls -laR .git/logs");
    expect(second.code, second.output).toBe(0);
    tryHostGit(repo, "commit", "-q", "--allow-empty", "-m", "the person's commit");
    expect(readFileSync(join(victim, "profile"), "utf8")).toBe("# the person's\n");
  });

  it("R8: a git dir stuffed past the walk's budget: the todo's exec line is still read, first", async () => {
    const paused = newRepository("r8");
    for (const n of ["2", "3"]) {
      writeFileSync(join(paused, "a.txt"), `${n}\n`);
      hostGit(paused, "commit", "-q", "-am", n);
    }
    execFileSync("git", ["rebase", "-q", "-i", "HEAD~2"], {
      cwd: paused,
      env: { ...gitEnv(), GIT_SEQUENCE_EDITOR: "sed -i -e '1i break'", GIT_EDITOR: "true" },
      stdio: "ignore",
    });
    const ran = await sandboxed(
      paused,
      `printf 'exec touch ${join(marks, "R8-exec")}\\n' >> .git/rebase-merge/git-rebase-todo && ` +
        `python3 -c "import os\nos.makedirs('.git/junk')\nfor i in range(200001): open('.git/junk/%d' % i, 'w').close()"`,
    );
    expect(ran.code, ran.output).toBe(0);
    tryHostGit(paused, "rebase", "--continue");
    expect({ repairs: ran.repairs.map((r) => r.why), marks: marked() }).toEqual({
      repairs: expect.anything(),
      marks: [],
    });
  }, 120000);

  it("R9: git am state: rebase-apply/apply-opt --build-fake-ancestor writes outside at `git am --continue`", async () => {
    const repo = newRepository("r9");
    const victim = join(base, "victim-R9");
    mkdirSync(victim);
    writeFileSync(join(victim, "bashrc"), "# the person's\n");
    hostGit(repo, "switch", "-q", "-c", "side");
    writeFileSync(join(repo, "a.txt"), "side\n");
    hostGit(repo, "commit", "-q", "-am", "side1");
    writeFileSync(join(repo, "b.txt"), "b\n");
    hostGit(repo, "add", "b.txt");
    hostGit(repo, "commit", "-q", "-m", "side2");
    hostGit(repo, "format-patch", "-q", "-o", join(base, "r9-patches"), "main..side");
    hostGit(repo, "switch", "-q", "main");
    writeFileSync(join(repo, "a.txt"), "main\n");
    hostGit(repo, "commit", "-q", "-am", "main2");
    tryHostGit(
      repo,
      "am",
      "-q",
      ...readdirSync(join(base, "r9-patches")).map((n) => join(base, "r9-patches", n)),
    );
    const ran = await sandboxed(
      repo,
      `ls .git/rebase-apply && printf "'--build-fake-ancestor=${join(victim, "bashrc")}'" > .git/rebase-apply/apply-opt`,
    );
    expect(ran.code, ran.output).toBe(0);
    writeFileSync(join(repo, "a.txt"), "resolved\n");
    hostGit(repo, "add", "a.txt");
    tryHostGit(repo, "am", "--continue");
    expect(readFileSync(join(victim, "bashrc"), "utf8")).toBe("# the person's\n");
  });

  it("R10: thousands of new worktree configs: at most 256 are given to git, the rest moved aside unread", async () => {
    const repo = newRepository("r10");
    const workspace = createSandboxWorkspace(
      { mode: "workspace-write", writableRoots: [] },
      { cwd: repo, env: { HOME: home, PATH: process.env.PATH ?? "/usr/bin:/bin" } },
    );
    const rules = workspace.rules();
    const ran = await runSandboxed(
      backend,
      rules,
      repo,
      [
        "python3",
        "-c",
        "import os\nfor i in range(600):\n  os.makedirs('.git/worktrees/w%d' % i)\n  open('.git/worktrees/w%d/config' % i, 'w').write('[user]\\n\\tname = x\\n')",
      ],
      gitEnv(),
    );
    expect(ran.code, ran.output).toBe(0);
    const repairs = checkGitAfterCommand(rules.gitWatch as NonNullable<typeof rules.gitWatch>, gitEnv());
    // 256 harmless configs read and kept; every other one moved aside without asking git.
    expect(repairs).toHaveLength(600 - 256);
    expect(repairs.every((repair) => /more than 256 config files appeared/.test(repair.why))).toBe(true);
  }, 300000);

  it("R6b: two commands: a link staged unseen under .git/objects/<dir>/, moved (same mount) to .git/worktrees", async () => {
    const repo = newRepository("r6b");
    const victim = join(base, "victim-R6b");
    mkdirSync(victim);
    writeFileSync(join(victim, "precious.txt"), "the person's\n");
    const first = await sandboxed(repo, `mkdir .git/objects/st && ln -s ${victim} .git/objects/st/evil`);
    expect(first.code, first.output).toBe(0);
    await pause(200);
    const second = await sandboxed(repo, "mv .git/objects/st .git/worktrees");
    expect(second.code, second.output).toBe(0);
    tryHostGit(repo, "gc", "-q");
    expect({ first: first.repairs, second: second.repairs, victim: readdirSync(victim) }).toEqual({
      first: expect.anything(),
      second: expect.anything(),
      victim: ["precious.txt"],
    });
  });

  it("R7b: two commands: links staged unseen under .git/objects/<dir>/, moved in as .git/logs", async () => {
    const repo = newRepository("r7b");
    const victim = join(base, "victim-R7b");
    mkdirSync(victim);
    writeFileSync(join(victim, "profile"), "# the person's\n");
    const first = await sandboxed(
      repo,
      `mkdir -p .git/objects/st/refs/heads && ln -s ${join(victim, "profile")} .git/objects/st/HEAD && ln -s ${join(victim, "profile")} .git/objects/st/refs/heads/main`,
    );
    expect(first.code, first.output).toBe(0);
    await pause(200);
    const second = await sandboxed(repo, "rm -rf .git/logs && mv .git/objects/st .git/logs");
    expect(second.code, second.output).toBe(0);
    tryHostGit(repo, "commit", "-q", "--allow-empty", "-m", "the person's commit");
    expect(readFileSync(join(victim, "profile"), "utf8")).toBe("# the person's\n");
  });

  it("R14: a submodule of a linked worktree inside the workspace: its git dir (worktrees/<id>/modules/sub) config", async () => {
    const upstream = newRepository("r14-up");
    const repo = newRepository("r14");
    hostGit(repo, "worktree", "add", "-q", "wt");
    hostGit(join(repo, "wt"), "-c", "protocol.file.allow=always", "submodule", "add", "-q", upstream, "sub");
    hostGit(join(repo, "wt"), "commit", "-q", "-m", "sub");
    const ran = await sandboxed(
      repo,
      `${fsm(repo, "R14")} && ls -d .git/worktrees/wt/modules/sub && git -C wt/sub config core.fsmonitor ${join(repo, ".fsm")} && echo wrote`,
    );
    tryHostGit(join(repo, "wt"), "status", "--short");
    expect({ out: ran.output, repairs: ran.repairs, marks: marked() }).toEqual({
      out: expect.anything(),
      repairs: expect.anything(),
      marks: [],
    });
  });
});
