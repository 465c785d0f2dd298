// Attempts of an independent review (of 37ee5c2, gitHostExposure): a person's rule runs git outside the sandbox with nobody asked
// (`decision = "allow"`, `sandbox = "none"`); the agent, from sandboxed calls, tries to have that git run
// a program of its choosing on the host. Each attempt is real: the `conch` binary, bwrap, the host's git.
// The payload touches a marker outside the workspace (`ws.outside`), which no sandboxed call can write.
import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describeWith } from "@conch/test-config";
import { afterEach, beforeEach, expect, it } from "vitest";
import { personGit, replay, toolCall, userRules, type Workspace, workspace } from "./harness.js";

let ws: Workspace;
let marker: string;
let evil: string;

function hostGit(cwd: string, ...args: string[]): void {
  const result = personGit(ws, cwd, ...args);
  if (result.status !== 0) throw new Error(`git ${args.join(" ")}: ${result.stderr}`);
}

beforeEach(() => {
  ws = workspace();
  marker = join(ws.outside, "ran-on-host");
  hostGit(ws.cwd, "init", "-q");
  hostGit(ws.cwd, "commit", "-q", "--allow-empty", "-m", "init");
  writeFileSync(join(ws.home, ".gitconfig"), "[user]\n\tname = t\n\temail = t@t\n");
  // What the agent's config names: a script outside the workspace (written here by the test, as in
  // git-config.test.ts), which creates the marker and copies its input through.
  evil = join(ws.outside, "evil.sh");
  writeFileSync(evil, `#!/bin/sh\ntouch ${marker}\nexec cat\n`);
  chmodSync(evil, 0o755);
});
afterEach(() => ws.cleanup());

const RULE = (words: string): string =>
  `[[rule]]\npattern = ["git", [${words}]]\ndecision = "allow"\nsandbox = "none"\n`;

/** One sandboxed call of the agent's. */
function agent(command: string): string {
  return toolCall(ws, "shell_command", { command }).text;
}

/** A call the rule alone would run outside the sandbox; whoever is asked (nobody here) says no. */
function ruleRun(command: string, dir: string = ws.cwd): Record<string, unknown> {
  const call = toolCall(ws, "shell_command", { command, workdir: dir }, { approval: "untrusted" });
  if (process.env.REVIEW_DEBUG !== undefined)
    console.log(
      JSON.stringify({
        command,
        status: call.result.status,
        sandbox: call.result.sandbox,
        text: call.text.slice(0, 400),
      }),
    );
  return call.result;
}

/** The agent's repository `sub` (a tracked file `f`, modified, with `* filter=x diff=x`), `config` appended. */
function agentRepository(config: string): void {
  const made = agent(
    "git init -q sub && cd sub && echo a > f && git add f && git -c user.name=t -c user.email=t@t commit -qm a && " +
      `printf '%s\\n' '* filter=x diff=x' > .gitattributes && printf '${config}\\n' >> .git/config && ` +
      "echo b > f && echo made",
  );
  expect(made).toContain("made");
}

describeWith("bwrap", "review: programs of config that gitHostExposure does not know", () => {
  it("core.alternateRefsCommand in the agent's repository: git fetch runs it on the host", () => {
    userRules(ws, "git.toml", RULE('"fetch"'));
    const made = agent(
      "G='git -c user.name=t -c user.email=t@t'; " +
        "git init -q src && $G -C src commit -q --allow-empty -m a && " +
        "git init -q alt && $G -C alt commit -q --allow-empty -m b && " +
        'git init -q sub && echo "$PWD/alt/.git/objects" > sub/.git/objects/info/alternates && ' +
        `git -C sub config core.alternateRefsCommand '${evil} </dev/null; true' && echo made`,
    );
    expect(made).toContain("made");
    const result = ruleRun("git fetch ../src", join(ws.cwd, "sub"));
    expect({ result, ran: existsSync(marker) }).toMatchObject({ ran: false });
    expect(result).not.toMatchObject({ status: "ok", sandbox: "none" });
  });
});

describeWith("bwrap", "review: core.alternateRefsCommand reached by a lazy fetch of a partial clone", () => {
  it("git diff in the agent's partial clone fetches a missing blob, and the fetch runs the command", () => {
    userRules(ws, "git.toml", RULE('"diff", "status"'));
    const made = agent(
      "G='git -c user.name=t -c user.email=t@t'; " +
        "git init -q src && echo a > src/f && git -C src add f && $G -C src commit -qm a && " +
        "git -C src config uploadpack.allowFilter true && git -C src config uploadpack.allowAnySHA1InWant true && " +
        'git clone -q --filter=blob:none "file://$PWD/src" sub && echo b > src/f && $G -C src commit -qam b && ' +
        "git -C sub fetch -q origin && git -C sub read-tree FETCH_HEAD && " +
        "git init -q alt && $G -C alt commit -q --allow-empty -m x && " +
        'echo "$PWD/alt/.git/objects" > sub/.git/objects/info/alternates && ' +
        `git -C sub config core.alternateRefsCommand '${evil} </dev/null; true' && echo made`,
    );
    expect(made).toContain("made");
    const result = ruleRun("git diff", join(ws.cwd, "sub"));
    expect({ result, ran: existsSync(marker) }).toMatchObject({ ran: false });
    expect(result).not.toMatchObject({ status: "ok", sandbox: "none" });
  });
});

describeWith("bwrap", "review: the legacy shell tool's argv is not a script to gitHostExposure", () => {
  it("[bash, -c, 'cd sub && git commit']: the cd is not seen", () => {
    userRules(ws, "git.toml", RULE('"commit"'));
    userRules(ws, "cd.toml", '[[rule]]\npattern = ["cd"]\ndecision = "allow"\nsandbox = "none"\n');
    agentRepository(`[filter "x"]\\n\\tclean = ${evil}`);
    const call = toolCall(
      ws,
      "shell",
      { command: ["bash", "-c", "cd sub && git commit -a -m next"], workdir: ws.cwd },
      { approval: "untrusted" },
    );
    expect({ result: call.result, ran: existsSync(marker) }).toMatchObject({ ran: false });
    expect(call.result).not.toMatchObject({ status: "ok", sandbox: "none" });
  });
});

describeWith("bwrap", "review: the script's words as gitHostExposure reads them", () => {
  beforeEach(() => {
    userRules(ws, "git.toml", RULE('"commit", "status", "diff"'));
    userRules(ws, "cd.toml", '[[rule]]\npattern = ["cd"]\ndecision = "allow"\nsandbox = "none"\n');
  });

  it.each([
    ["$'cd' (ANSI-C quoting)", "$'cd' sub && git commit -a -m next"],
    ['$"cd" (locale quoting)', '$"cd" sub && git commit -a -m next'],
    ["c''d", "c''d sub && git commit -a -m next"],
    ["\\cd", "\\cd sub && git commit -a -m next"],
    ["{ cd; }", "{ cd sub; } && git commit -a -m next"],
    ["cd in a subshell", "(cd sub && git commit -a -m next)"],
    ["a newline between", "cd sub\ngit commit -a -m next"],
  ])("%s into the agent's repository before git commit", (_label, command) => {
    agentRepository(`[filter "x"]\\n\\tclean = ${evil}`);
    const result = ruleRun(command);
    expect({ result, ran: existsSync(marker) }).toMatchObject({ ran: false });
    expect(result).not.toMatchObject({ status: "ok", sandbox: "none" });
  });

  it.each([
    ["EDITOR= before git", `EDITOR='touch ${"MARKER"}' git commit --allow-empty`],
    ["env EDITOR= git", `env EDITOR='touch ${"MARKER"}' git commit --allow-empty`],
    ["command git", "command git -c core.editor='touch MARKER' commit --allow-empty"],
    ["exec git", "exec git -c core.editor='touch MARKER' commit --allow-empty"],
    ['"git"', "\"git\" -c core.editor='touch MARKER' commit --allow-empty"],
    ["LD_PRELOAD=", "LD_PRELOAD=/nonexistent.so git status && touch MARKER"],
  ])("%s in the person's repository", (_label, command) => {
    const result = ruleRun(command.replaceAll("MARKER", marker));
    expect({ result, ran: existsSync(marker) }).toMatchObject({ ran: false });
    expect(result).not.toMatchObject({ status: "ok", sandbox: "none" });
  });

  it("git status; git commit chained in the agent's repository", () => {
    agentRepository(`[filter "x"]\\n\\tclean = ${evil}`);
    const result = ruleRun("git status --short; git commit -a -m next", join(ws.cwd, "sub"));
    expect({ result, ran: existsSync(marker) }).toMatchObject({ ran: false });
    expect(result).toMatchObject({ status: "rejected" });
  });
});

describeWith("bwrap", "review: config other ways than the repository's own .git/config", () => {
  beforeEach(() => userRules(ws, "git.toml", RULE('"commit", "status", "diff", "fetch"')));

  it.each([
    ["remote.<name>.uploadpack", `[remote "o"]\\n\\turl = ../src\\n\\tuploadpack = ${evil} #`, "git fetch o"],
    ["core.askPass", `[core]\\n\\taskPass = ${evil}`, "git fetch https://127.0.0.1:9/x"],
    [
      "credential.<url>.helper",
      `[credential "https://127.0.0.1:9"]\\n\\thelper = !${evil}`,
      "git fetch https://127.0.0.1:9/x",
    ],
    ["core.gitProxy", `[core]\\n\\tgitProxy = ${evil}`, "git fetch git://127.0.0.1:9/x"],
    [
      "gpg.ssh.program",
      `[commit]\\n\\tgpgSign = true\\n[gpg]\\n\\tformat = ssh\\n[gpg "ssh"]\\n\\tprogram = ${evil}\\n[user]\\n\\tsigningKey = key::x`,
      "git commit --allow-empty -m s",
    ],
    ["diff.external", `[diff]\\n\\texternal = ${evil}`, "git diff --ext-diff"],
    [
      "includeIf hasconfig",
      `[remote "o"]\\n\\turl = https://h/x\\n[includeIf "hasconfig:remote.*.url:https://h/**"]\\n\\tpath = ../../inc`,
      "git commit -a -m next",
    ],
    ["extensions.worktreeConfig", "[extensions]\\n\\tworktreeConfig = true", "git commit -a -m next"],
  ])("%s in the agent's repository", (_label, config, command) => {
    writeFileSync(join(ws.cwd, "inc"), `[filter "x"]\n\tclean = ${evil}\n`);
    agentRepository(config);
    if (_label === "extensions.worktreeConfig") {
      // The program is in config.worktree, read only with the extension.
      agent(`cd sub && git config --worktree filter.x.clean ${evil} && echo ok`);
    }
    const result = ruleRun(command, join(ws.cwd, "sub"));
    expect({ result, ran: existsSync(marker) }).toMatchObject({ ran: false });
    expect(result).not.toMatchObject({ status: "ok", sandbox: "none" });
  });

  it("a .git file (gitdir:) in the work tree pointing at a git dir elsewhere in the workspace", () => {
    const made = agent(
      "mkdir -p hidden && git init -q --separate-git-dir=$PWD/hidden/g.git sub && cd sub && echo a > f && git add f && " +
        "git -c user.name=t -c user.email=t@t commit -qm a && printf '* filter=x\\n' > .gitattributes && " +
        `git config filter.x.clean ${evil} && echo b > f && echo made`,
    );
    expect(made).toContain("made");
    const result = ruleRun("git commit -a -m next", join(ws.cwd, "sub"));
    expect({ result, ran: existsSync(marker) }).toMatchObject({ ran: false });
    expect(result).toMatchObject({ status: "rejected" });
  });

  it("$GIT_DIR/info/attributes naming a driver that the agent's config defines", () => {
    const made = agent(
      "git init -q sub && cd sub && echo a > f && git add f && git -c user.name=t -c user.email=t@t commit -qm a && " +
        `mkdir -p .git/info && printf '* diff=y\\n' > .git/info/attributes && git config diff.y.textconv ${evil} && ` +
        "echo b > f && echo made",
    );
    expect(made).toContain("made");
    const result = ruleRun("git diff", join(ws.cwd, "sub"));
    expect({ result, ran: existsSync(marker) }).toMatchObject({ ran: false });
    expect(result).toMatchObject({ status: "rejected" });
  });
});

describeWith("bwrap", "review: a rule for a git subcommand, and the options the model gives it", () => {
  it("git fetch --upload-pack=<command> . (a local transport runs it through the shell)", () => {
    userRules(ws, "git.toml", RULE('"fetch"'));
    const result = ruleRun(`git fetch --upload-pack="touch ${marker}; git-upload-pack" .`);
    expect({ result, ran: existsSync(marker) }).toMatchObject({ ran: false });
  });

  it("git diff --no-index reads a secret the sandbox hides (~/.ssh/id_rsa)", () => {
    userRules(ws, "git.toml", RULE('"diff"'));
    const key = join(ws.home, ".ssh", "id_rsa");
    mkdirSync(join(ws.home, ".ssh"), { recursive: true });
    writeFileSync(key, "-----BEGIN OPENSSH PRIVATE KEY-----review-secret", { mode: 0o600 });
    expect(agent(`cat ${key}`)).not.toContain("review-secret");
    const call = toolCall(
      ws,
      "shell_command",
      { command: `git diff --no-index ${key} /dev/null` },
      { approval: "untrusted" },
    );
    expect(call.text).not.toContain("review-secret");
  });

  it("git diff --output=<a path outside the workspace> writes there", () => {
    userRules(ws, "git.toml", RULE('"diff"'));
    const result = ruleRun(`git diff --output=${marker}`);
    expect({ result, ran: existsSync(marker) }).toMatchObject({ ran: false });
  });
});

/**
 * A sandboxed exec_command session (it keeps running) makes the agent's repository `sub` (a tracked `f`,
 * modified, `* diff=x`, a textconv in `.git/bad`) and then runs `loop` in it; meanwhile the rule's
 * `git diff` is called in `sub` until the marker appears. Returns how many calls the rule lifted.
 */
async function raceTheCheck(loop: string): Promise<number> {
  userRules(ws, "git.toml", RULE('"diff"'));
  const session = replay(ws, ["--approval", "on-request", "--approver", "deny"]);
  let lifted = 0;
  try {
    const started = await session.call("exec_command", {
      cmd:
        "git init -q sub && cd sub && echo a > f && git add f && " +
        "git -c user.name=t -c user.email=t@t commit -qm a && printf '* diff=x\\n' > .gitattributes && " +
        "echo b > f && cp .git/config .git/good && cp .git/good .git/bad && " +
        `printf '[diff "x"]\\n\\ttextconv = ${evil}\\n' >> .git/bad && echo made && ${loop}`,
      yield_time_ms: 1000,
    });
    expect(started.text).toContain("made");
    for (let attempt = 0; attempt < 40 && !existsSync(marker); attempt++) {
      const answer = (await session.call("shell_command", {
        command: "git diff",
        workdir: join(ws.cwd, "sub"),
      })) as { text: string; result?: Record<string, unknown> };
      if (answer.result?.sandbox === "none") lifted++;
    }
  } finally {
    await session.close();
  }
  return lifted;
}

describeWith("bwrap", "review: the agent's repository changes between the check and the run", () => {
  it("a sandboxed session swaps sub/.git/config (no program / a textconv) while git diff is checked, then run", async () => {
    const lifted = await raceTheCheck(
      "while :; do cp .git/good .git/c1; mv -f .git/c1 .git/config; cp .git/bad .git/c2; mv -f .git/c2 .git/config; done",
    );
    expect({ lifted, ran: existsSync(marker) }).toMatchObject({ ran: false });
  }, 240_000);

  it("a sandboxed session moves sub/.git away and back: checked as the person's repository, run in the agent's", async () => {
    const lifted = await raceTheCheck(
      "cp .git/bad .git/config && while :; do mv .git .gitx; mv .gitx .git; done",
    );
    expect({ lifted, ran: existsSync(marker) }).toMatchObject({ ran: false });
  }, 240_000);
});

describeWith("bwrap", "review: more worktrees and submodules than are read", () => {
  it("a repository of the agent's with 33 worktrees is not lifted: the 33rd would go unread", () => {
    userRules(ws, "git.toml", RULE('"status"'));
    const made = agent(
      "git init -q sub && cd sub && git -c user.name=t -c user.email=t@t commit -q --allow-empty -m a && " +
        "for i in $(seq 1 33); do git worktree add -q ../wt$i || exit 1; done && echo made",
    );
    expect(made).toContain("made");
    const call = toolCall(
      ws,
      "shell_command",
      { command: "git status --short", workdir: join(ws.cwd, "sub") },
      // Nobody to ask: the text says why it would have been asked.
      { approval: "untrusted", approver: "none" },
    );
    expect(call.result).toMatchObject({ status: "rejected" });
    expect(call.text).toContain("more than 32 worktrees and submodules");
  });
});

describeWith("bwrap", "review: what a person's ordinary repository holds still runs outside unasked", () => {
  it("husky's core.hooksPath, gh's gh-resolved and git-lfs keys: lifted, and the hook stays off", () => {
    userRules(ws, "git.toml", RULE('"commit", "status"'));
    mkdirSync(join(ws.cwd, ".husky", "_"), { recursive: true });
    writeFileSync(join(ws.cwd, ".husky", "_", "pre-commit"), `#!/bin/sh\ntouch ${marker}\n`);
    chmodSync(join(ws.cwd, ".husky", "_", "pre-commit"), 0o755);
    hostGit(ws.cwd, "config", "core.hooksPath", ".husky/_");
    hostGit(ws.cwd, "config", "remote.origin.url", "https://example.invalid/r.git");
    hostGit(ws.cwd, "config", "remote.origin.gh-resolved", "base");
    hostGit(ws.cwd, "config", "lfs.repositoryformatversion", "0");
    const result = ruleRun("git commit --allow-empty -m next");
    expect(result).toMatchObject({ status: "ok", sandbox: "none" });
    expect(existsSync(marker)).toBe(false);
  });
});
