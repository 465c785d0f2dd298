// An independent review's attempts (each escaped before its fix) to make the person's later git run a
// program, write or delete outside the workspace, or hang, from one sandboxed command under the
// "writable .git, control paths kept" rules; each is checked on the host by the person's real git.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describeWith } from "@conch/test-config";
import { expect, it } from "vitest";
import { gitHarness } from "./git-harness.js";

const { base, marks, gitEnv, hostGit, tryHostGit, planted, sandboxed, newRepository, marked } = gitHarness(
  "/var/tmp/conch-git-escapes-",
);

describeWith("bwrap", "git in the sandbox: the review's escapes stay closed", () => {
  it("A: .git/HEAD broken, the workspace root itself becomes the (bare) repository git finds", async () => {
    const repo = newRepository("bare-fallback");
    const script = [
      "set -e",
      "cp -r .git/objects objects && cp -r .git/refs refs && cp .git/HEAD HEAD && cp .git/index index",
      `mkdir hooks && printf '${planted("A-hook")}' > hooks/pre-commit && chmod +x hooks/pre-commit`,
      "printf '[core]\\n\\trepositoryformatversion = 0\\n\\tbare = false\\n\\tworktree = .\\n' > config",
      "mkdir -p info && printf '/HEAD\\n/config\\n/hooks/\\n/index*\\n/objects/\\n/refs/\\n/info/\\n' > info/exclude",
      "echo junk > .git/HEAD",
    ].join("\n");
    const ran = await sandboxed(repo, script);
    expect(ran.code, ran.output).toBe(0);
    tryHostGit(repo, "status", "--short");
    tryHostGit(repo, "commit", "-q", "--allow-empty", "-m", "the person's commit");
    expect({ repairs: ran.repairs, marks: marked() }).toEqual({ repairs: expect.anything(), marks: [] });
  });

  it("B: a nested repository in the work tree, registered as a gitlink in the (writable) index", async () => {
    const repo = newRepository("gitlink");
    const script = [
      "set -e",
      `printf '${planted("B-fsmonitor")}' > .fsm && chmod +x .fsm`,
      "git init -q -b main sub && git -C sub commit -q --allow-empty -m s",
      `git -C sub config core.fsmonitor ${join(repo, ".fsm")}`,
      "git add sub 2>/dev/null",
    ].join("\n");
    const ran = await sandboxed(repo, script);
    expect(ran.code, ran.output).toBe(0);
    tryHostGit(repo, "status", "--short");
    expect(marked()).toEqual([]);
  });

  it("C: more than 64 new nested git dirs: every one is inspected", async () => {
    const repo = newRepository("many-nested");
    const script = [
      "set -e",
      "for i in $(seq -w 0 63); do mkdir -p .git/worktrees/w$i; done",
      "git init -q -b main sub && git -C sub commit -q --allow-empty -m s",
      "mkdir -p .git/modules && mv sub/.git .git/modules/evil && echo 'gitdir: ../.git/modules/evil' > sub/.git",
      "git -C sub config core.worktree ../../../sub",
      `printf '${planted("C-hook")}' > .git/modules/evil/hooks/post-checkout && chmod +x .git/modules/evil/hooks/post-checkout`,
      `printf '${planted("C-fsmonitor")}' > .fsm && chmod +x .fsm`,
      `git -C sub config core.fsmonitor ${join(repo, ".fsm")}`,
      "git add sub 2>/dev/null",
    ].join("\n");
    const ran = await sandboxed(repo, script);
    expect(ran.code, ran.output).toBe(0);
    const evil = join(repo, ".git", "modules", "evil");
    // The check should have moved the evil submodule's config and hook aside.
    expect(existsSync(join(evil, "hooks", "post-checkout")), "evil hook left in place").toBe(false);
    tryHostGit(repo, "status", "--short");
    expect(marked()).toEqual([]);
  });

  it("D: sequencer/opts with a second `strategy` (git takes the last, Conch reads the first)", async () => {
    const repo = newRepository("opts");
    hostGit(repo, "switch", "-q", "-c", "side");
    writeFileSync(join(repo, "a.txt"), "side\n");
    hostGit(repo, "commit", "-q", "-am", "side1");
    writeFileSync(join(repo, "b.txt"), "b\n");
    hostGit(repo, "add", "b.txt");
    hostGit(repo, "commit", "-q", "-m", "side2");
    hostGit(repo, "switch", "-q", "main");
    writeFileSync(join(repo, "a.txt"), "main\n");
    hostGit(repo, "commit", "-q", "-am", "main2");
    const script = [
      // The agent's cherry-pick stops at a conflict, resolved and staged; the person is to --continue.
      "git cherry-pick side~1 side >/dev/null 2>&1; echo resolved > a.txt && git add a.txt",
      `mkdir -p git-merge-x && printf '${planted("D-strategy")}' > evil.sh && chmod +x evil.sh`,
      "printf '[options]\\n\\tstrategy = ort\\n\\tstrategy = x/../evil.sh\\n' > .git/sequencer/opts",
      "cat .git/sequencer/todo",
    ].join("\n");
    const ran = await sandboxed(repo, script);
    expect(ran.output).toMatch(/pick/);
    expect(ran.repairs.map((repair) => repair.path)).toEqual([join(repo, ".git", "sequencer", "opts")]);
    tryHostGit(repo, "-c", "core.editor=true", "cherry-pick", "--continue");
    expect(marked()).toEqual([]);
  });

  it("D2: `[options] strategy = ...` on the section's line", async () => {
    const repo = newRepository("opts2");
    hostGit(repo, "switch", "-q", "-c", "side");
    writeFileSync(join(repo, "a.txt"), "side\n");
    hostGit(repo, "commit", "-q", "-am", "side1");
    writeFileSync(join(repo, "b.txt"), "b\n");
    hostGit(repo, "add", "b.txt");
    hostGit(repo, "commit", "-q", "-m", "side2");
    hostGit(repo, "switch", "-q", "main");
    writeFileSync(join(repo, "a.txt"), "main\n");
    hostGit(repo, "commit", "-q", "-am", "main2");
    const script = [
      "git cherry-pick side~1 side >/dev/null 2>&1; echo resolved > a.txt && git add a.txt",
      `mkdir -p git-merge-x && printf '${planted("D2-strategy")}' > evil.sh && chmod +x evil.sh`,
      "printf '[options] strategy = x/../evil.sh\\n' > .git/sequencer/opts",
    ].join("\n");
    const ran = await sandboxed(repo, script);
    expect(ran.repairs.map((repair) => repair.path)).toEqual([join(repo, ".git", "sequencer", "opts")]);
    tryHostGit(repo, "-c", "core.editor=true", "cherry-pick", "--continue");
    expect(marked()).toEqual([]);
  });

  it("E: .git/worktrees/<id> as a link to a directory outside: `git worktree prune` (git gc) empties it", async () => {
    const repo = newRepository("prune");
    const victim = join(base, "victim-E");
    mkdirSync(victim);
    writeFileSync(join(victim, "precious.txt"), "the person's\n");
    const ran = await sandboxed(repo, `mkdir -p .git/worktrees && ln -s ${victim} .git/worktrees/evil`);
    expect(ran.code, ran.output).toBe(0);
    tryHostGit(repo, "gc", "-q");
    expect(readdirSync(victim)).toEqual(["precious.txt"]);
  });

  it("F: .git/COMMIT_EDITMSG and .git/logs/HEAD as links out: the person's commit writes there", async () => {
    const repo = newRepository("links-out");
    const victim = join(base, "victim-F");
    mkdirSync(victim);
    writeFileSync(join(victim, "bashrc"), "# the person's\n");
    writeFileSync(join(victim, "profile"), "# the person's\n");
    const ran = await sandboxed(
      repo,
      `ln -sf ${join(victim, "bashrc")} .git/COMMIT_EDITMSG && rm .git/logs/HEAD && ln -s ${join(victim, "profile")} .git/logs/HEAD`,
    );
    expect(ran.code, ran.output).toBe(0);
    tryHostGit(repo, "commit", "-q", "--allow-empty", "-m", "the person's commit");
    expect(readFileSync(join(victim, "bashrc"), "utf8")).toBe("# the person's\n");
    expect(readFileSync(join(victim, "profile"), "utf8")).toBe("# the person's\n");
  });

  it("G: a fresh workspace: .git a symlink to a gitfile naming a git dir in the workspace", async () => {
    const fresh = join(base, "fresh-G");
    mkdirSync(fresh);
    const script = [
      "set -e",
      "git init -q -b main tmp && mv tmp/.git gd && rmdir tmp",
      `printf '${planted("G-hook")}' > gd/hooks/pre-commit && chmod +x gd/hooks/pre-commit`,
      "echo 'gitdir: gd' > ptr && ln -s ptr .git",
    ].join("\n");
    const ran = await sandboxed(fresh, script);
    expect(ran.code, ran.output).toBe(0);
    tryHostGit(fresh, "commit", "-q", "--allow-empty", "-m", "the person's commit");
    expect(marked()).toEqual([]);
  });

  it("H: .git/objects/info made a file: the check does not stop (ENOTDIR) before it reads the todo", async () => {
    const paused = newRepository("enotdir");
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
      `printf 'exec touch ${join(marks, "H-exec")}\\n' >> .git/rebase-merge/git-rebase-todo && ` +
        "rm -rf .git/objects/info && touch .git/objects/info",
    );
    expect(ran.code, ran.output).toBe(0);
    tryHostGit(paused, "rebase", "--continue");
    expect({ threw: ran.threw, marks: marked() }).toEqual({ threw: undefined, marks: [] });
  });
  it("C-control: the same with 3 worktree dirs: the evil submodule's hook IS moved", async () => {
    const repo = newRepository("few-nested");
    const script = [
      "set -e",
      "for i in 0 1 2; do mkdir -p .git/worktrees/w$i; done",
      "git init -q -b main sub && git -C sub commit -q --allow-empty -m s",
      "mkdir -p .git/modules && mv sub/.git .git/modules/evil && echo 'gitdir: ../.git/modules/evil' > sub/.git",
      `printf '${planted("Cc-hook")}' > .git/modules/evil/hooks/post-checkout && chmod +x .git/modules/evil/hooks/post-checkout`,
    ].join("\n");
    const ran = await sandboxed(repo, script);
    expect(ran.code, ran.output).toBe(0);
    expect(existsSync(join(repo, ".git", "modules", "evil", "hooks", "post-checkout"))).toBe(false);
  });

  it("I1: a todo line `exec\\r;cmd` runs nothing (git wants a blank after exec)", async () => {
    const paused = newRepository("cr-exec");
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
      `printf 'exec\\r;touch ${join(marks, "I1-exec")}\\n' >> .git/rebase-merge/git-rebase-todo`,
    );
    expect(ran.code, ran.output).toBe(0);
    tryHostGit(paused, "rebase", "--continue");
    expect(marked()).toEqual([]);
  });

  it("J: .git/index made a FIFO: the person's git status hangs (DoS)", async () => {
    const repo = newRepository("fifo");
    const ran = await sandboxed(repo, "rm .git/index && mkfifo .git/index");
    expect(ran.code, ran.output).toBe(0);
    let hung = false;
    try {
      execFileSync("git", ["status", "--short"], {
        cwd: repo,
        env: gitEnv(),
        stdio: "ignore",
        timeout: 3000,
      });
    } catch (error) {
      hung = (error as { signal?: string }).signal === "SIGTERM";
    }
    expect({ hung, repairs: ran.repairs }).toEqual({ hung: false, repairs: expect.anything() });
  });
  it("E2: the same, set off by the person's plain `git commit` (7000 loose objects: auto gc)", async () => {
    const repo = newRepository("auto-gc");
    const victim = join(base, "victim-E2");
    mkdirSync(victim);
    writeFileSync(join(victim, "precious.txt"), "the person's\n");
    const py = [
      "import hashlib, zlib, os",
      "for i in range(7000):",
      "    data = b'junk %d\\n' % i",
      "    store = b'blob %d\\0' % len(data) + data",
      "    h = hashlib.sha1(store).hexdigest()",
      "    os.makedirs('.git/objects/' + h[:2], exist_ok=True)",
      "    open('.git/objects/' + h[:2] + '/' + h[2:], 'wb').write(zlib.compress(store))",
    ].join("\n");
    const ran = await sandboxed(
      repo,
      `python3 -c "${py}" && mkdir -p .git/worktrees && ln -s ${victim} .git/worktrees/evil`,
    );
    expect(ran.code, ran.output).toBe(0);
    tryHostGit(repo, "commit", "-q", "--allow-empty", "-m", "the person's commit");
    await new Promise((done) => setTimeout(done, 4000)); // auto gc detaches
    expect(readdirSync(victim)).toEqual(["precious.txt"]);
  }, 20000);
});
