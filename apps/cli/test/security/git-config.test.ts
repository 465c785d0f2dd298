// Issue 20 §3: what the person's next `git commit` or `git status` on the host runs. The person's repository
// and config name a hooks dir, an include, a program, in one of the forms git reads; a sandboxed tool call
// (the agent) tries to plant a hook there; then the host runs real git, as the person would, and the
// test checks that nothing the agent wrote ran. Real git, real bwrap, the real `conch` binary.
import {
  chmodSync,
  existsSync,
  linkSync,
  mkdirSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describeWith } from "@conch/test-config";
import { afterEach, beforeEach, expect, it } from "vitest";
import { personGit, toolCall, userConfig, userRules, type Workspace, workspace } from "./harness.js";

let ws: Workspace;
let marker: string;
beforeEach(() => {
  ws = workspace();
  marker = join(ws.outside, "hook-ran");
  hostGit("init", "-q");
  hostGit("commit", "-q", "--allow-empty", "-m", "init");
});
afterEach(() => ws.cleanup());

/** The person's git on the host, in the workspace, with the person's home (its global config). */
function hostGit(...args: string[]): { status: number | null; stderr: string } {
  return hostGitIn(ws.cwd, ...args);
}

function hostGitIn(cwd: string, ...args: string[]): { status: number | null; stderr: string } {
  return personGit(ws, cwd, ...args);
}

function appendRepoConfig(text: string): void {
  writeFileSync(join(ws.cwd, ".git", "config"), `${text}\n`, { flag: "a" });
}

/** A shell line that writes an executable script at `path` which, run on the host, creates the marker. */
function plant(path: string): string {
  return `mkdir -p "$(dirname ${path})" && printf '#!/bin/sh\\ntouch ${marker}\\n' > ${path} && chmod +x ${path}`;
}

/** The agent's attempt: one sandboxed tool call, as a model would make it. */
function agent(command: string): string {
  return toolCall(ws, "shell_command", { command }).text;
}

/** The person's next commit (in the workspace, or in `dir`), then the check that none of the agent's files ran. */
function personCommits(dir: string = ws.cwd): void {
  hostGitIn(dir, "commit", "-q", "--allow-empty", "-m", "next");
  expect(existsSync(marker)).toBe(false);
}

describeWith("bwrap", "core.hooksPath in each form git's parser reads is read-only", () => {
  it.each([
    ["the key on the [core] header line", "[core] hooksPath=hooks"],
    ["a trailing comment", "[core]\n\thooksPath = hooks ; the team's hooks"],
    ["partial quoting", '[core]\n\thooksPath = "ho"oks'],
    ["a backslash continuation", "[core]\n\thooksPath = ho\\\noks"],
  ])("%s", (_label, text) => {
    mkdirSync(join(ws.cwd, "hooks"));
    appendRepoConfig(text);
    expect(agent(plant("hooks/pre-commit"))).toMatch(/Read-only file system/);
    personCommits();
  });

  it("a hooksPath in config.worktree (extensions.worktreeConfig)", () => {
    mkdirSync(join(ws.cwd, "hooks"));
    hostGit("config", "extensions.worktreeConfig", "true");
    hostGit("config", "--worktree", "core.hooksPath", "hooks");
    expect(agent(plant("hooks/pre-commit"))).toMatch(/Read-only file system/);
    personCommits();
  });

  it("a relative hooksPath in the person's global config (relative to every work tree)", () => {
    mkdirSync(join(ws.cwd, ".githooks"));
    writeFileSync(join(ws.home, ".gitconfig"), "[core]\n\thooksPath = .githooks\n");
    expect(agent(plant(".githooks/pre-commit"))).toMatch(/Read-only file system/);
    personCommits();
  });

  it("the same hooks dir when it does not exist yet: the workspace is read-only", () => {
    writeFileSync(join(ws.home, ".gitconfig"), "[core]\n\thooksPath = .githooks\n");
    expect(agent(plant(".githooks/pre-commit"))).toMatch(/Read-only file system/);
    personCommits();
  });

  it("a hooksPath in the XDG config, read as the person's git reads it", () => {
    mkdirSync(join(ws.cwd, "hooks"));
    const xdg = ws.env.XDG_CONFIG_HOME as string;
    mkdirSync(join(xdg, "git"), { recursive: true });
    writeFileSync(join(xdg, "git", "config"), "[core]\n\thooksPath = hooks\n");
    expect(agent(plant("hooks/pre-commit"))).toMatch(/Read-only file system/);
    personCommits();
  });
});

describeWith("bwrap", "included config, whatever the scope that includes it", () => {
  it("an includeIf of the person's global config naming a file in the workspace", () => {
    writeFileSync(join(ws.cwd, "team.gitconfig"), "[user]\n\tname = team\n");
    writeFileSync(
      join(ws.home, ".gitconfig"),
      `[includeIf "gitdir:${ws.cwd}/"]\n\tpath = ${join(ws.cwd, "team.gitconfig")}\n`,
    );
    mkdirSync(join(ws.cwd, "evil"));
    const text = agent(
      `${plant("evil/pre-commit")}; printf '[core]\\n\\thooksPath = ${join(ws.cwd, "evil")}\\n' >> team.gitconfig`,
    );
    expect(text).toMatch(/Read-only file system/);
    personCommits();
  });
});

describeWith("bwrap", "every link on the way is kept, not only where it points", () => {
  it("a hooks dir reached through a symlink: the agent replaces the link", () => {
    mkdirSync(join(ws.cwd, "tools"));
    mkdirSync(join(ws.cwd, "real-hooks"));
    symlinkSync("../real-hooks", join(ws.cwd, "tools", "hooks"));
    appendRepoConfig("[core]\n\thooksPath = tools/hooks");
    const text = agent(`rm tools/hooks && ${plant("tools/hooks/pre-commit")}`);
    expect(text).toMatch(/Read-only file system/);
    personCommits();
  });

  it("a hooks dir that is a symlink right in the workspace", () => {
    mkdirSync(join(ws.cwd, "real-hooks"));
    symlinkSync("real-hooks", join(ws.cwd, "hooks"));
    appendRepoConfig("[core]\n\thooksPath = hooks");
    const text = agent(`rm hooks && ${plant("hooks/pre-commit")}`);
    expect(text).toMatch(/Read-only file system/);
    personCommits();
  });

  it("an include that is a symlink: the agent replaces the link with config of its own", () => {
    mkdirSync(join(ws.cwd, "conf"));
    writeFileSync(join(ws.cwd, "shared.gitconfig"), "[user]\n\tname = team\n");
    symlinkSync("../shared.gitconfig", join(ws.cwd, "conf", "team.gitconfig"));
    appendRepoConfig("[include]\n\tpath = ../conf/team.gitconfig");
    mkdirSync(join(ws.cwd, "evil"));
    const text = agent(
      `${plant("evil/pre-commit")}; rm conf/team.gitconfig && printf '[core]\\n\\thooksPath = ${join(ws.cwd, "evil")}\\n' > conf/team.gitconfig`,
    );
    expect(text).toMatch(/Read-only file system/);
    personCommits();
  });

  it("a .git that is a symlink: the agent puts a repository of its own in its place", () => {
    renameSync(join(ws.cwd, ".git"), join(ws.cwd, "store.git"));
    symlinkSync("store.git", join(ws.cwd, ".git"));
    const text = agent(`rm .git && cp -r store.git .git && ${plant(".git/hooks/pre-commit")}`);
    expect(text).toMatch(/Read-only file system/);
    personCommits();
  });
});

describeWith("bwrap", "hooks that are links, and a .git file's gitdir through a link", () => {
  it("a hook that is a symlink to a tracked script: the agent rewrites the script", () => {
    mkdirSync(join(ws.cwd, "scripts"));
    writeFileSync(join(ws.cwd, "scripts", "pre-commit.sh"), "#!/bin/sh\n");
    chmodSync(join(ws.cwd, "scripts", "pre-commit.sh"), 0o755);
    symlinkSync("../../scripts/pre-commit.sh", join(ws.cwd, ".git", "hooks", "pre-commit"));
    expect(agent(plant("scripts/pre-commit.sh"))).toMatch(/Read-only file system/);
    personCommits();
  });

  it("a hook that is a hard link of a tracked script: the agent rewrites the script in place", () => {
    mkdirSync(join(ws.cwd, "scripts"));
    writeFileSync(join(ws.cwd, "scripts", "pre-commit.sh"), "#!/bin/sh\n");
    chmodSync(join(ws.cwd, "scripts", "pre-commit.sh"), 0o755);
    linkSync(join(ws.cwd, "scripts", "pre-commit.sh"), join(ws.cwd, ".git", "hooks", "pre-commit"));
    const text = agent(`printf '#!/bin/sh\\ntouch ${marker}\\n' > scripts/pre-commit.sh`);
    expect(text).toMatch(/Read-only file system/);
    personCommits();
  });

  it("a .git file naming its gitdir through a symlink: the agent points the link at its own copy", () => {
    mkdirSync(join(ws.cwd, "store"));
    renameSync(join(ws.cwd, ".git"), join(ws.cwd, "store", "repo.git"));
    mkdirSync(join(ws.cwd, "via"));
    symlinkSync("../store", join(ws.cwd, "via", "link"));
    writeFileSync(join(ws.cwd, ".git"), "gitdir: via/link/repo.git\n");
    const text = agent(
      `mkdir evil && cp -r store/repo.git evil/ && ${plant("evil/repo.git/hooks/pre-commit")} && ` +
        "rm via/link && ln -s ../evil via/link",
    );
    expect(text).toMatch(/Read-only file system/);
    personCommits();
  });
});

describeWith("bwrap", "the repository's worktrees and submodules in the workspace", () => {
  it("a linked worktree: the relative hooksPath under its own top", () => {
    appendRepoConfig("[core]\n\thooksPath = .githooks");
    mkdirSync(join(ws.cwd, ".githooks"));
    hostGit("worktree", "add", "-q", join(ws.cwd, "wt", "feat"));
    mkdirSync(join(ws.cwd, "wt", "feat", ".githooks"));
    expect(agent(plant("wt/feat/.githooks/pre-commit"))).toMatch(/Read-only file system/);
    personCommits(join(ws.cwd, "wt", "feat"));
  });

  it("a submodule: the hooks dir its own config names in its work tree", () => {
    const lib = join(ws.base, "lib");
    mkdirSync(lib);
    hostGitIn(lib, "init", "-q");
    hostGitIn(lib, "commit", "-q", "--allow-empty", "-m", "init");
    hostGit("-c", "protocol.file.allow=always", "submodule", "add", "-q", lib, "lib");
    mkdirSync(join(ws.cwd, "lib", "hooks"));
    hostGitIn(join(ws.cwd, "lib"), "config", "core.hooksPath", "hooks");
    expect(agent(plant("lib/hooks/pre-commit"))).toMatch(/Read-only file system/);
    personCommits(join(ws.cwd, "lib"));
  });
});

describeWith("bwrap", "programs the config names in the workspace", () => {
  it("core.fsmonitor: the person's next git status runs it", () => {
    mkdirSync(join(ws.cwd, "tools"));
    const script = join(ws.cwd, "tools", "fsmonitor.sh");
    // A harmless fsmonitor hook: it answers "everything may have changed".
    writeFileSync(script, "#!/bin/sh\nprintf '/\\0'\n");
    chmodSync(script, 0o755);
    appendRepoConfig("[core]\n\tfsmonitor = tools/fsmonitor.sh");
    expect(agent(plant("tools/fsmonitor.sh"))).toMatch(/Read-only file system/);
    hostGit("status", "--short");
    expect(existsSync(marker)).toBe(false);
  });

  it("an alias the person runs: a script it names", () => {
    mkdirSync(join(ws.cwd, "scripts"));
    writeFileSync(join(ws.cwd, "scripts", "sync.sh"), "#!/bin/sh\n");
    chmodSync(join(ws.cwd, "scripts", "sync.sh"), 0o755);
    appendRepoConfig('[alias]\n\tsync = "!sh scripts/sync.sh"');
    expect(agent(plant("scripts/sync.sh"))).toMatch(/Read-only file system/);
    hostGit("sync");
    expect(existsSync(marker)).toBe(false);
  });
});

describeWith(
  "bwrap",
  'an allow rule with sandbox = "none" for git runs no hook of a repository the agent made',
  () => {
    beforeEach(() => {
      writeFileSync(join(ws.home, ".gitconfig"), "[user]\n\tname = t\n\temail = t@t\n");
      userRules(
        ws,
        "git.toml",
        '[[rule]]\npattern = ["git", ["commit", "status"]]\ndecision = "allow"\nsandbox = "none"\n',
      );
    });

    it.each([
      ["a nested repository", "sub"],
      ["a repository made in the workspace's own root", "."],
    ])("%s: its pre-commit hook and fsmonitor do not run on the host", (_label, dir) => {
      rmSync(join(ws.cwd, ".git"), { recursive: true });
      const made = agent(
        `git init -q ${dir} && ${plant(`${dir}/.git/hooks/pre-commit`)} && ${plant(`${dir}/fsmonitor.sh`)} && echo made`,
      );
      expect(made).toContain("made");
      const run = (command: string): Record<string, unknown> =>
        toolCall(ws, "shell_command", { command, workdir: join(ws.cwd, dir) }, { approval: "untrusted" })
          .result;
      // Its config names nothing: the rule lifts the sandbox, and the hook stays off.
      for (const command of ["git commit --allow-empty -m next", "git status --short"]) {
        expect(run(command)).toMatchObject({ status: "ok", sandbox: "none" });
      }
      expect(existsSync(marker)).toBe(false);
      // Once its config names a program (core.fsmonitor), nothing leaves the sandbox unasked. (The
      // workspace root's own .git/config is read-only to every call after the one that made it.)
      const set = agent(`git -C ${dir} config core.fsmonitor ./fsmonitor.sh && echo set`);
      if (dir === ".") {
        // Its .git/config is bound read-only: git's rename of its lock over it fails.
        expect(set).toMatch(/could not write config file/);
        return;
      }
      expect(set).toContain("set");
      for (const command of ["git commit --allow-empty -m next", "git status --short"]) {
        expect(run(command)).toMatchObject({ status: "rejected" });
      }
      expect(existsSync(marker)).toBe(false);
    });
  },
);

describeWith(
  "bwrap",
  'an allow rule with sandbox = "none" for git runs no program named by config the agent could write',
  () => {
    // The agent's script for each program git may run: it creates the marker, then does what git expects
    // of it (a filter or textconv copies its input through).
    const evil = (): string => `#!/bin/sh\ntouch ${marker}\nexec cat\n`;

    beforeEach(() => {
      writeFileSync(join(ws.home, ".gitconfig"), "[user]\n\tname = t\n\temail = t@t\n");
      userRules(
        ws,
        "git.toml",
        '[[rule]]\npattern = ["git", ["commit", "status", "fetch", "diff"]]\ndecision = "allow"\nsandbox = "none"\n',
      );
      writeFileSync(join(ws.outside, "evil.sh"), evil());
      chmodSync(join(ws.outside, "evil.sh"), 0o755);
    });

    /** The agent's repository `sub`, made in a sandboxed call, with `config` added to its `.git/config`. */
    function agentRepository(config: string): void {
      const made = agent(
        "git init -q sub && cd sub && echo a > f && git add f && git commit -qm a && " +
          `printf '%s\\n' '* filter=x diff=x' > .gitattributes && printf '${config}\\n' >> .git/config && ` +
          "echo b > f && echo made",
      );
      expect(made).toContain("made");
    }

    /** A command in `dir` that the rule alone would run outside the sandbox: asked, so (nobody here) refused. */
    function hostRun(command: string, dir: string): Record<string, unknown> {
      return toolCall(ws, "shell_command", { command, workdir: dir }, { approval: "untrusted" }).result;
    }

    const script = (): string => join(ws.outside, "evil.sh");
    it.each([
      ["a clean filter", (): string => `[filter "x"]\\n\\tclean = ${script()}`, "git commit -a -m next"],
      [
        "gpg.program with commit.gpgSign",
        (): string => `[commit]\\n\\tgpgSign = true\\n[gpg]\\n\\tprogram = ${script()}`,
        "git commit --allow-empty -m next",
      ],
      ["a textconv", (): string => `[diff "x"]\\n\\ttextconv = ${script()}`, "git diff"],
      [
        "core.sshCommand",
        (): string => `[core]\\n\\tsshCommand = ${script()}`,
        "git fetch ssh://127.0.0.1/x",
      ],
      [
        "a filter in a file its config includes",
        (): string => "[include]\\n\\tpath = ../../inc",
        "git commit -a -m next",
      ],
    ])("%s in a repository the agent made", (_label, config, command) => {
      writeFileSync(join(ws.cwd, "inc"), `[filter "x"]\n\tclean = ${script()}\n`);
      agentRepository(config());
      const result = hostRun(command, join(ws.cwd, "sub"));
      expect(result).toMatchObject({ status: "rejected" });
      expect(existsSync(marker)).toBe(false);
    });

    it("cd into the agent's repository before git: the directory asked about is not where git runs", () => {
      writeFileSync(join(ws.cwd, "inc"), "");
      // A person's rule that lifts `cd` too, so that the whole script leaves the sandbox by rules alone.
      userRules(ws, "cd.toml", '[[rule]]\npattern = ["cd"]\ndecision = "allow"\nsandbox = "none"\n');
      agentRepository(`[filter "x"]\\n\\tclean = ${script()}`);
      const result = hostRun("cd sub && git commit -a -m next", ws.cwd);
      expect(result).not.toMatchObject({ status: "ok", sandbox: "none" });
      expect(existsSync(marker)).toBe(false);
    });

    it("a filter in a submodule of the agent's repository: git status recurses into it", () => {
      const made = agent(
        "git init -q sub && cd sub && git init -q lib && cd lib && echo a > f && git add f && git commit -qm a && " +
          `printf '* filter=x\\n' > .gitattributes && git config filter.x.clean ${script()} && ` +
          "touch -d '2000-01-01' f && cd .. && git add lib && git commit -qm lib && echo made",
      );
      expect(made).toContain("made");
      expect(hostRun("git status", join(ws.cwd, "sub"))).toMatchObject({ status: "rejected" });
      expect(existsSync(marker)).toBe(false);
    });

    it("under approval never (nobody to ask) the command runs in the sandbox instead", () => {
      writeFileSync(join(ws.cwd, "inc"), "");
      agentRepository(`[diff "x"]\\n\\ttextconv = ${script()}`);
      const { result } = toolCall(
        ws,
        "shell_command",
        { command: "git diff", workdir: join(ws.cwd, "sub") },
        { approval: "never" },
      );
      expect(result).toMatchObject({ status: "ok", sandbox: "bwrap" });
      expect(existsSync(marker)).toBe(false);
    });

    it("a repository of the person's with no program in its config still runs outside the sandbox", () => {
      expect(hostRun("git status", ws.cwd)).toMatchObject({ status: "ok", sandbox: "none" });
    });
  },
);

describeWith("bwrap", "a workspace that is the home: its ~/.gitconfig is config the agent wrote", () => {
  it("core.sshCommand in ~/.gitconfig written by a sandboxed call does not run on the host unasked", () => {
    ws.cleanup();
    ws = workspace({ cwdIsHome: true });
    marker = join(ws.outside, "hook-ran");
    hostGit("init", "-q");
    hostGit("commit", "-q", "--allow-empty", "-m", "init");
    userConfig(ws, ["home_workspace = true"]);
    userRules(ws, "git.toml", '[[rule]]\npattern = ["git", "fetch"]\ndecision = "allow"\nsandbox = "none"\n');
    writeFileSync(join(ws.outside, "evil.sh"), `#!/bin/sh\ntouch ${marker}\n`);
    chmodSync(join(ws.outside, "evil.sh"), 0o755);
    const made = agent(
      `printf '[core]\\n\\tsshCommand = ${join(ws.outside, "evil.sh")}\\n' >> ~/.gitconfig && echo made`,
    );
    expect(made).toContain("made");
    const command = "git fetch ssh://127.0.0.1/x";
    const result = toolCall(ws, "shell_command", { command }, { approval: "untrusted" }).result;
    expect(result).toMatchObject({ status: "rejected" });
    expect(existsSync(marker)).toBe(false);
  });
});
